# Splits an adb 29 push (or usbsync's adbout/adbhopout, its pattern on
# SourceSink) in a usbmon text trace (0u) into the phases of each WRTE,
# as the host sees them: a 24-byte header out, the payload out (psize
# bytes), a ZLP out, and the OKAY in (a completion of 1 to 512 bytes),
# then the next header. Prints each phase's median and sum over the
# WRTEs, in microseconds:
#   cycle: one header's submit -> the next one's (the whole WRTE)
#   hdr:   the header's submit -> complete
#   gap:   the header's completion -> the payload's submit (host)
#   pay:   the payload's submit -> complete (the bus, and the device's
#          reads queued for it, or not)
#   zlp:   the payload's completion -> the ZLP's completion
#   after: the ZLP's completion -> the next header's submit, split when
#          the OKAY came after the ZLP into
#   okay:  the ZLP's completion -> the OKAY's (the device's turn) and
#   host:  the OKAY's completion -> the next header's submit (the host's
#          turn: adb's server, its client, the file)
# and "wrte N early M": the WRTEs counted, and those whose OKAY came
# before their payload had all gone out (the device acknowledged at the
# header).
$4 ~ /^Bo:/ && $3 == "S" {
	if ($6 == 24) {
		if (st == "zlpc") {
			put("cycle", $2 - hs); put("after", $2 - zc)
			if (t_ok > zc) { put("okay", t_ok - zc); put("host", $2 - t_ok) }
			else if (t_ok) early++
			n++
		}
		t_ok = 0
		hs = $2; st = "hdr"
	} else if ($6 == psize && st == "hdrc") {
		put("hdr", hc - hs); put("gap", $2 - hc); ps = $2; st = "pay"
	} else if ($6 == 0 && st == "payc") {
		st = "zlp"
	}
	next
}
$4 ~ /^Bo:/ && $3 == "C" {
	if (st == "hdr") { hc = $2; st = "hdrc" }
	else if (st == "pay") { pc = $2; put("pay", pc - ps); st = "payc" }
	else if (st == "zlp") { zc = $2; put("zlp", zc - pc); st = "zlpc" }
	next
}
$4 ~ /^Bi:/ && $3 == "C" && $6 + 0 > 0 && $6 + 0 <= 512 && st != "" && !t_ok {
	t_ok = $2
}
function put(k, v) { vals[k, ++cnt[k]] = v; sum[k] += v }
END {
	split("cycle hdr gap pay zlp after okay host", ks, " ")
	for (i = 1; i <= 8; i++) {
		k = ks[i]; m = cnt[k]
		if (!m) continue
		for (a = 1; a <= m; a++) v[a] = vals[k, a]
		for (a = 2; a <= m; a++) { x = v[a]; b = a - 1
			while (b > 0 && v[b] > x) { v[b + 1] = v[b]; b-- }
			v[b + 1] = x }
		printf "%s p50 %d us sum %.1f ms n %d\n", k, v[int((m + 1) / 2)], sum[k] / 1000, m
	}
	print "wrte", n + 0, "early", early + 0
}
