#!/bin/sh
# Local keyboards and mice forwarded to the host (issue 42, forward =
# "input"): a profile of this test's own with a forwarding keyboard (kbd)
# and mouse (ptr), whose forward_match names the test's uinput devices and
# also takes every USB device (bus=usb), so that the gadget's own host
# side (usbhid below dummy_hcd, on this same kernel) would be forwarded
# if gadgetd did not leave it alone. On the board side, input_board.py
# makes uinput devices; on the host side, hid_host.py reads the gadget's
# keyboard and mouse through evdev. Checked: the keyboard and mouse
# gadgetd forwards are grabbed (a second EVIOCGRAB gets EBUSY, a second
# reader sees none of the keys); typed text and mouse motion, a click
# and the wheel arrive decoded by the host's evdev; status shows them;
# a device that matches no rule, and the gadget's own host side, are
# left alone; the hotkey releases the devices (a second reader gets the
# keys, a grab succeeds) and `gadgetctl kbd forward take` takes them
# again; a keyboard plugged once the set is up is forwarded (its text
# arrives), and dropped once unplugged; a key typed on the board while
# the host has autosuspended the device wakes it (remote wakeup) and
# arrives, once; a switch to a set without
# forwarding releases them, and so do `gadgetctl off` and `systemctl stop
# gadgetd`; a bad forward_match is refused with its line.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/hid_lib.sh"

# board WANT CMD...: input_board.py runs CMD and answers WANT, a shell
# pattern (10 s).
BN=0
board() {
	local want=$1 n=100 got
	shift
	BN=$((BN + 1))
	echo "$*" >&3
	while [ ! -e "$ACK/$BN" ] && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	got=$(cat "$ACK/$BN" 2>/dev/null)
	case $got in
	$want) return 0 ;;
	esac
	echo "board $*: \"$got\", want \"$want\""
	return 1
}

# status_is JQ [SECS]: gd_status JQ holds within SECS (5).
status_is() {
	local n=$((${2:-5} * 10))
	while [ $n -gt 0 ]; do
		gd_status "$1" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "status: want $1:"
	gd_status '[.plugins[] | {name, status}]'
	return 1
}

# no_loop: gadgetd forwarded no device of the gadget's own host side
# (named "gadgetd gadgetd input" by usbhid).
no_loop() {
	! gd_log | grep -q "input: .*gadgetd gadgetd input.* forwarded"
}

pointing() {
	board ok move ptr 10 -5 && board ok click ptr && board ok wheel ptr 1
}

# typed_on_board: abc typed on the released keyboard reaches the board's
# second reader (three presses, three releases).
typed_on_board() {
	board ok type kbd abc && board seen=6 seen kbd
}

# forwards_since N: gadgetd's log still says "forwarded to" N times.
forwards_since() {
	local n
	n=$(gd_log | grep -c "input: .* forwarded to ")
	[ "$n" = "$1" ] || { echo "forwarded $n times, $1 before"; return 1; }
}

gd_install
timeout 30 modprobe -a uinput hid_generic evdev || die "modprobe uinput hid_generic evdev"
cat > /etc/gadgetd/profiles/input.conf <<'CONF'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "gadgetd input";
             serial = "GADGETDIN01"; };
};
functions: {
  kbd: { type = "ffs"; plugin = "hid";
         options: { kind = "keyboard"; forward = "input";
                    forward_match = "name=board-test keyboard*; bus=usb"; }; };
  ptr: { type = "ffs"; plugin = "hid";
         options: { kind = "mouse"; forward = "input";
                    forward_match = "name=board-test mouse*; bus=usb"; }; };
  plain: { type = "ffs"; plugin = "hid"; options: { kind = "keyboard"; }; };
};
sets = (
  { functions = [ "kbd", "ptr" ]; product_id = 0x0130; remote_wakeup = true; },
  { functions = [ "plain" ]; product_id = 0x0131; }
);
default = "kbd,ptr";
CONF
cp /etc/gadgetd/profiles/input.conf "$OUT/bad.conf"
sed -i 's/name=board-test mouse\*; bus=usb/name=x; nmae=y/' "$OUT/bad.conf"
check_exit 5 "a bad forward_match is refused" \
	sh -c 'timeout 10 gadgetctl check "$0" >"$1" 2>&1' "$OUT/bad.conf" "$OUT/bad.txt"
check "... naming its line and the rule" grep -q \
	'bad.conf:12: functions.ptr.options.forward_match: rule 2: unknown field "nmae"' "$OUT/bad.txt"

# The board's devices exist before the set is up; kbd2 comes later.
# (A FIFO cannot be made on $OUT, a 9p folder.)
ACK=/run/t-input
mkdir -p "$ACK"
mkfifo "$ACK/fifo" || die "mkfifo $ACK/fifo"
timeout 300 $PY "$T/input_board.py" "$ACK/fifo" "$ACK" >"$OUT/board.out" 2>&1 &
BPID=$!
exec 3<>"$ACK/fifo"
EV='/dev/input/event*'
check "a uinput keyboard on the board" board "$EV" create kbd keyboard board-test keyboard
check "a uinput mouse on the board" board "$EV" create ptr mouse board-test mouse
check "a keyboard no rule names" board "$EV" create other keyboard other keyboard

gd_start input
check "host sees 1d6b:0130" wait_usb 1d6b:0130
check "status: kbd forwards the keyboard, grabbed" status_is \
	'(plugin("kbd").status.forward == "grabbed") and
	 (plugin("kbd").status.forward_devices | test("^event[0-9]+ board-test keyboard$"))'
