# Plugin supervision: a crashing worker is restarted while the gadget and
# its other functions stay up; a plugin that cannot start fails the switch
# with its name and the previous set comes back.
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
gd_config restart_delay 10000
gd_start sup
export HOME=/root
check "host sees acm,adb" wait_usb 1d6b:01e0 20
timeout 20 adb start-server >/dev/null 2>&1
check "adb sees the device" timeout 30 adb wait-for-device
check "adb shell works" sh -c 'timeout 20 adb shell echo before | grep -q before'

say "kill -9 the adb worker: serial traffic flows while it is down"
# The worker stays down for restart_delay (10 s here: the serial bytes
# took over 3 s on a loaded bed); the restart then
# re-enumerates the gadget, as FunctionFS only reopens on an unbound one.
n=0; while [ ! -e /dev/ttyACM0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
stty -F /dev/ttyGS0 raw -echo clocal; stty -F /dev/ttyACM0 raw -echo clocal
head -c 6000 /dev/urandom | base64 -w 76 > serial-in.txt
gdpid=$GD_PID
apid=$(gadgetctl status --json | python3 -c 'import json,sys; print([p["pid"] for p in json.load(sys.stdin)["plugins"] if p["name"]=="adb"][0])')
check "adb worker pid known ($apid)" test "$apid" -gt 1
kill -KILL "$apid"
adb_down() { gadgetctl status | grep -q "adb: restarting, pid 0, restarts 1, last exit: killed by signal 9"; }
n=0; until adb_down || [ $n -gt 50 ]; do sleep 0.1; n=$((n+1)); done
check "status shows adb down, and why" adb_down
(timeout 10 head -c "$(wc -c < serial-in.txt)" /dev/ttyGS0 > serial-out.txt) &
rd=$!
sleep 0.2
timeout 10 sh -c 'cat serial-in.txt > /dev/ttyACM0'
wait $rd
check "serial bytes cross while adb is down" cmp -s serial-in.txt serial-out.txt
check "adb was still down after them" adb_down
check "gadgetd itself did not restart" kill -0 "$gdpid"
n=0
until timeout 5 gadgetctl status | grep -q 'adb: enabled.*restarts 1'; do
	n=$((n+1)); [ $n -gt 250 ] && break; sleep 0.1
done
check "adb is back after the delay" sh -c 'gadgetctl status | grep -q "adb: enabled.*restarts 1, last exit: killed by signal 9"'
check "adb reconnects" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo after | grep -q after'
check "the gadget stayed bound" sh -c 'gadgetctl status | grep -q "^udc: dummy_udc.0"'

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
