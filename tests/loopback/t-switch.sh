# Kernel functions through gadgetd: switch, bad switch, restart, off,
# permissions, reload. Runs in the guest (see run-suite.sh), gadgetd
# from make install and its unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

gd_install
check "make install puts no lab profile (adb auth off) into /etc" test ! -e /etc/gadgetd/profiles/lab.conf
check "lab.conf is installed as an example" test -f /usr/share/doc/gadgetd/examples/lab.conf
gd_start lab
VID=1d6b
check "the control socket is 0660 root:plugdev" sh -c '[ "$(stat -c "%a %U %G" /run/gadgetd.sock)" = "660 root plugdev" ]'

say "switch acm,ecm"
check "gadgetctl switch acm,ecm" gd_switch acm,ecm
PID_ACMECM=$(set_pid acm,ecm)
check "list names the installed profiles" sh -c 'gadgetctl list | grep -q "^profiles in /etc/gadgetd/profiles: android lab$"'
check "list marks the active set" sh -c 'gadgetctl list | grep -q "^  acm,ecm .*(active)"'
check "host sees $VID:$PID_ACMECM" wait_usb "$VID:$PID_ACMECM"
lsusb -v -d "$VID:$PID_ACMECM" 2>/dev/null > /mnt/out/lsusb-acm-ecm.txt
check "iManufacturer is the profile's" grep -q 'iManufacturer.*gadgetd' /mnt/out/lsusb-acm-ecm.txt
check "iSerial is the profile's" grep -q 'iSerial.*GADGETD' /mnt/out/lsusb-acm-ecm.txt
check "CDC ACM interface (2/2) present" grep -Eq 'bInterfaceSubClass +2( |$)' /mnt/out/lsusb-acm-ecm.txt
check "CDC ECM interface (2/6) present" grep -Eq 'bInterfaceSubClass +6( |$)' /mnt/out/lsusb-acm-ecm.txt

say "serial: /dev/ttyACM0 <-> /dev/ttyGS0"
n=0; while [ ! -e /dev/ttyACM0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
check "host has /dev/ttyACM0" test -e /dev/ttyACM0
check "gadget has /dev/ttyGS0" test -e /dev/ttyGS0
stty -F /dev/ttyGS0 raw -echo clocal 2>/dev/null
stty -F /dev/ttyACM0 raw -echo clocal 2>/dev/null
check "bytes host->gadget arrive intact" serial_send /dev/ttyACM0 /dev/ttyGS0 4096 host-to-gadget
check "bytes gadget->host arrive intact" serial_send /dev/ttyGS0 /dev/ttyACM0 2048 gadget-to-host

say "ethernet: ping across CDC ECM"
gif=$(cat /sys/kernel/config/usb_gadget/gadgetd/functions/ecm.ecm/ifname 2>/dev/null)
hif=""
n=0
while [ -z "$hif" ] && [ $n -lt 50 ]; do
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "02:00:00:00:00:02" ] && hif=$(basename "$d")
	done
	sleep 0.1; n=$((n+1))
done
check "gadget interface exists ($gif)" test -n "$gif" -a -e "/sys/class/net/$gif"
check "host interface with the profile's host MAC ($hif)" test -n "$hif"
check "host interface is bound to cdc_ether" sh -c "readlink /sys/class/net/$hif/device/driver | grep -q cdc_ether"
ip netns add gadget
ip link set "$gif" netns gadget
ip netns exec gadget ip addr add 192.168.77.1/24 dev "$gif"
ip netns exec gadget ip link set "$gif" up
ip addr add 192.168.77.2/24 dev "$hif"
ip link set "$hif" up
# The host's link comes up once the gadget's interface is up and
# cdc_ether has seen the connection notification.
carrier() {
	local n=0; until [ "$(cat /sys/class/net/$hif/carrier 2>/dev/null)" = 1 ] || [ $n -gt 100 ]; do sleep 0.1; n=$((n+1)); done
	[ "$(cat /sys/class/net/$hif/carrier 2>/dev/null)" = 1 ]
}
# About one boot in four the host's cdc_ether never sees the connection
# notification f_ecm sends when the gadget's interface opens (the gadget
# side is up, the host stays NO-CARRIER); reopening the gadget's interface
# sends it again, now that the host is polling.
if ! carrier; then
	echo "host $hif has no carrier after 10 s; reopening the gadget's $gif"
	ip netns exec gadget ip link set "$gif" down; sleep 0.5
	ip netns exec gadget ip link set "$gif" up
	carrier