check "status: ptr forwards the mouse, grabbed" status_is \
	'(plugin("ptr").status.forward == "grabbed") and
	 (plugin("ptr").status.forward_devices | test("^event[0-9]+ board-test mouse$"))'
check "the keyboard is grabbed: a second EVIOCGRAB fails (EBUSY)" board grab=EBUSY watch kbd
check "so is the mouse" board grab=EBUSY watch ptr
check "the keyboard no rule names is left to the board" board grab=ok watch other
check "the gadget's own host side is not forwarded (the loop)" no_loop

say "typing and pointing on the board, read on the host"
check "the host reads the gadget's keyboard" host_start typed text us "hello world" "$OUT/text.prog"
check "type hello world on the board's keyboard" board ok type kbd hello world
check "the host decodes hello world" host_done typed
check "... and the board's second reader saw none of it" board seen=0 seen kbd
check "the host reads the gadget's mouse" host_start ptrs ptr mouse 5
check "move by 10,-5, click, a wheel step on the board's mouse" pointing
check "the host's evdev decodes the same" host_done ptrs
check "... exactly" same "$OUT/ptrs.out" "EV_REL 0 10\nEV_REL 1 -5\nEV_KEY 272 1\nEV_KEY 272 0\nEV_REL 8 1"

say "the hotkey releases the devices to the board, gadgetctl takes them"
check "Ctrl+Alt+ScrollLock on the board's keyboard" board ok hotkey kbd
check "status: released" status_is \
	'plugin("kbd").status.forward == "released" and plugin("ptr").status.forward == "released"'
check "the keyboard is the board's: a grab succeeds" board grab=ok watch kbd
check "... and a second reader gets its keys" typed_on_board
check "the mouse too" board grab=ok watch ptr
check "gadgetctl kbd forward take" timeout 10 gadgetctl kbd forward take
check "status: grabbed again" status_is \
	'plugin("kbd").status.forward == "grabbed" and plugin("ptr").status.forward == "grabbed"'
check "the keyboard is grabbed again" board grab=EBUSY watch kbd

say "a keyboard plugged in while the set is up, then unplugged"
check "a second uinput keyboard" board "$EV" create kbd2 keyboard board-test keyboard 2
check "status: forwarded" status_is \
	'plugin("kbd").status.forward_devices | test("board-test keyboard 2")'
check "it is grabbed" board grab=EBUSY watch kbd2
check "the host reads the gadget's keyboard" host_start typed2 text us "xyz" "$OUT/text2.prog"
check "type xyz on it" board ok type kbd2 xyz
check "the host decodes xyz" host_done typed2
check "unplug it" board ok destroy kbd2
check "status: dropped" status_is \
	'plugin("kbd").status.forward_devices | test("board-test keyboard 2") | not'
check "gadgetd says it went" gd_log_grep "input: event[0-9]* board-test keyboard 2 released to the board (it went)"

say "a key on the board wakes a host that suspended the device"
DEV=$(usb_dir 1d6b:0130) || die "no sysfs folder for 1d6b:0130"
# The host keeps every input device of the gadget open, as a desktop
# does: usbhid polls an interface only while its evdev node is open, and
# a report left in flight on one nobody reads (the mouse's release-all
# when the hotkey released the devices, after its reader had ended) made
# gadgetd wake the host at each autosuspend, 48 times, and the keys were
# lost (seen once with two VMs at once, 2026-12-07).
HOLD=
for n in "$DEV"/*/0003:*/input/input*/event*; do
	[ -e "$n" ] || continue
	cat "/dev/input/${n##*/}" >/dev/null &
	HOLD="$HOLD $!"
done
check "the host holds the gadget's input devices open" [ -n "$HOLD" ]
check "the host reads the gadget's keyboard" host_start typed3 text us "wake" "$OUT/text3.prog"
echo enabled > "$DEV/power/wakeup"
echo 500 > "$DEV/power/autosuspend_delay_ms"
echo auto > "$DEV/power/control"
check "the host suspends the device (runtime autosuspend)" rt_status suspended
check "status: the bus is suspended" status_is '.bus == "suspended"'
ACT0=$(cat "$DEV/power/runtime_active_time")
check "type wake on the board's keyboard" board ok type kbd wake
check "the host decodes wake, once" host_done typed3
check "the port resumed (runtime_active_time grew)" \
	[ "$(cat "$DEV/power/runtime_active_time")" -gt "$ACT0" ]
echo on > "$DEV/power/control"
# shellcheck disable=SC2086
kill $HOLD 2>/dev/null

say "a switch to a set without forwarding releases them"
FWD0=$(gd_log | grep -c "input: .* forwarded to ")
gd_switch plain
check "host sees 1d6b:0131" wait_usb 1d6b:0131
check "nothing was forwarded while the switch bound plain" forwards_since "$FWD0"
check "the keyboard is the board's again" board grab=ok watch kbd
check "the mouse too" board grab=ok watch ptr
gd_switch kbd,ptr
check "back on the forwarding set, grabbed again" status_is \
	'plugin("kbd").status.forward == "grabbed" and plugin("ptr").status.forward == "grabbed"'
check "gadgetctl off" timeout 30 gadgetctl off
check "off releases the keyboard" board grab=ok watch kbd
gd_switch kbd,ptr
check "grabbed once more" status_is 'plugin("ptr").status.forward == "grabbed"'
check "the mouse is grabbed" board grab=EBUSY watch ptr
gd_stop
check "systemctl stop gadgetd releases the mouse" board grab=ok watch ptr
check "... and the keyboard" board grab=ok watch kbd
exec 3>&-
wait $BPID
finish
