# Switch latency: `gadgetctl switch` start until the host side enumerates
# the new identity, median of 20, with gadgetd's own phase split; and the
# idle RSS of gadgetd. Prints BENCH lines.
. "$SRC/tests/loopback/lib.sh"
gd_install
gd_start lab
gd_switch acm,ecm
a=1d6b:$(set_pid acm,ecm)
b=1d6b:$(set_pid ncm)
wait_usb "$a" 20 || die "first set not seen"
# The host has enumerated the device when sysfs lists its product id.
seen() {
	for d in /sys/bus/usb/devices/*; do
		[ -f "$d/idProduct" ] || continue
		[ "$(cat "$d/idVendor"):$(cat "$d/idProduct")" = "$1" ] && return 0
	done
	return 1
}
: > lat.txt
: > phases.txt
i=0
while [ $i -lt 20 ]; do
	if [ $((i % 2)) = 0 ]; then set=ncm; id=$b; else set=acm,ecm; id=$a; fi
	t0=$(date +%s%N)
	timeout 60 gadgetctl switch $set >/dev/null || die "switch $set failed"
	n=0
	until seen "$id"; do
		n=$((n + 1)); [ $n -gt 2000 ] && die "host did not see $id"
		sleep 0.005
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >> lat.txt
	gadgetctl status --json | python3 -c 'import json,sys; s=json.load(sys.stdin)["last_switch"]; print(s["teardown_ms"], s["ready_ms"], s["bind_ms"], s["total_ms"])' >> phases.txt
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "BENCH switch_to_host_ms_median $(med < lat.txt) ms"
echo "BENCH switch_teardown_ms_median $(awk '{print $1}' phases.txt | med) ms"
echo "BENCH switch_ready_ms_median $(awk '{print $2}' phases.txt | med) ms"
echo "BENCH switch_bind_ms_median $(awk '{print $3}' phases.txt | med) ms"
echo "BENCH switch_gadgetd_total_ms_median $(awk '{print $4}' phases.txt | med) ms"
echo "BENCH gadgetd_idle_rss_kib $(awk '/VmRSS/ { print $2 }' /proc/$GD_PID/status) KiB"
gd_stop
