# HID typing: keystrokes per second through gadgetd's hid plugin
# (FunctionFS, `gadgetctl hid type`) and, in the same VM, through the
# kernel's hid function (/dev/hidg0 written report by report, the way
# KVM projects drive it), both against the bound of one report per
# host poll: bInterval 1 ms at high speed, two reports (press, release)
# a keystroke, so 500 keystrokes/s. Also a key's round trip through
# gadgetd (`gadgetctl hid key a`: command, press and release taken by
# the host, reply) next to `gadgetctl hid leds` (the same path, no USB).
# The host side is the guest's own usbhid; the console's keyboard handler
# keeps the device open, so the host polls it. Prints BENCH lines.
. "$SRC/tests/loopback/lib.sh"
N=400
KBD_DESC=05010906a101050719e029e715002501750195088102950175088101950575010508190129059102950175039101950675081500268b0005071900298b8100c0

now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

gd_install
timeout 30 modprobe -a hid_generic evdev usb_f_hid || die "modprobe hid_generic evdev usb_f_hid"
gd_start kvm
check "host sees the kvm gadget" wait_usb 1d6b:0120

TXT=$(printf 'abcdefghij%.0s' $(seq $((N / 10))))
t0=$(now_ms)
reply=$(timeout 20 gadgetctl hid type "$TXT" 2>&1)
t1=$(now_ms)
echo "gadgetctl hid type: $reply"
n=$(echo "$reply" | sed -n 's/^typed \([0-9]*\).*/\1/p')
typed() { [ -n "$n" ] && [ "$n" -gt 0 ]; }
check "gadgetctl hid type typed something" typed
echo "BENCH hid_ffs_keys_s $(awk -v n="$n" -v ms=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1000 / ms }') keys/s"
echo "BENCH hid_bound_keys_s 500 keys/s"

: > key.txt
: > leds.txt
for i in 1 2 3 4 5 6 7 8 9 10; do
	t0=$(now_ms); timeout 10 gadgetctl hid key a >/dev/null; t1=$(now_ms)
	echo $((t1 - t0)) >> key.txt
	t0=$(now_ms); timeout 10 gadgetctl hid leds >/dev/null; t1=$(now_ms)
	echo $((t1 - t0)) >> leds.txt
done
echo "BENCH hid_ffs_key_ms_median $(med < key.txt) ms"
echo "BENCH hid_leds_ms_median $(med < leds.txt) ms"
gd_stop

# The kernel's function, composed by hand with the same keyboard.
compose() {
	cfs_gadget -u -m gadgetd -p "kernel hid" g1 1d6b 0113 hid.usb0 || return 1
	local f=$CFS/g1/functions/hid.usb0
	echo 1 > $f/protocol && echo 1 > $f/subclass && echo 8 > $f/report_length &&
		python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('$KBD_DESC'))" > $f/report_desc &&
		cfs_link g1 hid.usb0 && cfs_bind g1
}
check "compose the kernel hid gadget" compose
check "host sees 1d6b:0113" wait_usb 1d6b:0113
# Each write waits until the last report was taken (f_hid's write_pending).
rate=$(timeout 60 python3 -c "
import os, time
fd = os.open('/dev/hidg0', os.O_WRONLY)
press, release = bytes([0, 0, 4, 0, 0, 0, 0, 0]), bytes(8)
os.write(fd, release)
t = time.monotonic()
for i in range($N):
    os.write(fd, press)
    os.write(fd, release)
os.write(fd, release)  # waits for the last release
print('%.0f' % ($N / (time.monotonic() - t)))
")
check "the kernel function took $N keystrokes" [ -n "$rate" ]
echo "BENCH hid_kernel_keys_s $rate keys/s"
cfs_teardown g1
finish
