#!/bin/sh
# Where libmtp's whole-device listing (mtp-folders: one GetObjectPropList
# of every object) spends its time on gadgetd's mtp plugin: mtp-folders on
# an empty storage and on PROBE_FILES files (2000 by default), each under
# usbmon (/mnt/out/mon-{empty,full}*.txt: the device's time to the list's
# first byte is the gap between the 0x9805 command and its first data
# URB), then plain, then under `strace -c -f` (strace-folders.txt); a
# `perf record -g` of the worker over five more (perf-worker.txt); and
# the walk of mtp-files with object_prop_lists = false, timed, profiled
# (perf-files.txt) and counted (strace-files.txt: system calls an object).
# Outside make check (like probe-mtplist.sh); run it with
#   tests/loopback/run-suite.sh /work/main/build/vm build/loopback probe-folders.sh
# and read PROBE lines in build/loopback/probe-folders/console.log.
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
N=${PROBE_FILES:-2000}
S=/srv/mtpprobe
OUT=/mnt/out
export LANG=C.UTF-8
now() { date +%s%N; }
ms() { echo $((($2 - $1) / 1000000)); }

: > "$MTP_WLOG"
gd_modules
modprobe usbmon
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p $S
# mon NAME CMD...: CMD with usbmon recording the bus to mon-NAME.txt.
mon() {
	name=$1
	shift
	cat /sys/kernel/debug/usb/usbmon/0u > $OUT/mon-$name.txt &
	mp=$!
	sleep 0.5
	t0=$(now)
	"$@" > $OUT/out-$name.txt 2>&1
	t1=$(now)
	sleep 0.3
	kill $mp
	wait $mp 2>/dev/null
	echo "PROBE $name $(ms $t0 $t1) ms"
}
# walk_ms CMD...: CMD's wall time, its output dropped.
walk_ms() {
	t0=$(now)
	"$@" > /dev/null 2>&1
	t1=$(now)
	ms $t0 $t1
}

mtp_up storage0_path=$S storage0_description=Probe || die "mtp gadget did not come up"
mon empty mtp-folders
mon empty2 mtp-folders
mtp_down
mkdir -p $S/many/sub
(cd $S/many && i=0 && while [ $i -lt "$N" ]; do echo $i > f$i.txt; i=$((i + 1)); done)
mtp_up storage0_path=$S storage0_description=Probe || die "mtp gadget did not come up"
mon full mtp-folders
mon full2 mtp-folders
for i in 1 2 3; do echo "PROBE plain $(walk_ms mtp-folders) ms"; done
echo "PROBE strace $(walk_ms strace -f -c -o $OUT/strace-folders.txt mtp-folders) ms"
perf record -q -e cpu-clock -F 20000 -g -p "$MTP_WPID" -o /tmp/perf.data -- \
	sh -c 'for i in 1 2 3 4 5; do mtp-folders >/dev/null 2>&1; done'
perf report -i /tmp/perf.data --no-children --stdio --sort sym 2>/dev/null |
	grep "%" | head -n 60 > $OUT/perf-worker.txt
mtp_down

mtp_up storage0_path=$S storage0_description=Probe object_prop_lists=false ||
	die "mtp gadget did not come up"
mtp-files > /dev/null 2>&1
echo "PROBE npl-files $(walk_ms mtp-files) ms"
perf record -q -e cpu-clock -F 20000 -g -p "$MTP_WPID" -o /tmp/perf2.data -- \
	sh -c 'mtp-files >/dev/null 2>&1'
perf report -i /tmp/perf2.data --no-children --stdio --sort sym 2>/dev/null |
	grep "%" | head -n 60 > $OUT/perf-files.txt
strace -c -f -p "$MTP_WPID" -o $OUT/strace-files.txt &
sp=$!
sleep 1
mtp-files > /dev/null 2>&1
kill -INT $sp
wait $sp
mtp_down
exit 0
