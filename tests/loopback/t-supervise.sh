# Plugin supervision: a crashing worker is restarted while the gadget and
# its other functions stay up; a plugin that cannot start fails the switch
# with its name and the previous set comes back.
# bed: light - crashing workers (fault injection)
. "$SRC/tests/loopback/lib.sh"
gd_install
cat > /etc/gadgetd/profiles/sup.conf <<'P'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "supervision test"; serial = "SUP1"; };
};
functions: {
  acm: { type = "acm"; };
  adb: { type = "ffs"; plugin = "adb"; options: { auth = "off"; }; };
  bogus: { type = "ffs"; plugin = "nosuch"; };
  badmtp: { type = "ffs"; plugin = "mtp"; options: { storage0_path = "/nonexistent/dir"; }; };
};
sets = (
  { functions = [ "acm", "adb" ]; product_id = 0x01e0; },
  { functions = [ "acm", "bogus" ]; product_id = 0x01e1; },
  { functions = [ "acm", "badmtp" ]; product_id = 0x01e2; }
);
default = "acm,adb";
P
gd_config restart_delay 20000
gd_start sup
export HOME=/root
check "host sees acm,adb" wait_usb 1d6b:01e0 20
timeout 20 adb start-server >/dev/null 2>&1
check "adb sees the device" timeout 30 adb wait-for-device
check "adb shell works" sh -c 'timeout 20 adb shell echo before | grep -q before'

say "kill -9 the adb worker: serial traffic flows while it is down"
# The worker stays down for restart_delay (20 s here: the serial bytes
# took over 3 s on a loaded bed, and over 10 s with four VMs' worth of
# load on two CPUs, when the restart came in the middle); the restart then
# re-enumerates the gadget, as FunctionFS only reopens on an unbound one.
n=0; while [ ! -e /dev/ttyACM0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
stty -F /dev/ttyGS0 raw -echo clocal; stty -F /dev/ttyACM0 raw -echo clocal
head -c 6000 /dev/urandom | base64 -w 76 > serial-in.txt
gdpid=$GD_PID
apid=$(gd_status 'plugin("adb").pid')
check "adb worker pid known ($apid)" test "$apid" -gt 1
# An unbind and bind would show as a new device number on the host side
# and one more enumeration in the kernel's log; the UDC file alone says
# "bound" before and after it.
dev0=$(usb_devnum 1d6b:01e0) enums0=$(usb_enums)
echo "host side: device $dev0, $enums0 enumerations so far"
kill -KILL "$apid"
adb_down() {
	gd_status 'plugin("adb") | .state == "restarting" and .pid == 0 and .restarts == 1 and
		(.last_exit | startswith("killed by signal 9"))'
}
# not_reenumerated: the same device as before the kill, no enumeration since.
not_reenumerated() {
	local dev enums=$(usb_enums)
	dev=$(usb_devnum 1d6b:01e0)
	[ "$dev" = "$dev0" ] && [ "$enums" = "$enums0" ] ||
		{ echo "host side: device $dev0 -> ${dev:-none}, enumerations $enums0 -> $enums"; return 1; }
}
n=0; until adb_down || [ $n -gt 50 ]; do sleep 0.1; n=$((n+1)); done
check "status shows adb down, and why" adb_down
(timeout 10 head -c "$(wc -c < serial-in.txt)" /dev/ttyGS0 > serial-out.txt) &
rd=$!
sleep 0.2
timeout 10 sh -c 'cat serial-in.txt > /dev/ttyACM0'
wait $rd
check "serial bytes cross while adb is down" cmp -s serial-in.txt serial-out.txt
# Looked at before adb_down: that adb is still down afterwards proves the
# look came before the restart's own unbind.
check "the gadget stayed bound while adb was down (not re-enumerated)" not_reenumerated
check "adb was still down after them" adb_down
check "gadgetd itself did not restart" kill -0 "$gdpid"
n=0
until gd_status 'plugin("adb") | .state == "enabled" and .restarts == 1' 2>/dev/null; do
	n=$((n+1)); [ $n -gt 400 ] && break; sleep 0.1
done
check "adb is back after the delay" gd_status 'plugin("adb") | .state == "enabled" and
	.restarts == 1 and (.last_exit | startswith("killed by signal 9"))'
check "adb reconnects" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo after | grep -q after'
# The restart unbinds and binds once (FunctionFS reopens only on an
# unbound gadget): exactly one enumeration, then the gadget stays.
enums1=$(usb_enums) dev1=$(usb_devnum 1d6b:01e0)
echo "host side: device $dev0 -> $dev1, enumerations $enums0 -> $enums1"
check "the restart re-enumerated the gadget once" test "$enums1" = $((enums0 + 1))
check "the gadget is bound to dummy_udc.0" gd_status '.udc == "dummy_udc.0" and .udc_state == "configured"'
sleep 2
check "and stays bound: the same device 2 s later ($dev1)" test "$(usb_devnum 1d6b:01e0)" = "$dev1"

say "a plugin that does not exist fails the switch, named"
check_exit 1 "switch acm,bogus fails" sh -c 'timeout 60 gadgetctl switch acm,bogus 2>bogus.txt'
cat bogus.txt
check "the error names the function" grep -q 'function bogus' bogus.txt
check "the error says it rolled back" grep -q 'rolled back to acm,adb' bogus.txt
check "acm,adb is live again" wait_usb 1d6b:01e0 20
check "adb works after the rollback" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo back | grep -q back'

say "a plugin whose options are wrong fails the switch, named"
check_exit 1 "switch acm,badmtp fails" sh -c 'timeout 60 gadgetctl switch acm,badmtp 2>badmtp.txt'
cat badmtp.txt
check "the error names the function" grep -q 'function badmtp' badmtp.txt
check "nothing of the failed set is left in ConfigFS" test ! -e /sys/kernel/config/usb_gadget/gadgetd/functions/ffs.badmtp
check "no FunctionFS mount is left behind" sh -c '! grep -q badmtp /proc/mounts'
finish
