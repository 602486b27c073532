# A hostile USB host against adb with auth on (tests/loopback/adb_hostile.py):
# a known public key without its private key, a wrong key, a truncated, a
# late, a replayed and a stale signature, and 10 000 random packets before
# auth. None may get a stream; the honest host still does. gadgetd and the
# adb worker survive it all. Runs in the guest (see run-suite.sh).
. "$SRC/tests/loopback/lib.sh"

KEYDIR=/run/adb-hostile
rm -rf "$KEYDIR"
mkdir -p "$KEYDIR"
gd_install
# The board's adb_keys holds the honest host's public key.
HOME=$KEYDIR timeout 60 adb keygen "$KEYDIR/adbkey" >/dev/null 2>&1 ||
	die "adb keygen failed"
cp "$KEYDIR/adbkey.pub" /etc/gadgetd/adb_keys_hostile
cat > /etc/gadgetd/profiles/adbhostile.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "adb hostile test"; serial = "ADBHOST1"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb";
         options: { auth = "on"; keys = "/etc/gadgetd/adb_keys_hostile"; }; };
};
sets = ( { functions = [ "adb" ]; product_id = 0x01f4; } );
default = "adb";
P

gd_start adbhostile
check "host sees the adb set" wait_usb 1d6b:01f4 20
adb_pid() { gd_status 'plugin("adb").pid'; }
PID0=$(adb_pid)
say "attacks (adb worker pid $PID0)"
timeout 600 python3 "$SRC/tests/loopback/adb_hostile.py" attacks 1d6b:01f4 \
	"$KEYDIR/adbkey" --random 10000 > hostile.txt 2>&1
rc=$?
cat hostile.txt
CHECKS=$((CHECKS + $(grep -c '^ok: ' hostile.txt)))
check "every attack failed and the honest host got in (exit $rc)" [ $rc = 0 ]
check "the hostile host printed its checks" grep -q '^ok: honest host: shell stream works' hostile.txt
check "gadgetd is still running" kill -0 "$GD_PID"
check "the adb worker never crashed (same pid $PID0)" [ -n "$PID0" ] && [ "$(adb_pid)" = "$PID0" ]
check "the log names the known key offered without a signature" \
	grep -q "offered known key .* without signing" "$GD_LOG"

say "a banner with terminal escapes reaches status as printable text"
check "the evil CNXN is sent" timeout 60 python3 "$SRC/tests/loopback/adb_hostile.py" banner 1d6b:01f4
echo "host: $(gd_status 'plugin("adb").status.host | @json')"
check "status shows the banner" gd_status 'plugin("adb").status.host // "" | test("^host::.*evil.*banner")'
check "with no ESC, CR, BEL or NUL left in it" \
	gd_status '[plugin("adb").status.host | explode[] | select(. == 27 or . == 13 or . == 7 or . == 0)] | length == 0'
check "and the log has none either" sh -c "! grep -q \"\$(printf '\\033')\" '$GD_LOG'"
finish
