#!/bin/sh
# PTP download: gphoto2 --get-all-files of 200 small photos (EXIF
# thumbnails, nested folders; tests/loopback/ptp_photos.py) from the ptp
# plugin (hand-composed gadget, gadgetd-worker + ptp.so), against the
# libmtp-pattern bound (b-sourcesink.sh's sync16k: one synchronous 16 KiB
# transfer at a time from SourceSink) measured the same way for the same
# number of bytes, before and after. Prints
#   BENCH ptp_get_s / ptp_get_mbps: the whole gphoto2 run and its rate
#   BENCH ptp_list_s: gphoto2 --list-files alone (start, session, listing),
#     its second run (the first pays the first connection)
#   BENCH ptp_get_net_mbps: the rate less that fixed cost
#   BENCH ptp_near_sync16k_in_mbps: the bound (ratios.py compares)
#   BENCH ptp_bench_bytes / ptp_bench_files: what was moved
# PTP_BENCH_FILES sets the number of photos.
# Runs in the guest (see run-bench.sh); needs SRC and B.
. "$SRC/tests/loopback/lib.sh"
MTP_PLUGIN=ptp
. "$SRC/tests/loopback/mtp_lib.sh"
export LANG=C.UTF-8 HOME=/tmp/gphome
N=${PTP_BENCH_FILES:-200}
W=/dev/shm/ptpbench

now() { date +%s%N; }
mbps() { awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.2f", b / 1e6 / (ns / 1e9) }'; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }
# The bound moves the photos' bytes rounded up to whole 16 KiB transfers
# (SourceSink's requests are that long; a short last one overflows).
bound() {
	SS_ONLY_SYNC=1 SS_SYNC_BYTES=$(((BYTES + 16383) / 16384 * 16384)) SS_PREFIX=ptp_near_ sh "$SRC/tests/bench/b-sourcesink.sh" 2>&1 |
		grep '^BENCH ptp_near_sync16k_in\|FATAL'
}

gd_modules
mkdir -p $W/get /tmp/gphome /srv/ptpb
timeout 120 python3 "$SRC/tests/loopback/ptp_photos.py" tree /srv/ptpb "$N" || die "no photos made"
rm -rf /srv/ptpb/thumbs /srv/ptpb/new /srv/ptpb/DCIM/NOTHUMB
BYTES=$(find /srv/ptpb/DCIM -type f -exec cat {} + | wc -c)
echo "BENCH ptp_bench_files $N files"
echo "BENCH ptp_bench_bytes $BYTES bytes"

bound
mtp_up storage0_path=/srv/ptpb/DCIM storage0_description=Bench || die "ptp gadget did not come up"
# The fixed cost is timed warm, as the get that follows runs: the first
# gphoto2 run after the gadget came up also pays the first connection
# (camera detection, the session, the worker's first walk), and once took
# longer than the whole download after it, which made the net rate
# negative (issue 39).
timeout 300 gphoto2 --quiet --list-files > $W/list.txt 2>&1 || { tail -n 5 $W/list.txt; die "gphoto2 --list-files"; }
t0=$(now)
timeout 300 gphoto2 --quiet --list-files > $W/list.txt 2>&1 || { tail -n 5 $W/list.txt; die "gphoto2 --list-files"; }
t1=$(now)
(cd $W/get && timeout 600 gphoto2 --quiet --get-all-files) > $W/get.txt 2>&1 ||
	{ tail -n 5 $W/get.txt; die "gphoto2 --get-all-files"; }
t2=$(now)
[ "$(cat $W/get/* | wc -c)" = "$BYTES" ] || die "gphoto2 brought back $(cat $W/get/* | wc -c) bytes, not $BYTES"
mtp_down
bound
echo "BENCH ptp_list_s $(secs $((t1 - t0))) s"
echo "BENCH ptp_get_s $(secs $((t2 - t1))) s"
echo "BENCH ptp_get_mbps $(mbps "$BYTES" $((t2 - t1))) MB/s"
# The get lists too, then moves the bytes: a get no longer than the
# listing leaves no time for the bytes, and no rate that can be true.
[ $((t2 - t1)) -gt $((t1 - t0)) ] ||
	die "the get ($(secs $((t2 - t1))) s) took no longer than the listing ($(secs $((t1 - t0))) s): no net rate"
echo "BENCH ptp_get_net_mbps $(mbps "$BYTES" $((t2 - t1 - (t1 - t0)))) MB/s"
rm -rf $W
