# Switch latency: from the start of `gadgetctl switch` until the host has
# enumerated the new identity, median of 20, with gadgetd's own phase
# split; then, in the same run, the bare-kernel floor (switch-floor.sh
# writing ConfigFS directly) measured the same way, and gadgetd's ratio to
# it. Also the idle RSS of gadgetd, once started and after the switches,
# with where it lies (smaps, summed by mapping, in b-switch.log), its USS
# (private pages) and, for comparison, a sleep's. Prints BENCH lines.
#
# Both ends are taken from the kernel's clock: a "bench: switch" line the
# shell's builtin echo writes to /dev/kmsg just before the command, and
# usbcore's "New USB device found" for the new ids, logged once the host
# has read all the device's descriptors, just before the device appears
# in sysfs. A poll of sysfs from the shell would add the cost of its own
# processes, which on the TCG bed is tens to hundreds of milliseconds.
. "$SRC/tests/loopback/lib.sh"
UDC=dummy_udc.0
# rss_where PID WHEN: the RSS of PID by mapping (file, [heap], [stack],
# anonymous), largest first, from smaps.
rss_where() {
	echo "gadgetd RSS $2 by mapping (KiB: Rss, Private_Dirty):"
	awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]" }
		$1 == "Rss:" { rss[name] += $2 }
		$1 == "Private_Dirty:" { pd[name] += $2 }
		END { for (n in rss) if (rss[n]) printf "  %6d %6d %s\n", rss[n], pd[n], n }' "/proc/$1/smaps" | sort -rn
	grep -E '^(Rss|Pss|Private_Dirty|Private_Clean|Shared_Clean|Anonymous):' "/proc/$1/smaps_rollup" | sed 's/^/  /'
}
# rss_lines PID NAME: BENCH NAME_rss_kib and NAME_uss_kib, what is the
# process's own (Private_Clean + Private_Dirty: what ending it would give
# back), from smaps_rollup, which walks the page tables. Not VmRSS: the
# bed's 6.1 kernel updates that counter per task every 64 page faults,
# so it lags (a sleep showed 884 KiB there against 1368 in smaps).
rss_lines() {
	awk -v n="$2" '$1 == "Rss:" { r = $2 }
		$1 == "Private_Clean:" || $1 == "Private_Dirty:" { u += $2 }
		END { printf "BENCH %s_rss_kib %d KiB\nBENCH %s_uss_kib %d KiB\n", n, r, n, u }' /proc/$1/smaps_rollup
}
gd_install
# What any process linked to libc shows on this bed: the kernel maps the
# page cache's libc pages around each fault (fault-around), so the RSS of
# shared libraries grows with how much of them earlier programs read.
sleep 30 &
SP=$!
sleep 0.3
rss_lines $SP sleep
rss_where $SP "(sleep, for comparison)"
kill $SP
gd_start lab
rss_lines "$GD_PID" gadgetd_start
rss_where "$GD_PID" "once started"
gd_switch acm,ecm
pa=$(set_pid acm,ecm)
pb=$(set_pid ncm)
wait_usb "1d6b:$pa" 20 || die "first set not seen"
# seen VID PID: the host lists the device in sysfs (builtins only).
seen() {
	for d in /sys/bus/usb/devices/*; do
		[ -f "$d/idProduct" ] || continue
		read -r seen_v < "$d/idVendor"; read -r seen_p < "$d/idProduct"
		[ "$seen_v:$seen_p" = "$1:$2" ] && return 0
	done
	return 1
}
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# measure NAME CMD...: 20 switches between ncm and acm,ecm, each by
# `CMD SET PID`, marked in the kernel's log; dmesg-NAME.txt keeps it.
measure() {
	name=$1
	shift
	dmesg -C
	local i=0 n
	while [ $i -lt 20 ]; do
		if [ $((i % 2)) = 0 ]; then set=ncm; p=$pb; else set=acm,ecm; p=$pa; fi
		echo "bench: switch 1d6b:$p" > /dev/kmsg
		"$@" $set $p >/dev/null || die "$* $set failed"
		n=0
		until seen 1d6b "$p"; do
			n=$((n + 1)); [ $n -gt 2000 ] && die "host did not see 1d6b:$p"
			sleep 0.005
		done
		[ "$name" = gadgetd ] && gd_status '.last_switch | "\(.teardown_ms) \(.ready_ms) \(.bind_ms) \(.total_ms)"' >> phases.txt
		i=$((i + 1))
	done
	dmesg > "dmesg-$name.txt"
	python3 "$SRC/tests/bench/switch_times.py" "$name" "dmesg-$name.txt" > "$name.txt" || die "no timings in dmesg-$name.txt"
	cat "$name.txt"
}
gd_sw() { timeout 60 gadgetctl switch "$1"; }
floor_relink() { timeout 60 sh "$SRC/tests/bench/switch-floor.sh" relink "$1" "0x$2" "$UDC"; }
floor_swap() { timeout 60 sh "$SRC/tests/bench/switch-floor.sh" swap "$1" "0x$2" "$UDC"; }

: > phases.txt
measure gadgetd gd_sw
echo "BENCH switch_teardown_ms_median $(awk '{print $1}' phases.txt | med) ms"
echo "BENCH switch_ready_ms_median $(awk '{print $2}' phases.txt | med) ms"
echo "BENCH switch_bind_ms_median $(awk '{print $3}' phases.txt | med) ms"
echo "BENCH switch_gadgetd_total_ms_median $(awk '{print $4}' phases.txt | med) ms"
rss_lines "$GD_PID" gadgetd_idle
rss_where "$GD_PID" "after 20 switches"
gadgetctl off >/dev/null
gd_stop
wait_no_usb "1d6b:$pa" 10 && wait_no_usb "1d6b:$pb" 10 || die "gadgetd's device stayed"

sh "$SRC/tests/bench/switch-floor.sh" setup || die "floor setup failed"
measure floor_relink floor_relink
measure floor_swap floor_swap
sh "$SRC/tests/bench/switch-floor.sh" teardown || die "floor teardown failed"
awk '$2 == "switch_to_host_ms_median" { g = $3 }
	$2 == "switch_floor_relink_to_host_ms_median" { r = $3 }
	$2 == "switch_floor_swap_to_host_ms_median" { s = $3 }
	END {
		if (s > 0) printf "BENCH switch_ratio_to_floor %.2f x (target <= 1.1; floor: two gadgets, unbind one, bind the other)\n", g / s
		if (r > 0) printf "BENCH switch_ratio_to_floor_relink %.2f x (floor: one gadget, links changed)\n", g / r
	}' gadgetd.txt floor_relink.txt floor_swap.txt
