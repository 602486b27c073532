# Microsoft OS 1.0 descriptors of the shipped profile (android.conf), read
# from the host side as Windows reads them: string 0xEE, then the extended
# compat ID (MTP, WINUSB, RNDIS 5162001) on the right interface, and adb's
# extended properties. Of the sets with mtp, adb or rndis, mtp,adb and
# acm,adb are left out for time: mtp,adb,aoa numbers mtp and adb the same
# way, and rndis,adb puts adb behind a two-interface function as acm does. Windows binds
# its in-box drivers from these, without an .inf. Runs in the guest.
. "$SRC/tests/loopback/lib.sh"
PY=/usr/bin/python3
T=$SRC/tests/loopback

gd_install
mkdir -p /srv/mtp
gd_start android
VID=1d6b
G=/sys/kernel/config/usb_gadget/gadgetd
# The vendor code the profile asks for, as Windows must find it in 0xEE.
CODE=$(sed -n 's/.*os_desc:.*vendor_code = *\(0x[0-9a-fA-F]*\).*/\1/p' /etc/gadgetd/profiles/android.conf)
check "android.conf names an os_desc vendor code ($CODE)" test -n "$CODE"

# msos SET KIND=COMPAT[/SUB]...: switch to SET and read its descriptors.
msos() {
	set=$1
	shift
	say "set $set"
	id=$(set_pid "$set")
	[ "$set" = "accessory,adb" ] && vid=18d1 || vid=$VID
	check "switch $set" gd_switch "$set"
	check "host sees $vid:$id" wait_usb "$vid:$id"
	# Windows reads the OS descriptors of the configuration bound to
	# os_desc only.
	check "os_desc is on and bound to c.1" sh -c "[ \"\$(cat $G/os_desc/use)\" = 1 ] && [ -L $G/os_desc/c.1 ]"
	check "compat IDs of $set: $*" timeout 30 $PY "$T/msos_host.py" "$vid:$id" "$CODE" "$@"
}

msos rndis,adb rndis=RNDIS/5162001 adb=WINUSB
check "ConfigFS holds rndis's compatible_id" grep -qx RNDIS $G/functions/rndis.rndis/os_desc/interface.rndis/compatible_id
msos adb adb=WINUSB
msos mtp mtp=MTP
msos mtp,adb,aoa mtp=MTP adb=WINUSB
msos accessory,adb adb=WINUSB

finish
