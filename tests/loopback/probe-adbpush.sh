#!/bin/sh
# Where a raw-ADB push's time goes (tests/bench/adbhost.c, sendrecv_v2,
# 64 MiB into tmpfs) through the adb plugin, with delayed_ack and
# without (-c): each push's rate and the CPU it cost the worker and the
# host (PROBE lines); usbmon over one push of each, its bulk OUT URBs of
# 1 MiB split between device (submit -> complete) and host (complete ->
# next submit) by tests/bench/usbmon-bulk.awk (mon-*.txt, bulk-*.txt);
# `perf record -a` over three pushes of each (perf-*.txt). The bounds
# beside them are b-adb.sh's (near_bulk1m_*, adbffs_*).
# Outside make check (like probe-mtplist.sh); run it with
#   tests/loopback/run-suite.sh /work/main/build/vm build/loopback probe-adbpush.sh
# after `make bench-prep` (or any make bench) has built build/adbhost.
# PROBE_BUILDS="DIR:DIR..." first takes the builds in turn (their worker and
# adb.so; DIR is a build directory) for the timed pushes; each line ends
# with the worker's resident memory after them and 1.5 s later.
. "$SRC/tests/loopback/lib.sh"

W=/run/probe-adb
FFS=/run/ffs-padb
OUT=/mnt/out
[ -x "$B/adbhost" ] || die "$B/adbhost missing (make bench builds it)"
adb_key_home "$W" || die "adb keygen failed"
gd_modules
modprobe usbmon
mount -t debugfs none /sys/kernel/debug 2>/dev/null
cfs_gadget -s PROBE padb 18d1 4ee7 ffs.adb || die "configfs"
mkdir -p $FFS
mount -t functionfs -o no_disconnect=1 adb $FFS || die "mount functionfs"
# up DIR: the worker and adb.so of build DIR serving the gadget.
up() {
	WPID=$(adb_worker "$1" $FFS "$W/ctl" "$W/worker.log" -o auth=on -o keys="$W/adb_keys") ||
		die "adb worker did not start"
	cfs_bind padb || die "bind"
	n=0
	while ! lsusb -d 18d1:4ee7 >/dev/null 2>&1 && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
}
down() {
	cfs_unbind padb
	pkill -KILL -f "gadgetd-worker.*$FFS"
	n=0
	while pgrep -f "gadgetd-worker.*$FFS" >/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
}
ticks() { sed 's/^.*) //' /proc/$1/stat | awk '{ print $12 + $13 }'; }
kids() { sed 's/^.*) //' /proc/$$/stat | awk '{ print $14 + $15 }'; }
hz=$(getconf CLK_TCK)
# push TAG ARGS...: one adbhost run of 3 pushes, timed and costed.
push() {
	tag=$1
	shift
	w0=$(ticks $WPID)
	k0=$(kids)
	t0=$(date +%s%N)
	out=$(timeout 300 "$B/adbhost" -k "$HOME/.android/adbkey" -P "$@" 18d1:4ee7 /dev/shm/probe.bin 64) ||
		die "adbhost $*"
	t1=$(date +%s%N)
	w1=$(ticks $WPID)
	k1=$(kids)
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/$WPID/status)
	sleep 1.5
	rss2=$(awk '/^VmRSS/ { print $2 }' /proc/$WPID/status)
	echo "PROBE $tag $out MB/s (best), wall $(( (t1 - t0) / 1000000 )) ms, worker cpu $(( (w1 - w0) * 1000 / hz )) ms, adbhost cpu $(( (k1 - k0) * 1000 / hz )) ms, worker rss after $rss KiB, 1.5 s later $rss2 KiB"
	rm -f /dev/shm/probe.bin
}
# PROBE_BUILDS="DIR:DIR..." (default: this build) take turns, PROBE_ROUNDS
# rounds (2); PROBE_TRACE=0 stops there (no usbmon, no perf).
for round in $(seq "${PROBE_ROUNDS:-2}"); do
	for b in $(echo "${PROBE_BUILDS:-$B}" | tr : " "); do
		bt=$(basename "$(dirname "$b")")
		up "$b"
		push delayed_ack-$bt-$round -r 3
		push classic-$bt-$round -r 3 -c
		down
	done
done
[ "${PROBE_TRACE:-1}" = 0 ] && { umount $FFS; cfs_teardown padb; exit 0; }
up "$B"
for mode in delayed_ack classic; do
	arg=
	[ $mode = classic ] && arg=-c
	cat /sys/kernel/debug/usb/usbmon/0u > $OUT/mon-$mode.txt &
	mp=$!
	sleep 0.3
	push usbmon-$mode -r 1 $arg
	sleep 0.3
	kill $mp
	wait $mp 2>/dev/null
	awk -v dir=o -v size=1048576 -f "$SRC/tests/bench/usbmon-bulk.awk" $OUT/mon-$mode.txt > $OUT/bulk-$mode.txt
	for k in dev host; do
		awk -v k=$k '$1 == k { print $2 }' $OUT/bulk-$mode.txt | sort -n |
			awk -v name=$mode-$k '{ v[NR] = $1; s += $1 }
			END { if (NR) printf "PROBE %s p50 %d us p90 %d us sum %.1f ms n %d\n", name, v[int((NR + 1) / 2)], v[int((NR * 9 + 9) / 10)], s / 1000, NR }'
	done
	grep span $OUT/bulk-$mode.txt | sed "s/^/PROBE $mode /"
	rm -f $OUT/mon-$mode.txt
	perf record -q -e cpu-clock -a -o /tmp/perf.data -- \
		timeout 120 "$B/adbhost" -k "$HOME/.android/adbkey" -P -r 3 $arg 18d1:4ee7 /dev/shm/probe.bin 64 >/dev/null
	perf report -i /tmp/perf.data --sort comm,dso,sym --stdio 2>/dev/null |
		grep -v '^#' | grep . | head -n 50 > $OUT/perf-$mode.txt
	perf report -i /tmp/perf.data --sort comm --stdio 2>/dev/null |
		grep -v '^#' | grep . | head -n 12 >> $OUT/perf-$mode.txt
	rm -f /dev/shm/probe.bin
done
down
umount $FFS
cfs_teardown padb

exit 0
