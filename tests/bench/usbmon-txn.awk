# Splits the bulk transfers of a usbmon text trace (0u) into MTP
# transactions (command out, data in, response in; or command out,
# response in) and prints one "KIND MICROSECONDS" line per span:
#   dev_data: from the host's read of the data phase until it completed
#             (the device's processing, then the bus)
#   dev_resp: the same for the response
#   host_data, host_resp, host_next: from one completion until the
#             host's next submission (libusb, the client, its parsing)
#   txn:      from a command's submission to the next command's
# b-mtp.sh takes the median of each.
$4 ~ /^B[io]:/ {
	t = $2; ev = $3; dir = substr($4, 2, 1)
	if (dir == "o" && ev == "S") {
		if (last_cmd) print "txn", t - last_cmd
		if (last_in_c) print "host_next", t - last_in_c
		last_cmd = t; nin = 0; out_c = 0; last_in_c = 0
	} else if (dir == "o" && ev == "C") {
		out_c = t
	} else if (dir == "i" && ev == "S") {
		in_s = t
		if (nin == 0 && out_c) print "host_data", t - out_c
		else if (nin == 1 && last_in_c) print "host_resp", t - last_in_c
	} else if (dir == "i" && ev == "C") {
		nin++
		if (nin == 1) print "dev_data", t - in_s
		else if (nin == 2) print "dev_resp", t - in_s
		last_in_c = t
	}
}