fi
# ARP may fail while the link settles: allow a first reply to take up to
# 30 s, then three in a row must come back.
n=0; until timeout 5 ping -c 1 -W 2 192.168.77.1 >/dev/null 2>&1 || [ $n -ge 15 ]; do n=$((n+1)); done
check "host pings the gadget over USB" timeout 30 ping -c 3 -W 5 192.168.77.1
if [ "$FAILS" != 0 ]; then
	echo "---- network state"; ip addr; ip neigh; ip netns exec gadget ip addr
	ip netns exec gadget ip neigh; cat /proc/net/dev; ip netns exec gadget cat /proc/net/dev
	cat /sys/kernel/config/usb_gadget/gadgetd/functions/ecm.ecm/*addr
fi
ip netns exec gadget ip link set "$gif" netns 1 2>/dev/null

say "switch ncm"
check "gadgetctl switch ncm" gd_switch ncm
PID_NCM=$(set_pid ncm)
check "host sees $VID:$PID_NCM" wait_usb "$VID:$PID_NCM"
check "old identity gone" wait_no_usb "$VID:$PID_ACMECM" 5
n=0
while ! ls /sys/bus/usb/drivers/cdc_ncm/ 2>/dev/null | grep -q ':'; do
	[ $n -gt 50 ] && break; sleep 0.1; n=$((n+1))
done
check "host bound cdc_ncm" sh -c 'ls /sys/bus/usb/drivers/cdc_ncm/ | grep -q :'

say "bad switches leave the gadget as it was"
check_exit 5 "switch nosuch is refused" sh -c 'gadgetctl switch nosuch 2>err.txt'
check "the error names the function" grep -q nosuch err.txt
check_exit 5 "a set the profile does not allow is refused" sh -c 'gadgetctl switch acm,ncm 2>err2.txt'
check "the error lists the allowed sets" grep -qi allowed err2.txt
check "status still shows ncm" gd_status '.set == "ncm"'
check "host still sees $VID:$PID_NCM" lsusb -d "$VID:$PID_NCM"

say "permissions"
check_exit 4 "nobody may not switch" setpriv --reuid=65534 --regid=65534 --clear-groups gadgetctl switch acm
check_exit 4 "nobody may not read status either" sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups gadgetctl status 2>nobody.txt'
check "the refusal names the socket's group" grep -q "members of group plugdev" nobody.txt

useradd -M -N -G plugdev gdtester 2>/dev/null
# as_tester CMD...: run as a member of plugdev (not root, not admin_group).
as_tester() { setpriv --reuid=gdtester --regid=nogroup --init-groups "$@"; }
tester_sees_ncm() {
	as_tester gadgetctl status --json |
		python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["set"] != "ncm")'
}
check "a member of plugdev may read status" tester_sees_ncm
check "a member of plugdev may switch" as_tester gadgetctl switch acm
check "host sees the acm set" wait_usb "$VID:$(set_pid acm)"
check "a member of plugdev may switch back to ncm" as_tester timeout 60 gadgetctl switch ncm
check "host sees $VID:$PID_NCM" wait_usb "$VID:$PID_NCM"
check_exit 4 "a member of plugdev may not choose another profile" sh -c 'setpriv --reuid=gdtester --regid=nogroup --init-groups gadgetctl switch --profile android acm 2>deny.txt'
check "the refusal says what and who" grep -q "choosing another profile.*is for root" deny.txt
check_exit 4 "a member of plugdev may not reload" as_tester gadgetctl reload
check_exit 4 "a member of plugdev may not turn the gadget off" as_tester gadgetctl off
check_exit 4 "a member of plugdev may not allow an adb key" as_tester gadgetctl adb allow 00:11
check "status still shows ncm of profile lab" gd_status '.set == "ncm" and .profile == "lab"'
check "host still sees $VID:$PID_NCM" lsusb -d "$VID:$PID_NCM"

say "profile names and links"
# ../../tmp/x from the profile directory is /etc/tmp/x.conf: a valid
# profile there must still not load.
mkdir -p /etc/tmp
cp /etc/gadgetd/profiles/lab.conf /etc/tmp/x.conf
check_exit 5 "switch --profile ../../tmp/x is refused" sh -c 'gadgetctl switch --profile ../../tmp/x acm 2>trav.txt'
check "the error says it is not a profile name" grep -q "not a profile name" trav.txt
check_exit 4 "the same from a member of plugdev is refused as unauthorized" as_tester gadgetctl switch --profile ../../tmp/x acm
check_exit 5 "switch --profile Lab (upper case) is refused" gadgetctl switch --profile Lab acm
ln -s /etc/tmp/x.conf /etc/gadgetd/profiles/evil.conf
check_exit 5 "a symlinked profile is refused" sh -c 'gadgetctl switch --profile evil acm 2>link.txt'
check "the error names the link" grep -q "evil.conf: a symbolic link" link.txt
check "list does not offer the link" sh -c '! gadgetctl list | grep -q evil'
rm -f /etc/gadgetd/profiles/evil.conf
check "nothing changed: still ncm of profile lab" gd_status '.set == "ncm" and .profile == "lab"'
check "host still sees $VID:$PID_NCM" lsusb -d "$VID:$PID_NCM"

say "switch --profile"
check "switch --profile android ncm" gd_switch --profile android ncm
check "status names profile android" gd_status '.profile == "android"'
check_exit 5 "switch --profile nosuch is refused" sh -c 'gadgetctl switch --profile nosuch 2>p.txt'
check "the error names the missing profile" grep -q nosuch p.txt
check "switch --profile lab ncm" gd_switch --profile lab ncm


say "status --json"
check "status --json names set, udc and timings" \
	gd_status '.set == "ncm" and .udc == "dummy_udc.0" and .last_switch.total_ms > 0'

say "kill -9 gadgetd, restart: the set is restored"
old_pid=$GD_PID
kill -KILL "$GD_PID"
check "systemd starts gadgetd again (Restart=on-failure)" gd_wait_restarted "$old_pid"
check "status after restart shows ncm" gd_status '.set == "ncm"'
check "host sees $VID:$PID_NCM after restart" wait_usb "$VID:$PID_NCM"

say "reload with a broken profile changes nothing"
cp /etc/gadgetd/profiles/lab.conf lab.good
echo 'gadget: { vendor_id = "oops"; };' >> /etc/gadgetd/profiles/lab.conf
check_exit 5 "reload of a broken profile fails" sh -c 'gadgetctl reload 2>reload.txt'
check "the error names file and line" grep -q 'lab.conf:[0-9]' reload.txt
check "status still ncm" gd_status '.set == "ncm"'
check_exit 1 "gadgetd -n reports the broken profile" sh -c 'gadgetd -n 2>n.txt'
check "gadgetd -n names file:line" grep -q 'lab.conf:[0-9]' n.txt
cp lab.good /etc/gadgetd/profiles/lab.conf
check "gadgetd -n passes again" gadgetd -n

say "the UDC vanishes and returns"
# Last, and with no network function after it: on this 6.1 kernel, once
# ncm or ecm has been bound to a UDC, removing it can leave a stale "net"
# directory behind the gadget device, and then no ncm, ecm or rndis binds
# to the returning UDC ("kobject_add_internal failed for usb0 (error: -2
# parent: net)"); binding such a function again after that failure hits
# BUG() in register_netdevice(). gadgetd never retries that refusal.
PID_ACM=$(set_pid acm)
check "switch to acm" gd_switch acm
timeout 30 rmmod dummy_hcd
check "device gone with its UDC" wait_no_usb "$VID:$PID_ACM" 10
check "status says the UDC is absent" gd_status '.udc_state == "absent"'
timeout 30 modprobe dummy_hcd
check "gadgetd binds again when the UDC returns" wait_usb "$VID:$PID_ACM" 20
check "status shows the UDC again" gd_status '.udc == "dummy_udc.0"'

say "gadgetd started before any UDC binds when one appears"
gd_stop
timeout 30 rmmod dummy_hcd
gd_start
gd_status > noudc.json
check "status says there is no UDC yet" gd_status '.udc == ""'
check "status keeps the set" gd_status '.set == "acm"'
timeout 30 modprobe dummy_hcd
check "gadgetd binds when the UDC appears" wait_usb "$VID:$PID_ACM" 20
PID_ACM_ADB=$(set_pid acm,adb)
check "a switch after the UDC returned: acm,adb" gd_switch acm,adb
check "host sees $VID:$PID_ACM_ADB" wait_usb "$VID:$PID_ACM_ADB"

say "off"
check "gadgetctl off" gadgetctl off
check "device gone" wait_no_usb "$VID:$PID_ACM_ADB" 10
check "gadget removed from ConfigFS" test ! -e /sys/kernel/config/usb_gadget/gadgetd

finish
