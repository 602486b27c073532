# Android Open Accessory through gadgetd: the control instance in a normal
# set answers the AOA handshake (and stalls garbage), gadgetd switches to
# the accessory set (18d1:2d00, or 18d1:2d01 with adb), bytes flow between
# a pyusb host and a board application on the plugin's socket, and the
# gadget reverts when the host disconnects or never claims the interface.
# Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

H="python3 $SRC/tests/loopback/aoa_host.py"
SOCK=/run/gadgetd/accessory/accessory.sock
VID=1d6b
APP_PID=

cleanup_app() {
	[ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null
	APP_PID=
}

# A host that claims the accessory interface as soon as VID:PID appears,
# as real accessory hosts do, started before the handshake:
# exchange_start VID:PID BYTES, then check ... exchange_done.
exchange_start() {
	EX_LOG=exchange-$1-$2.log
	timeout 150 $H exchange "$1" "$2" --wait 60 > "$EX_LOG" 2>&1 &
	EX_PID=$!
}

exchange_done() {
	wait "$EX_PID"
	rc=$?
	cat "$EX_LOG"
	return $rc
}

# Unplug as far as the gadget can tell: the host deconfigures the device.
host_unplug() {
	d=$(usb_dir "$1") || return 1
	echo 0 > "$d/authorized"
}

gd_install
mkdir -p /etc/gadgetd/profiles
$H profile > /etc/gadgetd/profiles/aoatest.conf
gd_start aoatest
# The default set (acm,aoa) comes up by itself.

say "control instance in acm,aoa"
check "host sees $VID:0110 (an interface without endpoints)" wait_usb $VID:0110
check "a string without NUL makes START stall" timeout 30 $H nonterm $VID:0110
check "still $VID:0110 after the refused START" sh -c "sleep 1; lsusb -d $VID:0110 >/dev/null"
say "garbage, then the handshake"
# The board application waits for the socket, the host for 18d1:2d00.
timeout 200 $H app $SOCK header.txt > app.log 2>&1 &
APP_PID=$!
exchange_start 18d1:2d00 262144
check "garbage is stalled, then the handshake" timeout 60 $H handshake $VID:0110 --with-garbage

say "accessory set"
check "host sees 18d1:2d00" wait_usb 18d1:2d00 20
check "256 KiB both ways through the board application" exchange_done
check "GET_PROTOCOL again in accessory mode" timeout 20 $H query 18d1:2d00
printf 'manufacturer=gadgetd-test\nmodel=LoopbackDock\ndescription=AOA loopback test\nversion=1.0\nuri=https://example.org/aoa\nserial=SER123\n\n' > header.want
check "the application got the six strings" cmp header.want header.txt
lsusb -v -d 18d1:2d00 > lsusb-accessory.txt 2>/dev/null
check "interface FF/FF/00" grep -q 'bInterfaceSubClass *255' lsusb-accessory.txt
check "interface string" grep -q 'iInterface.*Android Accessory Interface' lsusb-accessory.txt
check "socket exists" test -S $SOCK
check "socket mode 660" test "$(stat -c %a $SOCK)" = 660
check "socket group plugdev" test "$(stat -c %G $SOCK)" = plugdev
gd_status > status.json 2>&1
check "status shows the manufacturer" gd_status 'plugin("accessory").status.manufacturer == "gadgetd-test"'
check "status shows the serial" gd_status 'plugin("accessory").status.serial == "SER123"'
check "status shows connected" gd_status 'plugin("accessory").status.state == "connected"'
check "still 18d1:2d00 (claimed, no revert)" lsusb -d 18d1:2d00

say "host disconnects"
check "deauthorize 18d1:2d00" host_unplug 18d1:2d00
check "gadget reverts to $VID:0110" wait_usb $VID:0110 15
check "the application saw the end" sh -c "n=0; while kill -0 $APP_PID 2>/dev/null && [ \$n -lt 50 ]; do sleep 0.1; n=\$((n+1)); done; ! kill -0 $APP_PID 2>/dev/null"
cleanup_app
check "socket removed" sh -c "sleep 0.5; ! test -e $SOCK"

say "host never claims the interface"
check "handshake" timeout 30 $H handshake $VID:0110
check "host sees 18d1:2d00" wait_usb 18d1:2d00 20
check "gadget reverts to $VID:0110 after claim_timeout_ms" wait_usb $VID:0110 30

say "gadgetctl accessory revert"
check "handshake" timeout 30 $H handshake $VID:0110
check "host sees 18d1:2d00" wait_usb 18d1:2d00 20
check "gadgetctl accessory revert" sh -c "timeout 20 gadgetctl accessory revert | grep -q reverting"
check "gadget reverts to $VID:0110" wait_usb $VID:0110 15

say "accessory + adb"
gd_switch adb,aoaadb
check "host sees $VID:0111" wait_usb $VID:0111 20
timeout 200 $H app $SOCK header2.txt > app2.log 2>&1 &
APP_PID=$!
exchange_start 18d1:2d01 65536
check "handshake" timeout 30 $H handshake $VID:0111
check "host sees 18d1:2d01" wait_usb 18d1:2d01 20
check "64 KiB both ways with adb alongside" exchange_done
timeout 10 adb start-server >/dev/null 2>&1
check "adb devices lists the board" sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do timeout 10 adb devices | grep -q 'device\$' && exit 0; sleep 1; done; timeout 10 adb devices; exit 1"
check "adb shell works" sh -c "timeout 20 adb shell echo aoa-adb-ok | grep -q aoa-adb-ok"
check "still 18d1:2d01" lsusb -d 18d1:2d01
timeout 10 adb kill-server >/dev/null 2>&1
check "deauthorize 18d1:2d01" host_unplug 18d1:2d01
check "gadget reverts to $VID:0111" wait_usb $VID:0111 15
cleanup_app

say "the usual Android set mtp,adb,aoa"
gd_switch mtp,adb,aoa
check "host sees $VID:0112" wait_usb $VID:0112 20
timeout 200 $H app $SOCK header3.txt > app3.log 2>&1 &
APP_PID=$!
exchange_start 18d1:2d00 65536
check "handshake next to mtp and adb" timeout 30 $H handshake $VID:0112
check "host sees 18d1:2d00" wait_usb 18d1:2d00 20
check "64 KiB both ways" exchange_done
check "deauthorize 18d1:2d00" host_unplug 18d1:2d00
check "gadget reverts to mtp,adb,aoa ($VID:0112)" wait_usb $VID:0112 15
check "gadgetd reports the set mtp,adb,aoa" gd_status '.set == "mtp,adb,aoa"'
cleanup_app

finish
