#!/bin/sh
# bed: light - a probe: it composes the adb gadget by hand and swaps builds
# Where adb 29's push time goes, against its bound: PROBE_ROUNDS rounds
# (2), each the adb-pattern bound with adb's TCP hop (b-sourcesink.sh's
# adbhop1m, SS_ONLY_ADBHOP=1), then every build of PROBE_BUILDS
# ("DIR:DIR...", build directories; default this one) in turn serving the
# adb gadget for 3 pushes of 64 MiB by Debian's adb 29 (adb's own rate,
# each, and the worker's CPU) and 2 pushes of a tree of 200 files of 4
# KiB (the whole command, each). Then usbmon over one more push with each
# build, and over the bound, split into the phases of a WRTE by
# tests/bench/usbmon-adbwrte.awk (PROBE lines). Outside make check, like
# probe-adbpush.sh:
#   tests/loopback/run-suite.sh build/vm build/probe probe-adb29push.sh
# after `make bench` has built build/usbsync.
. "$SRC/tests/loopback/lib.sh"

W=/run/probe-adb29
FFS=/run/ffs-padb29
[ -x "$B/usbsync" ] || die "$B/usbsync missing (make bench builds it)"
adb_key_home "$W" || die "adb keygen failed"
gd_modules
modprobe usbmon
mount -t debugfs none /sys/kernel/debug 2>/dev/null
cfs_gadget -s PROBE29 padb29 18d1 4ee7 ffs.adb || die "configfs"
mkdir -p $FFS
mount -t functionfs -o no_disconnect=1 adb $FFS || die "mount functionfs"
head -c 67108864 /dev/urandom > /dev/shm/probe29.src
mkdir -p /dev/shm/probe29.tree
for i in $(seq 200); do
	head -c 4096 /dev/urandom > /dev/shm/probe29.tree/f$i
done
up() {
	WPID=$(adb_worker "$1" $FFS "$W/ctl" "$W/worker.log" -o auth=on -o keys="$W/adb_keys") ||
		die "adb worker did not start"
	cfs_bind padb29 || die "bind"
	timeout 30 adb start-server >/dev/null 2>&1
	timeout 30 adb wait-for-device || die "adb does not see the device"
}
down() {
	timeout 10 adb kill-server >/dev/null 2>&1
	cfs_unbind padb29
	pkill -KILL -f "gadgetd-worker.*$FFS"
	n=0
	while pgrep -f "gadgetd-worker.*$FFS" >/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	wait_no_usb 18d1:4ee7 10 || die "the adb gadget did not go"
}
ticks() { sed 's/^.*) //' /proc/$1/stat | awk '{ print $12 + $13 }'; }
hz=$(getconf CLK_TCK)
push() {
	timeout 120 adb push /dev/shm/probe29.src /dev/shm/probe29.dev >$W/push.txt 2>&1 || die "push: $(cat $W/push.txt)"
	sed -n 's/.*(67108864 bytes in \([0-9.]*\)s).*/\1/p' $W/push.txt |
		awk '{ printf "%.1f", 67.108864 / $1 }'
	rm -f /dev/shm/probe29.dev
}
# tree: the wall time of pushing 200 files of 4 KiB (b-adbd.sh's tree).
tree() {
	t=$(date +%s%N)
	timeout 120 adb push /dev/shm/probe29.tree /dev/shm/probe29.tdev >$W/push.txt 2>&1 || die "tree push: $(cat $W/push.txt)"
	echo $((($(date +%s%N) - t) / 1000000))
	rm -rf /dev/shm/probe29.tdev
}
phases() {
	awk -v psize=1048576 -f "$SRC/tests/bench/usbmon-adbwrte.awk" "$2" | sed "s/^/PROBE phases $1 /"
	rm -f "$2"
}
builds=$(echo "${PROBE_BUILDS:-$B}" | tr : " ")
for round in $(seq "${PROBE_ROUNDS:-2}"); do
	SS_ONLY_ADBHOP=1 sh "$SRC/tests/bench/b-sourcesink.sh" 2>&1 | grep '^BENCH adbhop1m_out\|FATAL' |
		sed "s/^BENCH /PROBE bound-$round /"
	for b in $builds; do
		bt=$(basename "$(dirname "$b")")
		up "$b"
		w0=$(ticks $WPID)
		r="$(push) $(push) $(push)"
		w1=$(ticks $WPID)
		echo "PROBE push-$bt-$round $r MB/s, worker cpu $(( (w1 - w0) * 1000 / hz )) ms, tree push $(tree) $(tree) ms"
		down
	done
done
for b in $builds; do
	bt=$(basename "$(dirname "$b")")
	up "$b"
	cat /sys/kernel/debug/usb/usbmon/0u > $W/mon.txt &
	mp=$!
	sleep 0.3
	echo "PROBE usbmon-push-$bt $(push) MB/s"
	sleep 0.3
	kill $mp
	wait $mp 2>/dev/null
	phases "$bt" $W/mon.txt
	down
done
cat /sys/kernel/debug/usb/usbmon/0u > $W/mon.txt &
mp=$!
sleep 0.3
SS_ONLY_ADBHOP=1 sh "$SRC/tests/bench/b-sourcesink.sh" 2>&1 | grep '^BENCH adbhop1m_out\|FATAL' |
	sed "s/^BENCH /PROBE usbmon-bound /"
kill $mp
wait $mp 2>/dev/null
phases bound $W/mon.txt
umount $FFS
cfs_teardown padb29
rm -rf /dev/shm/probe29.*
exit 0
