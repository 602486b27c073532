# The "ask" flow (issue 43): a profile with ask = true gives a host its
# default set (here acm, standing in for "charging only": Linux binds no
# configuration without a function); when the host configures it,
# `gadgetctl monitor` shows host-waiting and D-Bus emits HostWaiting;
# `gadgetctl switch` answers, and the host sees the chosen set (ecm, its
# own product id, its ECM interface); at unplug (the UDC
# removed: dummy_hcd's UDC keeps saying "configured" when the bus is let
# go) the gadget goes back to the default set, and the next plug asks
# again. A chosen set does not ask; ask = true without a default set is
# refused with file:line.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

gd_install
cat > /etc/gadgetd/profiles/askt.conf <<'P'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "ask test"; serial = "ASK1"; };
};
functions: {
  acm: { type = "acm"; };
  ecm: { type = "ecm"; };
};
sets = (
  { functions = [ "acm" ]; product_id = 0x01f6; },
  { functions = [ "ecm" ]; product_id = 0x01f7; }
);
default = "acm";
ask = true;
P

# wait_file FILE PATTERN [N]: FILE has N (1) lines matching the extended
# regular expression PATTERN within 10 s.
wait_file() {
	local lib_n=0
	until [ "$(grep -Ec "$2" "$1")" -ge "${3:-1}" ]; do
		[ $lib_n -ge 100 ] && { cat "$1"; return 1; }
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
}

say "ask = true needs a default set"
sed -e '/^default/d' /etc/gadgetd/profiles/askt.conf > /run/askbad.conf
check_exit 5 "gadgetctl check refuses it (exit 5)" sh -c "gadgetctl check /run/askbad.conf > check.txt 2>&1"
cat check.txt
check "naming the file, the line and the field" grep -q "askbad.conf:13: ask: true needs a default set" check.txt

gd_start askt
check "the host sees the default set" wait_usb 1d6b:01f6 20
# Unplugged, then the monitors, then plugged: nothing is missed.
timeout 30 rmmod dummy_hcd
check "unplugged" sh -c "! lsusb -d 1d6b:01f6 >/dev/null"
gadgetctl monitor >mon.txt 2>mon.err &
dbus-monitor --system "type='signal',interface='org.gadgetd1.Manager',member='HostWaiting'" \
	>sig.txt 2>&1 &
sleep 0.5

say "a host plugs in: it waits for a choice"
timeout 30 modprobe dummy_hcd
check "the host sees the default set again" wait_usb 1d6b:01f6 20
check "monitor: host-waiting with the default set" wait_file mon.txt ' host-waiting acm$'
check "D-Bus: HostWaiting(\"acm\")" wait_file sig.txt 'string "acm"'
check "gadgetd logged it" gd_log_has "ask: a host is waiting for a choice (set acm is up)"

say "a switch answers"
gd_switch ecm
check "the host sees the chosen set" wait_usb 1d6b:01f7 20
check "with an Ethernet (ECM) interface: class 02, subclass 06" sh -c \
	"cat /sys/bus/usb/devices/*-1:1.0/bInterfaceSubClass | grep -qx 06"
sleep 1
check "the chosen set does not ask" [ "$(grep -c ' host-waiting ' mon.txt)" = 1 ]

say "unplug: back to the default set; the next plug asks again"
timeout 30 rmmod dummy_hcd
check "gadgetd went back to the default set" within_s 10 gd_status '.set == "acm"'
check "and said why" gd_log_has "ask: the host went; back to the default set"
timeout 30 modprobe dummy_hcd
check "the host sees the default set" wait_usb 1d6b:01f6 20
check "monitor: host-waiting again" wait_file mon.txt ' host-waiting acm$' 2
check "D-Bus: HostWaiting again" wait_file sig.txt 'string "acm"' 2

finish
