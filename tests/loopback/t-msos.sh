# Microsoft OS 1.0 descriptors of the shipped profile (android.conf), read
# from the host side as Windows reads them: string 0xEE, then the extended
# compat ID (MTP, WINUSB, RNDIS 5162001, WINNCM) on the right interface,
# and adb's extended properties. Then sets of two USB configurations: the
# descriptors of each, the configuration the Linux host picks by itself
# (bConfigurationValue) and its driver, and the other's driver once the
# host selects it. Of the sets with mtp, adb or rndis, mtp,adb and
# acm,adb are left out for time: mtp,adb,aoa numbers mtp and adb the same
# way, and rndis,adb puts adb behind a two-interface function as acm does. Windows binds
# its in-box drivers from these, without an .inf. Runs in the guest.
# bed: light - descriptors as Windows reads them, which the unit does not
#   change; the shipped profile under the unit: t-install
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
msos ncm ncm=WINNCM
check "ConfigFS holds ncm's compatible_id" grep -qx WINNCM $G/functions/ncm.ncm/os_desc/interface.ncm/compatible_id

# iface_driver DIR CONFIG IFACE: the driver of that interface, or nothing.
iface_driver() {
	basename "$(readlink "$1/${1##*/}:$2.$3/driver" 2>/dev/null)" 2>/dev/null
}

# wait_driver DIR CONFIG IFACE DRIVER: interface IFACE of configuration
# CONFIG of the device at DIR is bound to DRIVER within 15 s.
wait_driver() {
	n=150
	while [ $n -gt 0 ]; do
		[ "$(iface_driver "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "${1##*/}:$2.$3: driver \"$(iface_driver "$1" "$2" "$3")\", want $4"
	return 1
}

# picks VID:PID CONFIG: the Linux host chose configuration CONFIG itself.
picks() {
	d=$(usb_dir "$1") || { echo "no $1 in sysfs"; return 1; }
	n=100
	while [ $n -gt 0 ] && [ -z "$(cat "$d/bConfigurationValue")" ]; do
		sleep 0.1
		n=$((n - 1))
	done
	[ "$(cat "$d/bConfigurationValue")" = "$2" ] ||
		{ echo "bConfigurationValue is \"$(cat "$d/bConfigurationValue")\", want $2"; return 1; }
}

# select_config VID:PID CONFIG: what a user (or a udev rule) does to take
# the other configuration.
select_config() {
	d=$(usb_dir "$1") && echo "$2" > "$d/bConfigurationValue"
}

# The example devboard.conf's rndis,ncm: RNDIS in c.1 for Windows (its
# compat ID, on the configuration Windows selects), NCM in c.2, which
# Linux picks because it passes over a first configuration that is RNDIS.
gd_example devboard
check "devboard.conf has the same vendor code" grep -q "vendor_code = $CODE" /etc/gadgetd/profiles/devboard.conf
check "switch to devboard's ncm" gd_switch --profile devboard ncm
msos rndis,ncm config1=rndis config2=ncm rndis=RNDIS/5162001
ID=$(set_pid rndis,ncm)
check "ConfigFS has c.1 and c.2, os_desc linked to c.1" sh -c "[ -L $G/configs/c.1/rndis ] && [ -L $G/configs/c.2/ncm ] && [ -L $G/os_desc/c.1 ]"
check "status names both configurations" gd_status '.configurations == ["rndis", "ncm"]'
check "gadgetctl list shows them" sh -c "timeout 10 gadgetctl list | grep -qx '    c.2 ncm (\"NCM\")'"
check "the Linux host picks configuration 2 (NCM)" picks "$VID:$ID" 2
check "cdc_ncm binds it" wait_driver "$(usb_dir "$VID:$ID")" 2 0 cdc_ncm
check "the host selects configuration 1" select_config "$VID:$ID" 1
check "rndis_host binds configuration 1" wait_driver "$(usb_dir "$VID:$ID")" 1 0 rndis_host

# NCM first, with acm in both configurations (one ConfigFS function
# linked twice, as g_multi shares its serial port): WINNCM is what
# Windows reads, and Linux takes configuration 1.
say "netcfg: NCM first, acm in both configurations"
cat > /etc/gadgetd/profiles/netcfg.conf <<NETCFG
gadget: { vendor_id = 0x$VID; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "t-msos"; serial = "MSOS1"; };
  os_desc: { vendor_code = $CODE; }; };
functions: { acm: { type = "acm"; }; ncm: { type = "ncm"; }; rndis: { type = "rndis"; }; };
sets = ( { configs = ( { functions = [ "ncm", "acm" ]; }, { functions = [ "rndis", "acm" ]; } );
           product_id = 0x0130; } );
NETCFG
check "switch to ncm,acm,rndis of netcfg" gd_switch --profile netcfg ncm,acm,rndis
check "host sees $VID:0130" wait_usb "$VID:0130"
check "compat IDs: WINNCM on configuration 1's NCM" timeout 30 $PY "$T/msos_host.py" "$VID:0130" "$CODE" config1=ncm config2=rndis ncm=WINNCM
check "acm is linked in c.1 and c.2" sh -c "[ -L $G/configs/c.1/acm ] && [ -L $G/configs/c.2/acm ]"
check "the Linux host picks configuration 1 (NCM)" picks "$VID:0130" 1
check "cdc_ncm binds it" wait_driver "$(usb_dir "$VID:0130")" 1 0 cdc_ncm
check "cdc_acm binds its serial port" wait_driver "$(usb_dir "$VID:0130")" 1 2 cdc_acm
check "the host selects configuration 2" select_config "$VID:0130" 2
check "rndis_host binds configuration 2" wait_driver "$(usb_dir "$VID:0130")" 2 0 rndis_host
check "cdc_acm binds configuration 2's serial port" wait_driver "$(usb_dir "$VID:0130")" 2 2 cdc_acm

# Back to one configuration: c.2 goes.
check "switch back to android's ncm" gd_switch --profile android ncm
check "c.2 is gone" test ! -e $G/configs/c.2
check "status: one configuration" gd_status '.configurations == ["ncm"]'

finish
