# What a device that is never late reaches on this bed: the kernel's
# SourceSink function, whose requests are always queued in the kernel,
# driven by tests/bench/usbsync.c from the host side, one synchronous
# transfer at a time, with two patterns:
# - sync16k: libmtp's. mtp-getfile and mtp-sendfile move data one 16 KiB
#   transfer at a time, each written to or read from a file in between.
#   That bounds every MTP responder. 50 MB each way.
# - bulk1m: 1 MiB transfers (adb's largest payload), to /dev/null and from
#   /dev/zero, so the host does little besides moving the bytes: what the
#   bus carries. 64 MiB each way.
# - txn: libmtp's listing pattern, one MTP transaction after the other: a
#   16-byte command out, a 512-byte read (data), a 512-byte read
#   (response). The floor of one GetObjectInfo on this bed.
# - adb1m: Debian's adb 29 (tests/bench/usbsync.c says how): a 24-byte
#   header, 1 MiB of payload (the max payload adb 29 and the adb plugin
#   agree on, and the size of the plugin's pull WRTEs), then the wait for
#   the 24-byte OKAY; from and to a file in tmpfs, as b-adb.sh's adb push
#   and pull. The bound of any device under adb 29. 64 MiB each way.
# - adbhop1m: the same, with the bytes also passing through TCP over
#   the loopback between two processes, as between adb 29's client (the file
#   side) and its server (the USB side).
# Prints BENCH sync16k_{in,out}_mbps, bulk1m_{in,out}_mbps,
# adb1m_{in,out}_mbps, adbhop1m_{in,out}_mbps and mtp_txn_floor_ms.
# SS_ONLY_SYNC=1 measures sync16k only, SS_PREFIX=P names it P_sync16k_*
# (b-mtp.sh takes the bound so, right before and after its transfers);
# SS_ONLY_BULK=1 measures bulk1m only (b-adb.sh, the same way);
# SS_ONLY_ADBHOP=1 adbhop1m only (tests/loopback/probe-adb29push.sh); and
# SS_SYNC_BYTES moves that many bytes instead of 50 MB (b-ptp.sh: the size
# of its photos).
. "$SRC/tests/loopback/lib.sh"
F=$CFS/sourcesink/functions/SourceSink.ss
gd_modules
modprobe usb_f_ss_lb || die "no usb_f_ss_lb module"
[ -x "$B/usbsync" ] || die "$B/usbsync missing (make bench builds it)"
cleanup() {
	cfs_teardown sourcesink
	rm -f /dev/shm/sync16k.* /dev/shm/adb1m.*
}
trap cleanup EXIT
cfs_gadget -u -p sourcesink sourcesink 1d6b 0102 SourceSink.ss || die "configfs"
echo 2 > $F/pattern             # no data pattern to generate or check
[ -e $F/bulk_qlen ] && echo 8 > $F/bulk_qlen

# measure NAME BUFLEN BYTES CHUNK IN_FILE OUT_FILE [adb]: bind with the
# device's requests BUFLEN bytes long (settable only while unlinked), then
# move BYTES each way (with adb 29's pattern when adb is given).
measure() {
	echo "$2" > $F/bulk_buflen || die "bulk_buflen $2"
	cfs_link sourcesink SourceSink.ss || die "link"
	cfs_bind sourcesink || die "bind"
	wait_usb 1d6b:0102 20 || die "SourceSink gadget not seen"
	in=$(timeout 120 "$B/usbsync" 1d6b:0102 "${7:-}in" "$3" "$4" "$5") || die "usbsync in ($1)"
	out=$(timeout 120 "$B/usbsync" 1d6b:0102 "${7:-}out" "$3" "$4" "$6") || die "usbsync out ($1)"
	echo "BENCH ${SS_PREFIX:-}$1_in_mbps $in MB/s"
	echo "BENCH ${SS_PREFIX:-}$1_out_mbps $out MB/s"
	cfs_unbind sourcesink
	wait_no_usb 1d6b:0102 10 || die "SourceSink gadget did not go"
	cfs_unlink sourcesink SourceSink.ss
}
# measure_txn COUNT: COUNT transactions with 512-byte device requests.
measure_txn() {
	echo 512 > $F/bulk_buflen || die "bulk_buflen 512"
	cfs_link sourcesink SourceSink.ss || die "link"
	cfs_bind sourcesink || die "bind"
	wait_usb 1d6b:0102 20 || die "SourceSink gadget not seen"
	ms=$(timeout 120 "$B/usbsync" 1d6b:0102 txn "$1" 512 -) || die "usbsync txn"
	echo "BENCH mtp_txn_floor_ms $ms ms"
	cfs_unbind sourcesink
	wait_no_usb 1d6b:0102 10 || die "SourceSink gadget did not go"
	cfs_unlink sourcesink SourceSink.ss
}
if [ -n "${SS_ONLY_ADBHOP:-}" ]; then
	head -c 67108864 /dev/urandom > /dev/shm/adb1m.src
	measure adbhop1m 65536 67108864 1048576 /dev/shm/adb1m.in /dev/shm/adb1m.src adbhop
	exit 0
fi
if [ -n "${SS_ONLY_BULK:-}" ]; then
	measure bulk1m 65536 67108864 1048576 /dev/null /dev/zero
	exit 0
fi
[ -n "${SS_ONLY_SYNC:-}" ] || measure_txn 2000
SYNC_BYTES=${SS_SYNC_BYTES:-52428800}
head -c $SYNC_BYTES /dev/urandom > /dev/shm/sync16k.src
measure sync16k 16384 $SYNC_BYTES 16384 /dev/shm/sync16k.in /dev/shm/sync16k.src
if [ -z "${SS_ONLY_SYNC:-}" ]; then
	measure bulk1m 65536 67108864 1048576 /dev/null /dev/zero
	rm -f /dev/shm/sync16k.*
	head -c 67108864 /dev/urandom > /dev/shm/adb1m.src
	measure adb1m 65536 67108864 1048576 /dev/shm/adb1m.in /dev/shm/adb1m.src adb
	measure adbhop1m 65536 67108864 1048576 /dev/shm/adb1m.in /dev/shm/adb1m.src adbhop
fi
