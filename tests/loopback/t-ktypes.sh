# Kernel function types from gadgetd/profile/ktype.c's table, through gadgetd:
# the example audio profile's midi function (in_ports = 2, out_ports = 3)
# with acm, seen by the host as a MIDI streaming interface with those
# port counts; uac2 beside it; a bad midi attribute refused by gadgetctl
# check with file:line:field, and a switch to a profile holding it leaves
# the running gadget as it was; gser (a generic serial port) carrying
# bytes both ways to the host's usbserial generic driver. Runs in the
# guest (see run-suite.sh).
# bed: light - kernel function types through ConfigFS, which the unit does not
#   change; switching under the unit: t-unit, t-switch, t-install
. "$SRC/tests/loopback/lib.sh"

KDIR=/lib/modules/$(uname -r)
check "the bed's kernel has usb_f_midi" sh -c "find $KDIR -name 'usb_f_midi.ko*' | grep -q ."
check "the bed's kernel has usb_f_uac2" sh -c "find $KDIR -name 'usb_f_uac2.ko*' | grep -q ."
check "the bed's kernel has usb_f_serial" sh -c "find $KDIR -name 'usb_f_serial.ko*' | grep -q ."
gd_install
check "audio.conf is installed as an example" test -f "$GD_EXAMPLES/audio.conf"
gd_start audio
VID=1d6b
MIDI_PID=$(set_pid acm,midi)
check "the default set acm,midi is up" sh -c 'gadgetctl status | grep -q "^set: acm,midi$"'
check "host sees $VID:$MIDI_PID" wait_usb "$VID:$MIDI_PID"
lsusb -v -d "$VID:$MIDI_PID" 2>/dev/null > /mnt/out/lsusb-midi.txt

