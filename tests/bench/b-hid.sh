# HID typing: keystrokes per second through gadgetd's hid plugin
# (FunctionFS, `gadgetctl hid type`) and, in the same VM, through the
# kernel's hid function (/dev/hidg0 written report by report, the way
# KVM projects drive it; the bound here: dummy_hcd takes interrupt
# reports faster than the descriptors' 1 ms bInterval, so the bus gives
# none of its own), HID_BENCH_KEYS keystrokes (2 000) each:
#   hid_ffs_keys_s: `gadgetctl hid type` of them, the whole command;
#   hid_ffs_cmd_ms: `gadgetctl hid type a`, the command's fixed cost
#     (its start, the control socket, one key; median of 5);
#   hid_ffs_net_keys_s: the keystrokes after the first over the whole
#     command less that fixed cost, which ratios.py sets against
#   hid_kernel_keys_s: the same keystrokes written to /dev/hidg0 in a
#     loop, timed inside it. Also a key's round trip through
# gadgetd (`gadgetctl hid key a`: command, press and release taken by
# the host, reply) next to `gadgetctl hid leds` (the same path, no USB).
# The host side is the guest's own usbhid; the console's keyboard handler
# keeps the device open, so the host polls it. Prints BENCH lines.
. "$SRC/tests/loopback/lib.sh"
N=${HID_BENCH_KEYS:-2000}
KBD_DESC=05010906a101050719e029e715002501750195088102950175088101950575010508190129059102950175039101950675081500268b0005071900298b8100c0

# up_ms: the uptime in ms into UP_MS, with no process started (a
# process costs 30 to 65 ms under TCG: docs/testing.md); 10 ms steps,
# from lib.sh's lib_uptime_cs.
up_ms() {
	local lib_cs
	lib_uptime_cs
	UP_MS=$((lib_cs * 10))
}
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

gd_install
timeout 30 modprobe -a hid_generic evdev usb_f_hid || die "modprobe hid_generic evdev usb_f_hid"
gd_start kvm
check "host sees the kvm gadget" wait_usb 1d6b:0120

TXT=$(printf 'abcdefghij%.0s' $(seq $((N / 10))))
up_ms; t0=$UP_MS
reply=$(timeout 60 gadgetctl hid type "$TXT" 2>&1)
up_ms; t1=$UP_MS
echo "gadgetctl hid type: $reply"
n=$(echo "$reply" | sed -n 's/^typed \([0-9]*\).*/\1/p')
typed() { [ -n "$n" ] && [ "$n" -gt 0 ]; }
check "gadgetctl hid type typed something" typed
echo "BENCH hid_ffs_keys_s $(awk -v n="$n" -v ms=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1000 / ms }') keys/s"
: > cmd.txt
for i in 1 2 3 4 5; do
	up_ms; t2=$UP_MS
	timeout 10 gadgetctl hid type a > /dev/null || die "gadgetctl hid type a failed"
	up_ms; echo $((UP_MS - t2)) >> cmd.txt
done
cmd_ms=$(med < cmd.txt)
echo "BENCH hid_ffs_cmd_ms $cmd_ms ms"
[ $((t1 - t0)) -gt "$cmd_ms" ] || die "typing $n keys took $((t1 - t0)) ms, one key's command $cmd_ms"
echo "BENCH hid_ffs_net_keys_s $(awk -v n="$n" -v ms=$((t1 - t0 - cmd_ms)) 'BEGIN { printf "%.0f", (n - 1) * 1000 / ms }') keys/s"

: > key.txt
: > leds.txt
for i in 1 2 3 4 5 6 7 8 9 10; do
	up_ms; t0=$UP_MS; timeout 10 gadgetctl hid key a >/dev/null; up_ms; t1=$UP_MS
	echo $((t1 - t0)) >> key.txt
	up_ms; t0=$UP_MS; timeout 10 gadgetctl hid leds >/dev/null; up_ms; t1=$UP_MS
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
