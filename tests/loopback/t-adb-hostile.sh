# A hostile USB host against adb with auth on (tests/loopback/adb_hostile.py):
# a known public key without its private key, a wrong key, a truncated, a
# late, a replayed and a stale signature, and 10 000 random packets before
# auth. None may get a stream; the honest host still does. gadgetd and the
# adb worker survive it all. Then an impostor signs a token with a key of
# its own, offers another real host's public key, and stays out after
# `gadgetctl adb allow` (it never signed with that key), while that host's
# own adb 29 gets in with the key. Runs in the guest (see
# run-suite.sh).
# bed: light - a hostile host against the adb worker, whose parsing the unit
#   does not change; adb under the unit: t-adb-gadgetd
. "$SRC/tests/loopback/lib.sh"

KEYDIR=/run/adb-hostile
rm -rf "$KEYDIR"
mkdir -p "$KEYDIR"
gd_install
# The board's adb_keys holds the honest host's public key.
HOME=$KEYDIR timeout 60 adb keygen "$KEYDIR/adbkey" >/dev/null 2>&1 ||
	die "adb keygen failed"
cp "$KEYDIR/adbkey.pub" /etc/gadgetd/adb_keys_hostile
# Root's, as gadgetd keeps it: gadgetd appends on `gadgetctl adb allow`.
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
check "the adb worker never crashed (same pid $PID0)" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$PID0" "$(adb_pid)"
check "the log names the known key offered without a signature" \
	grep -q "offered known key .* without signing" "$GD_LOG"

say "a banner with terminal escapes reaches status as printable text"
check "the evil CNXN is sent" timeout 60 python3 "$SRC/tests/loopback/adb_hostile.py" banner 1d6b:01f4
echo "host: $(gd_status 'plugin("adb").status.host | @json')"
check "status shows the banner" gd_status 'plugin("adb").status.host // "" | test("^host::.*evil.*banner")'
check "with no ESC, CR, BEL or NUL left in it" \
	gd_status '[plugin("adb").status.host | explode[] | select(. == 27 or . == 13 or . == 7 or . == 0)] | length == 0'
check "and the log has none either" sh -c "! grep -q \"\$(printf '\\033')\" '$GD_LOG'"

say "an impostor signs with its own key, offers a real host's public key, and is allowed"
# The victim: a real adb 29 host whose public key the impostor saw.
VHOME=$KEYDIR/victim
mkdir -p "$VHOME/.android"
HOME=$VHOME timeout 60 adb keygen "$VHOME/.android/adbkey" >/dev/null 2>&1 ||
	die "adb keygen failed"
VPUB=$(cut -d' ' -f1 "$VHOME/.android/adbkey.pub")
VFP=$(printf '%s' "$VPUB" | python3 -c \
	'import base64, hashlib, sys; d = hashlib.md5(base64.b64decode(sys.stdin.read())).hexdigest().upper(); print(":".join(d[i:i + 2] for i in range(0, 32, 2)))')
timeout 120 python3 "$SRC/tests/loopback/adb_hostile.py" impostor 1d6b:01f4 \
	"$VHOME/.android/adbkey.pub" \
	"timeout 10 gadgetctl adb allow $VFP > $PWD/impostor-allow.txt 2>&1" \
	"timeout 10 gadgetctl status --json > $PWD/impostor-status.json && timeout 10 gadgetctl adb keys > $PWD/impostor-keys.txt" \
	> impostor.txt 2>&1
rc=$?
cat impostor.txt impostor-allow.txt impostor-keys.txt
CHECKS=$((CHECKS + $(grep -c '^ok: ' impostor.txt)))
check "the impostor got a token, never CNXN (exit $rc)" [ $rc = 0 ]
check "the impostor's checks ran" grep -q '^ok: impostor: after the allow: no CNXN' impostor.txt
check "the allow says the host must sign a new token" grep -q "signs a new token" impostor-allow.txt
check "while it waited after the allow, status said unauthorized" jq -e \
	'first(.plugins[] | select(.name == "adb")).status.state == "unauthorized"' impostor-status.json
check "adb keys lists the key no more: it is trusted" sh -c "! grep -q '^$VFP ' impostor-keys.txt"
check "the key went to adb_keys, on a line of its own" grep -q "^$VPUB" /etc/gadgetd/adb_keys_hostile
check "the log says the waiting host was sent a new token" \
	grep -q "sent the waiting host a new token" "$GD_LOG"

say "the key's owner, adb 29, gets in with no further step"
export HOME=$VHOME
timeout 30 adb start-server >/dev/null 2>&1
check "adb devices: ADBHOST1 device" adb_state ADBHOST1 device 30
check "adb shell works" [ "$(timeout 20 adb shell echo hi)" = hi ]
timeout 10 adb kill-server >/dev/null 2>&1
finish
