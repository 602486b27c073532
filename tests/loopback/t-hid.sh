#!/bin/sh
# The hid plugin under gadgetd: kvm.conf's keyboard, tablet, mouse and
# media keys as the same kernel's usbhid and evdev see them (hid_host.py,
# its evdev ioctls): typed text in US and German layouts decoded back to the
# same text (key codes and Shift/AltGr exact), key combinations and
# key --down/--up, relative and absolute pointer values and clicks, a
# consumer key, Caps Lock set by the host seen by `gadgetctl hid leds`,
# an unplug mid-text (the host deconfigures the device, as far as the
# gadget can tell an unplug): the count the command reports is the count
# that arrived at the host's controller (usbmon), and typing works again
# once plugged back; and typing while the host reads 64 MiB from
# kvm.conf's virtual CD; and an
# n-key-rollover keyboard (kvm.conf with nkro = true).
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/hid_lib.sh"

# leds_say TEXT: `gadgetctl hid leds` says TEXT within 5 s.
leds_say() {
	local n=50 got
	while [ $n -gt 0 ]; do
		got=$(timeout 10 gadgetctl hid leds)
		[ "$got" = "$1" ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "gadgetctl hid leds: \"$got\", want \"$1\""
	return 1
}

gd_install
# No udevd: the HID driver and evdev are not loaded on enumeration.
timeout 30 modprobe -a hid_generic evdev || die "modprobe hid_generic evdev"
gd_start kvm
SET=hid,mouse,rmouse,media
gd_switch $SET
PID=$(set_pid $SET)
check "host sees 1d6b:$PID" wait_usb "1d6b:$PID"

# type_text LAYOUT TEXT: TEXT five characters a command, each once the
# host has decoded the last (text.prog), so that its reader never falls
# more than 64 events behind (evdev's buffer; ten events a shifted
# character) on a loaded bed.
type_text() {
	local rest=$2 chunk done=0 n
	while [ -n "$rest" ]; do
		chunk=$(printf '%s' "$rest" | cut -c1-5)
		rest=$(printf '%s' "$rest" | cut -c6-)
		done=$((done + ${#chunk}))
		timeout 10 gadgetctl hid type --layout "$1" "$chunk" || return 1
		n=200
		while [ "$(cat "$OUT/text.prog" 2>/dev/null)" != "$done" ] && [ $n -gt 0 ]; do
			sleep 0.1
			n=$((n - 1))
		done
		[ $n -gt 0 ] || { echo "the host decoded $(cat "$OUT/text.prog" 2>/dev/null) of $done"; return 1; }
	done
}

say "type, US layout"
TXT='Hello, World! 123 y@z?-:'
rm -f "$OUT/text.prog"
host_start us text us "$TXT" "$OUT/text.prog" || { host_done us; die "no keyboard on the host side"; }
check "gadgetctl hid type (us), 5 characters at a time" type_text us "$TXT"
check "the host decodes the same text (us)" host_done us
check "gadgetctl hid type: all at once, one reply" timeout 10 gadgetctl hid type "$TXT"

say "type, German layout"
TXT='Hallo, Welt! 123 zy@?-:"'
rm -f "$OUT/text.prog"
check "the host listens (de)" host_start de text de "$TXT" "$OUT/text.prog"
check "gadgetctl hid type --layout de, 5 at a time" type_text de "$TXT"
check "the host decodes the same text (de)" host_done de
check_exit 5 "a character with no key in the layout is refused" \
	timeout 10 gadgetctl hid type --layout de 'a^b'

say "key combinations"
check "the host listens (keys)" host_start keys keys keyboard 8
check "gadgetctl hid key ctrl+alt+bksp" timeout 10 gadgetctl hid key ctrl+alt+bksp
check "gadgetctl hid key --down shift" timeout 10 gadgetctl hid key --down shift
check "gadgetctl hid key --up" timeout 10 gadgetctl hid key --up
check "the host reads the keys" host_done keys
check "ctrl and alt go down before backspace, all come up, then shift" \
	same "$OUT/keys.out" "29 1\n56 1\n14 1\n29 0\n56 0\n14 0\n42 1\n42 0"

say "relative mouse"
check "the host listens (mouse)" host_start rel ptr mouse 8
check "gadgetctl rmouse move 10 -5" timeout 10 gadgetctl rmouse move 10 -5
check "gadgetctl rmouse move 300 0" timeout 10 gadgetctl rmouse mouse move 300 0
check "gadgetctl rmouse click right" timeout 10 gadgetctl rmouse click right
check "gadgetctl rmouse scroll 2" timeout 10 gadgetctl rmouse scroll 2
check "the host reads the mouse" host_done rel
check "relative moves split at 127, right click, wheel" same "$OUT/rel.out" \
	"EV_REL 0 10\nEV_REL 1 -5\nEV_REL 0 127\nEV_REL 0 127\nEV_REL 0 46\nEV_KEY 273 1\nEV_KEY 273 0\nEV_REL 8 2"

say "tablet"
check "the host listens (tablet)" host_start abs ptr tablet 4
check "gadgetctl mouse abs 1000 20000" timeout 10 gadgetctl mouse abs 1000 20000
check "gadgetctl mouse click" timeout 10 gadgetctl mouse click
check "the host reads the tablet" host_done abs
check "absolute X and Y, then a left click" same "$OUT/abs.out" \
	"EV_ABS 0 1000\nEV_ABS 1 20000\nEV_KEY 272 1\nEV_KEY 272 0"

say "consumer key"
check "the host listens (media)" host_start media keys consumer 2
check "gadgetctl media key volume_up" timeout 10 gadgetctl media key volume_up
check "the host reads KEY_VOLUMEUP down and up" host_done media
check "KEY_VOLUMEUP (115) down and up" same "$OUT/media.out" "115 1\n115 0"

say "LEDs set by the host"
check "the host sets Caps Lock" timeout 30 $PY "$T/hid_host.py" led LED_CAPSL 1
check "gadgetctl hid leds shows it" leds_say "num off caps on scroll off"
check "the host clears Caps Lock" timeout 30 $PY "$T/hid_host.py" led LED_CAPSL 0
check "gadgetctl hid leds shows that" leds_say "num off caps off scroll off"

say "unplugged mid-text"
LONG=$(printf 'abcdefghij%.0s' $(seq 30))
check "the host listens (unplug)" host_start unplug unplug 10 "1d6b:$PID"
REPLY=$(timeout 10 gadgetctl hid type "$LONG" 2>&1)
RC=$?
echo "reply ($RC): $REPLY"
check "the host counted key presses until the device went" host_done unplug
# What hidraw passed on, and what the host's controller took (usbmon):
# the last line; the lines before it show each completion.
set -- $(tail -n 1 "$OUT/unplug.out")
GOT=$1 TOOK=$2
check "the command fails (exit $RC)" [ "$RC" != 0 ]
# says WANT: REPLY holds WANT.
says() { case $REPLY in *"$1"*) return 0 ;; esac; return 1; }
# The gadget counts a press once the UDC completed its request, and
# usbmon shows what the host's controller took. dummy_hcd completes an
# IN request of up to 64 bytes when it is queued, into its one emulated
# FIFO (dummy_queue(); docs/kernel.md): the report in that FIFO when the
# host deconfigures never reaches the host, so the reply counts what the
# controller took, or one more, never fewer and never two more (a loaded
# machine: 15 typed, 14 taken, the last C of the endpoint -ESHUTDOWN
# with no data). hidraw may pass on fewer still: usbhid drops a report
# that completes during the teardown, so it only bounds from below.
counted() {
	says "typed $TOOK of 300 characters: the host disconnected" ||
		says "typed $((TOOK + 1)) of 300 characters: the host disconnected"
}
check "the reply counts what the controller took ($TOOK, or one more in dummy_hcd's FIFO; hidraw passed $GOT)" counted
check "hidraw passed on no press the controller did not take" [ "$GOT" -le "$TOOK" ]
# plugged back: authorized again, the host configures it anew.
replug() {
	local d
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = "1d6b:$PID" ] &&
			{ echo 1 > "$d/authorized"; return; }
	done
	return 1
}
check "the host authorizes the device again" replug
rm -f "$OUT/text.prog"
check "the host listens (again)" host_start again text us "again" "$OUT/text.prog"
check "typing works after the re-plug" timeout 10 gadgetctl hid type "again"
check "the host decodes it" host_done again
say "typing while the host reads the virtual CD"
# kvm.conf's set with virtual media: HID must keep working while the
# host reads the disk. The host reads the 64 MiB image again and again
# (each pass checked) until the text is typed.
MEDIA=/srv/gadgetd/media
mkdir -p "$MEDIA"
head -c 67108864 /dev/urandom > "$MEDIA/big.iso"
WANT=$(sha256sum < "$MEDIA/big.iso")
timeout 30 modprobe -a usb-storage sr_mod || die "modprobe usb-storage sr_mod"
SET=hid,mouse,disk
check "gadgetctl switch $SET" gd_switch $SET
PID=$(set_pid $SET)
check "host sees 1d6b:$PID" wait_usb "1d6b:$PID"
check "storage insert --cdrom big.iso (from kvm.conf's media_dir)" \
	timeout 10 gadgetctl storage insert --cdrom big.iso
# cd_ready: the host's CD device reads (the first read after the media
# change may fail once with the unit attention); CD names it.
cd_ready() {
	local n=150 b
	while [ $n -gt 0 ]; do
		for b in /sys/block/sr*; do
			[ -e "$b" ] || continue
			# Ours is below a USB device, not QEMU's IDE CD-ROM.
			case $(readlink -f "$b/device") in */usb[0-9]*/*) ;; *) continue ;; esac
			CD=/dev/${b##*/}
			timeout 10 dd if="$CD" iflag=direct bs=2048 count=1 of=/dev/null 2>/dev/null && return 0
		done
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
check "the host reads the CD" cd_ready
rm -f "$OUT/typed" "$OUT/cd.sha"
(while [ ! -e "$OUT/typed" ]; do
	timeout 120 dd if="$CD" iflag=direct bs=65536 count=1024 2>/dev/null | sha256sum >> "$OUT/cd.sha"
done) &
RD=$!
# The first pass is under way before the typing starts.
sleep 1
TXT='Typed mid-read: 42!'
rm -f "$OUT/text.prog"
check "the host listens (during the read)" host_start during text us "$TXT" "$OUT/text.prog"
check "the read is in progress when the typing starts" kill -0 $RD
check "gadgetctl hid type during the read" type_text us "$TXT"
check "the host decodes the same text during the read" host_done during
check "the read was still in progress when the typing ended" kill -0 $RD
touch "$OUT/typed"
wait $RD
echo "passes over the 64 MiB image: $(wc -l < "$OUT/cd.sha")"
check "every pass read the image byte for byte" \
	sh -c "[ -s '$OUT/cd.sha' ] && ! grep -v -x -F '$WANT' '$OUT/cd.sha'"

# kvm.conf with an n-key-rollover keyboard: its descriptor says so (the
# host's copy is hid_desc.c's nkro descriptor, 57 bytes, not the boot
# keyboard's 64), and what it types decodes back (an nkro keyboard once
# described itself as a boot keyboard, and the host read its reports
# wrong).
say "an nkro keyboard"
sed 's/options: { kind = "keyboard";/options: { kind = "keyboard"; nkro = true;/' \
	/etc/gadgetd/profiles/kvm.conf > /etc/gadgetd/profiles/kvmnkro.conf
check "the profile sets nkro" grep -q 'nkro = true' /etc/gadgetd/profiles/kvmnkro.conf
check "gadgetctl switch --profile kvmnkro hid" gd_switch --profile kvmnkro hid
NPID=$(set_pid hid)
check "host sees 1d6b:$NPID" wait_usb "1d6b:$NPID"
# rdesc_len: the length of the keyboard's report descriptor, as the
# host's HID core read it.
rdesc_len() {
	local d
	for d in /sys/bus/hid/devices/*:1D6B:$(echo "$NPID" | tr a-f A-F).*; do
		[ -e "$d/report_descriptor" ] && { wc -c < "$d/report_descriptor"; return; }
	done
	echo 0
}
RLEN=$(rdesc_len)
echo "keyboard report descriptor: $RLEN bytes"
check "it is the nkro keyboard's (57 bytes)" [ "$RLEN" = 57 ]
TXT='Nkro types: Hello!'
rm -f "$OUT/text.prog"
check "the host listens (nkro)" host_start nkro text us "$TXT" "$OUT/text.prog"
check "gadgetctl hid type (nkro)" type_text us "$TXT"
check "the host decodes the same text (nkro)" host_done nkro
finish
