# ADB as current hosts speak it, checked on the wire by a raw-ADB host
# (tests/loopback/adb_wire.py over pyusb), against the adb plugin under
# gadgetd: service names with and without their NUL, delayed_ack windows
# on several streams at once (and a host without it), sendrecv_v2 push and
# pull with no compression, brotli, LZ4 and zstd (byte-identical), dry
# runs that create nothing, corrupt and truncated streams refused, and a
# host that announces features we lack. Runs in the guest (see
# run-suite.sh).
# bed: light - the adb protocol on the wire from a raw host, which the unit
#   does not change; adb under the unit: t-adb-gadgetd
. "$SRC/tests/loopback/lib.sh"

D=/run/adb-wire
rm -rf "$D"
mkdir -p "$D"
gd_install
cat > /etc/gadgetd/profiles/adbwire.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "adb wire test"; serial = "ADBWIRE1"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb"; user = "root"; options: { auth = "off"; }; };
};
sets = ( { functions = [ "adb" ]; product_id = 0x01f6; } );
default = "adb";
P

gd_start adbwire
check "host sees the adb set" wait_usb 1d6b:01f6 20
adb_pid() { gd_status 'plugin("adb").pid'; }
PID0=$(adb_pid)
say "wire checks (adb worker pid $PID0)"
timeout 300 python3 "$SRC/tests/loopback/adb_wire.py" check 1d6b:01f6 "$D" > wire.txt 2>&1
rc=$?
cat wire.txt
CHECKS=$((CHECKS + $(grep -c '^ok: ' wire.txt)))
check "every wire check passed (exit $rc)" [ $rc = 0 ]
check "the driver ran the last check" grep -q '^ok: a window in OPEN without delayed_ack is refused' wire.txt
check "the adb worker never restarted (same pid $PID0)" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$PID0" "$(adb_pid)"
check "the log names the refused compressed pushes" \
	grep -q "push to $D/bad failed: truncated zstd data" "$GD_LOG"
finish
