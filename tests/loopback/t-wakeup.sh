#!/bin/sh
# Remote wakeup (issue 42): kvm.conf's keyboard alone (set "hid", with
# remote_wakeup = true) as the same kernel's usbhid sees it. The host
# side turns on runtime autosuspend for the device (power/control = auto,
# autosuspend_delay_ms, power/wakeup = enabled). Linux enables remote
# wakeup for a runtime suspend only when a driver needs it (usbhid, while
# the keyboard is open: systemd-logind holds it), whatever power/wakeup
# says (that one governs system sleep: docs/kernel.md). So the host that
# did not allow it is the one with usbhid unbound from the keyboard: once
# suspended (power/runtime_status), `gadgetctl wakeup` and `gadgetctl hid
# type` are refused, saying why, and the bus stays suspended. With usbhid
# bound and evdev reading, `gadgetctl hid type` wakes the host (the port
# resumes: power/runtime_active_time grows) and the keys arrive, decoded
# by evdev, once each; `gadgetctl wakeup` and D-Bus Wakeup wake it too.
# Status and D-Bus (Bus, RemoteWakeup) show the bus suspended and wakeup
# offered; a set without remote_wakeup refuses, and so does an awake bus.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/hid_lib.sh"

# says FILE TEXT: FILE (a command's output) contains TEXT.
says() {
	grep -F -q -- "$2" "$1" || { echo "want \"$2\" in:"; cat "$1"; return 1; }
}

gd_install
timeout 30 modprobe -a hid_generic evdev || die "modprobe hid_generic evdev"
gd_start kvm
gd_switch hid
check "host sees 1d6b:0122" wait_usb 1d6b:0122
DEV=$(usb_dir 1d6b:0122) || die "no sysfs folder for 1d6b:0122"
say "device $DEV"
check "the configuration announces remote wakeup (bmAttributes a0)" \
	[ "$(cat "$DEV/bmAttributes")" = "a0" ]
check "status: wakeup configured" gd_status '.remote_wakeup == true'
check_exit 1 "wakeup refused while the bus is awake" \
	sh -c 'timeout 10 gadgetctl wakeup >"$0" 2>&1' "$OUT/awake.txt"
check "... saying the bus is not suspended" says "$OUT/awake.txt" "the bus is not suspended"

say "the host suspends the device without remote wakeup (no driver wants it)"
IF=$(basename "$DEV"):1.0
echo enabled > "$DEV/power/wakeup"
echo 500 > "$DEV/power/autosuspend_delay_ms"
echo auto > "$DEV/power/control"
echo "$IF" > /sys/bus/usb/drivers/usbhid/unbind
check "the host suspends the device (runtime_status)" rt_status suspended
check "status: the bus is suspended" gd_status '.bus == "suspended"'
check "D-Bus: Bus is \"suspended\", RemoteWakeup true" sh -c '
	[ "$(busctl get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager Bus)" = "s \"suspended\"" ] &&
	[ "$(busctl get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager RemoteWakeup)" = "b true" ]'
check_exit 1 "gadgetctl wakeup fails: the host did not enable remote wakeup" \
	sh -c 'timeout 10 gadgetctl wakeup >"$0" 2>&1' "$OUT/refused.txt"
check "... saying so" says "$OUT/refused.txt" "it has not enabled remote wakeup"
check_exit 1 "gadgetctl hid type fails too" \
	sh -c 'timeout 10 gadgetctl hid type abc >"$0" 2>&1' "$OUT/refused-type.txt"
check "... saying nothing was sent" says "$OUT/refused-type.txt" \
	"typed 0 of 3 characters: the host suspended the bus and did not resume it"
check "the device is still suspended" [ "$(cat "$DEV/power/runtime_status")" = suspended ]
echo "$IF" > /sys/bus/usb/drivers/usbhid/bind

say "wakeup allowed: typing wakes the host"
rm -f "$OUT/text.prog"
check "the host listens" host_start typed text us "hello" "$OUT/text.prog"
check "the host suspends the open device" rt_status suspended
ACT0=$(cat "$DEV/power/runtime_active_time")
check "gadgetctl hid type hello, the bus suspended" timeout 10 gadgetctl hid type hello
check "the host decodes hello, once" host_done typed
check "the port resumed (runtime_active_time grew)" \
	[ "$(cat "$DEV/power/runtime_active_time")" -gt "$ACT0" ]

say "gadgetctl wakeup, allowed"
check "the host suspends the device again" rt_status suspended
check "gadgetctl wakeup" sh -c 'timeout 10 gadgetctl wakeup >"$0" 2>&1' "$OUT/woken.txt"
check "... saying the host resumed the bus" says "$OUT/woken.txt" "the host resumed the bus"
check "the host suspends the device once more" rt_status suspended
check "D-Bus Wakeup wakes it" sh -c 'timeout 10 busctl call org.gadgetd1 /org/gadgetd1 \
	org.gadgetd1.Manager Wakeup >"$0" 2>&1' "$OUT/dbus-woken.txt"
check "... replying the host resumed the bus" says "$OUT/dbus-woken.txt" "the host resumed the bus"

say "a set without remote_wakeup"
echo on > "$DEV/power/control"
gd_switch hid,mouse
check "host sees 1d6b:0120" wait_usb 1d6b:0120
DEV=$(usb_dir 1d6b:0120) || die "no sysfs folder for 1d6b:0120"
check "no remote wakeup in bmAttributes (80)" [ "$(cat "$DEV/bmAttributes")" = "80" ]
check_exit 1 "gadgetctl wakeup refused" \
	sh -c 'timeout 10 gadgetctl wakeup >"$0" 2>&1' "$OUT/nobit.txt"
check "... saying the configuration does not offer it" \
	says "$OUT/nobit.txt" "does not offer remote wakeup"
finish
