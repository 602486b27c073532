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
# Prints BENCH sync16k_{in,out}_mbps and bulk1m_{in,out}_mbps.
# SS_ONLY_SYNC=1 measures sync16k only, SS_PREFIX=P names it P_sync16k_*
# (b-mtp.sh takes the bound so, right before and after its transfers).
. "$SRC/tests/loopback/lib.sh"
F=$CFS/sourcesink/functions/SourceSink.ss
gd_modules
modprobe usb_f_ss_lb || die "no usb_f_ss_lb module"
[ -x "$B/usbsync" ] || die "$B/usbsync missing (make bench builds it)"
cleanup() {
	cfs_teardown sourcesink
	rm -f /dev/shm/sync16k.*
}
trap cleanup EXIT
cfs_gadget -u -p sourcesink sourcesink 1d6b 0102 SourceSink.ss || die "configfs"
echo 2 > $F/pattern             # no data pattern to generate or check
[ -e $F/bulk_qlen ] && echo 8 > $F/bulk_qlen

# measure NAME BUFLEN BYTES CHUNK IN_FILE OUT_FILE: bind with the device's
# requests BUFLEN bytes long (settable only while unlinked), then move
# BYTES each way.
measure() {
	echo "$2" > $F/bulk_buflen || die "bulk_buflen $2"
	cfs_link sourcesink SourceSink.ss || die "link"
	cfs_bind sourcesink || die "bind"
	wait_usb 1d6b:0102 20 || die "SourceSink gadget not seen"
	in=$(timeout 120 "$B/usbsync" 1d6b:0102 in "$3" "$4" "$5") || die "usbsync in ($1)"
	out=$(timeout 120 "$B/usbsync" 1d6b:0102 out "$3" "$4" "$6") || die "usbsync out ($1)"
	echo "BENCH ${SS_PREFIX:-}$1_in_mbps $in MB/s"
	echo "BENCH ${SS_PREFIX:-}$1_out_mbps $out MB/s"
	cfs_unbind sourcesink
	wait_no_usb 1d6b:0102 10 || die "SourceSink gadget did not go"
	cfs_unlink sourcesink SourceSink.ss
}
head -c 52428800 /dev/urandom > /dev/shm/sync16k.src
measure sync16k 16384 52428800 16384 /dev/shm/sync16k.in /dev/shm/sync16k.src
[ -n "${SS_ONLY_SYNC:-}" ] || measure bulk1m 65536 67108864 1048576 /dev/null /dev/zero