# The interfaces as sysfs shows them on the host side: CLASS:SUBCLASS.
host_ifaces() {
	for i in /sys/bus/usb/devices/*:*; do
		d=${i%%:*}
		[ "$(cat "$d/idProduct" 2>/dev/null)" = "$1" ] || continue
		echo "$(cat "$i/bInterfaceClass"):$(cat "$i/bInterfaceSubClass")"
	done
}
host_ifaces "$MIDI_PID" > /mnt/out/ifaces-midi.txt
check "sysfs: a MIDI streaming interface (class 1 subclass 3)" grep -qx '01:03' /mnt/out/ifaces-midi.txt
check "sysfs: the CDC ACM interface (2/2) beside it" grep -qx '02:02' /mnt/out/ifaces-midi.txt
check "lsusb: an interface of class 1 subclass 3" awk '/bInterfaceClass/ { c = $2 }
	/bInterfaceSubClass/ && c == 1 && $2 == 3 { found = 1 } END { exit !found }' /mnt/out/lsusb-midi.txt
# f_midi's ports are named from the host: out_ports are the host's MIDI
# outputs, one embedded jack each on the OUT endpoint; in_ports its
# inputs, on the IN endpoint.
jacks() {
	awk -v dir="$1" '/bEndpointAddress/ { d = ($0 ~ /EP [0-9]+ IN/) ? "IN" : "OUT" }
		/bNumEmbMIDIJack/ && d == dir { print $2 }' /mnt/out/lsusb-midi.txt
}
check "host IN endpoint: 2 embedded MIDI jacks (in_ports = 2)" [ "$(jacks IN)" = 2 ]
check "host OUT endpoint: 3 embedded MIDI jacks (out_ports = 3)" [ "$(jacks OUT)" = 3 ]
CFS=/sys/kernel/config/usb_gadget/gadgetd/functions/midi.midi
check "ConfigFS: in_ports 2, out_ports 3" \
	sh -c "[ \"\$(cat $CFS/in_ports)\" = 2 ] && [ \"\$(cat $CFS/out_ports)\" = 3 ]"
check "ConfigFS: id gadgetmidi" grep -qx gadgetmidi "$CFS/id"
check "the board has the ALSA card gadgetmidi" grep -q '\[gadgetmidi' /proc/asound/cards

say "a bad midi attribute"
sed 's/in_ports = 2;/in_ports = 99;/' "$GD_EXAMPLES/audio.conf" > /etc/gadgetd/profiles/badmidi.conf
chmod 644 /etc/gadgetd/profiles/badmidi.conf
LINE=$(grep -n 'in_ports = 99' /etc/gadgetd/profiles/badmidi.conf | cut -d: -f1)
check_exit 5 "gadgetctl check refuses in_ports = 99" \
	sh -c 'gadgetctl check /etc/gadgetd/profiles/badmidi.conf 2>check.txt'
cat check.txt
check "the error names file:line:field and the range" grep -q \
	"^/etc/gadgetd/profiles/badmidi.conf:$LINE: functions.midi.in_ports: 99 out of range (0..16)" check.txt
DEV=$(for d in /sys/bus/usb/devices/*; do [ "$(cat "$d/idProduct" 2>/dev/null)" = "$MIDI_PID" ] && echo "$d"; done | head -n1)
DEVNUM0=$(cat "$DEV/devnum" 2>/dev/null)
if gadgetctl switch --profile badmidi acm,midi > sw.txt 2>&1; then rc=0; else rc=$?; fi
cat sw.txt
check "a switch to the bad profile fails (exit $rc)" [ "$rc" != 0 ]
check "its error names the file, line and field" grep -q "badmidi.conf:$LINE: functions.midi.in_ports" sw.txt
check "status: still profile audio, set acm,midi" \
	sh -c 'gadgetctl status | grep -q "^profile: audio$" && gadgetctl status | grep -q "^set: acm,midi$"'
check "ConfigFS still has in_ports 2" [ "$(cat $CFS/in_ports)" = 2 ]
check "the host kept the same device (devnum $DEVNUM0, no re-enumeration)" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$DEVNUM0" "$(cat "$DEV/devnum" 2>/dev/null)"

say "gser, a generic serial port"
# gser's interface is vendor-specific (ff/00/00): no class driver claims
# it, so the host binds usbserial's generic driver by id, as the manual says.
cat > /etc/gadgetd/profiles/serial.conf <<'EOF_CONF'
gadget: { vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "serial"; serial = "GSER0001"; }; };
functions: { console: { type = "gser"; }; };
sets = ( { functions = [ "console" ]; product_id = 0x0112; } );
default = "console";
EOF_CONF
chmod 644 /etc/gadgetd/profiles/serial.conf
check "gadgetctl check accepts a gser function" gadgetctl check /etc/gadgetd/profiles/serial.conf
check "the host side loads usbserial for 1d6b:0112" modprobe usbserial vendor=0x1d6b product=0x0112
check "a switch to profile serial, set console" timeout 60 gadgetctl switch --profile serial console
check "status: profile serial, set console" gd_status '.profile == "serial" and .set == "console"'
check "host sees $VID:0112" wait_usb "$VID:0112"
host_ifaces 0112 > /mnt/out/ifaces-gser.txt
check "sysfs: one interface, vendor-specific (class ff subclass 00)" [ "$(cat /mnt/out/ifaces-gser.txt)" = ff:00 ]
GSER=/sys/kernel/config/usb_gadget/gadgetd/functions/gser.console
check "ConfigFS: gser.console with its port number" test -f "$GSER/port_num"
GS=/dev/ttyGS$(cat "$GSER/port_num" 2>/dev/null)
n=0; while [ ! -e /dev/ttyUSB0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
check "the board has $GS" test -c "$GS"
check "the host has /dev/ttyUSB0 (usbserial generic)" test -c /dev/ttyUSB0
stty -F "$GS" raw -echo clocal 2>/dev/null
stty -F /dev/ttyUSB0 raw -echo clocal 2>/dev/null
check "gser: bytes host->gadget arrive intact" serial_send /dev/ttyUSB0 "$GS" 4096 gser-host-to-gadget
check "gser: bytes gadget->host arrive intact" serial_send "$GS" /dev/ttyUSB0 2048 gser-gadget-to-host
check "back to profile audio, set acm,midi" timeout 60 gadgetctl switch --profile audio acm,midi
check "host sees $VID:$MIDI_PID again" wait_usb "$VID:$MIDI_PID"

say "uac2 beside midi"
# dummy_hcd offers no isochronous endpoints, so on this bed f_uac2 cannot
# bind (the UDC's start fails with ENODEV): then the switch must fail and
# roll back to acm,midi. A UDC with them must show uac2's interfaces.
AUDIO_PID=$(set_pid audio,midi)
if timeout 60 gadgetctl switch audio,midi > uac2.txt 2>&1; then
	check "host sees $VID:$AUDIO_PID" wait_usb "$VID:$AUDIO_PID"
	host_ifaces "$AUDIO_PID" > /mnt/out/ifaces-audio.txt
	cat /mnt/out/ifaces-audio.txt
else
	cat uac2.txt
	dmesg | grep -i 'failed to start gadgetd' | tail -n 2
	check "the bed's UDC refused uac2 (no isochronous endpoints)" \
		sh -c "dmesg | grep -q 'dummy_udc.0: failed to start gadgetd: -19'"
	check "the failed switch rolled back to acm,midi" grep -q 'rolled back to acm,midi' uac2.txt
	check "gadgetctl says a function failed to bind, not that the UDC is busy" \
		grep -q 'a function failed to bind to it' uac2.txt
	check "status: set acm,midi again" sh -c 'gadgetctl status | grep -q "^set: acm,midi$"'
	check "host sees $VID:$MIDI_PID again" wait_usb "$VID:$MIDI_PID"
	finish
fi
# f_midi brings an audio control interface (1/1) of its own: streaming
# (1/2) is uac2's.
check "sysfs: uac2's audio streaming interface (class 1 subclass 2)" grep -qx '01:02' /mnt/out/ifaces-audio.txt
check "sysfs: the MIDI streaming interface is still there" grep -qx '01:03' /mnt/out/ifaces-audio.txt
finish
