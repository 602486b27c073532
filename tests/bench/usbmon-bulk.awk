# Splits the time of a bulk stream in a usbmon text trace (0u) between
# the device and the host. For each URB of direction dir ("i" or "o")
# whose submitted length is size (libmtp's and usbsync's 16 KiB), prints
#   dev MICROSECONDS:  submit -> complete (the URB waited for the device,
#                      or for dummy_hcd's frames once the data was there)
#   host MICROSECONDS: the previous such URB's completion -> this submit
#                      (the host's turn-around: libusb, the tool, its
#                      file write or read)
# and at the end "span" (first submit to last completion) and "n".
# b-mtp.sh takes the medians, the 90th percentiles and the sums.
$4 ~ /^B[io]:/ && substr($4, 2, 1) == dir {
	if ($3 == "S" && $6 == size) {
		start[$1] = $2
		if (last_c) print "host", $2 - last_c
		if (!first) first = $2
	} else if ($3 == "C" && ($1 in start)) {
		print "dev", $2 - start[$1]
		delete start[$1]
		last_c = $2
		n++
	}
}
END {
	if (n) print "span", last_c - first
	print "n", n + 0
}
