# The bound libmtp's transfer pattern puts on any MTP responder on this bed.
# mtp-getfile and mtp-sendfile move data one synchronous 16 KiB transfer at
# a time, each written to or read from a file in between. usbsync does
# exactly that against the kernel's SourceSink function, a device that is
# never late (its requests are always queued in the kernel). Prints
#   BENCH sync16k_in_mbps / sync16k_out_mbps (50 MB each way).
. "$SRC/tests/loopback/lib.sh"
SIZE=52428800
G=/sys/kernel/config/usb_gadget/sync16k
F=$G/functions/SourceSink.ss
gd_modules
modprobe usb_f_ss_lb || die "no usb_f_ss_lb module"
[ -x "$B/usbsync" ] || die "$B/usbsync missing (make bench builds it)"
cleanup() {
	echo "" > $G/UDC 2>/dev/null
	rm -f $G/configs/c.1/SourceSink.ss
	rmdir $G/configs/c.1 $F $G/strings/0x409 $G 2>/dev/null
	rm -f /dev/shm/sync16k.*
}
trap cleanup EXIT
mkdir -p $G/strings/0x409 $G/configs/c.1 $F || die "configfs"
echo 0x1d6b > $G/idVendor
echo 0x0102 > $G/idProduct
echo sync16k > $G/strings/0x409/product
echo 2 > $F/pattern             # no data pattern to generate or check
echo 16384 > $F/bulk_buflen
[ -e $F/bulk_qlen ] && echo 8 > $F/bulk_qlen
ln -s $F $G/configs/c.1/
echo dummy_udc.0 > $G/UDC || die "bind"
wait_usb 1d6b:0102 20 || die "SourceSink gadget not seen"
head -c $SIZE /dev/urandom > /dev/shm/sync16k.src
in=$(timeout 120 "$B/usbsync" 1d6b:0102 in $SIZE 16384 /dev/shm/sync16k.in) || die "usbsync in"
out=$(timeout 120 "$B/usbsync" 1d6b:0102 out $SIZE 16384 /dev/shm/sync16k.src) || die "usbsync out"
echo "BENCH sync16k_in_mbps $in MB/s"
echo "BENCH sync16k_out_mbps $out MB/s"
