# The adb plugin under gadgetd itself: a profile with adb auth on, an
# unknown host key shown by `gadgetctl adb keys` (a hostile comment
# escaped) and let in by `gadgetctl adb allow`, the state in `gadgetctl
# status`, and adb over the composite mtp,adb set: shell, push and pull;
# no kernel warning about the functions' MS OS descriptors.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

KEYS=/etc/gadgetd/adb_keys_t
export HOME=/run/adbg-home
rm -rf "$HOME" "$KEYS"
mkdir -p "$HOME"
gd_install
cat > /etc/gadgetd/profiles/adbauth.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "adb auth test"; serial = "ADBGD1"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb"; user = "root";
         options: { auth = "on"; keys = "$KEYS"; model = "authtest"; }; };
  mtp: { type = "ffs"; plugin = "mtp"; options: { storage0_path = "/srv/mtp"; storage0_create = true; }; };
};
sets = (
  { functions = [ "adb" ]; product_id = 0x01f0; },
  { functions = [ "mtp", "adb" ]; product_id = 0x01f1; }
);
default = "adb";
P

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT

# adb_status KEY VALUE: the adb plugin's status KEY starts with VALUE.
adb_status() {
	gd_status "plugin(\"adb\").status[\"$1\"] // \"\" | startswith(\"$2\")" ||
		{ gd_status; return 1; }
}

gd_start adbauth
check "host sees the adb set" wait_usb 1d6b:01f0 20

say "a key offered with DEL, a C1 CSI and a bidi override in its comment"
timeout 30 adb keygen "$HOME/evilkey" >/dev/null 2>&1
check "a raw host offers it" timeout 60 python3 "$SRC/tests/loopback/adb_pubkey.py" \
	1d6b:01f0 "$HOME/evilkey.pub"
timeout 10 gadgetctl adb keys > evilkeys.txt 2>&1
cat evilkeys.txt
check "gadgetctl adb keys shows the comment escaped" \
	grep -qF " evil\\x7f\\xc2\\x9b\\xe2\\x80\\xaegpj.exe" evilkeys.txt
check "no raw DEL, C1 or bidi control reaches the terminal" python3 -c '
import sys
d = open("evilkeys.txt", "rb").read()
sys.exit(any(b in d for b in (b"\x7f", b"\xc2\x9b", b"\xe2\x80\xae")))'

timeout 30 adb start-server >/dev/null 2>&1

say "unknown key: unauthorized, listed, allowed"
check "adb devices: unauthorized" adb_state ADBGD1 unauthorized
check "gadgetctl status: state unauthorized" adb_status state unauthorized
timeout 10 gadgetctl adb keys > keys.txt 2>&1
cat keys.txt
FP=$(cut -d' ' -f1 "$HOME/.android/adbkey.pub" | python3 -c \
	'import base64, hashlib, sys; d = hashlib.md5(base64.b64decode(sys.stdin.read())).hexdigest().upper(); print(":".join(d[i:i + 2] for i in range(0, 32, 2)))')
check "gadgetctl adb keys shows the MD5 fingerprint" grep -q "^$FP " keys.txt
CONNS=$(gd_log | grep -c "adb: host connected")
check_exit 0 "gadgetctl adb allow FP" sh -c "timeout 10 gadgetctl adb allow $FP > allow.txt 2>&1"
cat allow.txt
check "adb devices: device" adb_state ADBGD1 device
# The allow lets no host in on the key alone. adb 29 follows AOSP's flow:
# it signed the first token with its key, then offered the key's public
# half and waited. That signature proves it holds the key, so the allow
# brings it online at once, with no new token (issue 37: a host library
# that then waits for CNXN, as AOSP's adbd sends it, must not be left
# with a token it will not answer).
check "the allow says the waiting host had signed with the key" \
	grep -q "had signed a token with it: it is online" allow.txt
check "gadgetd's log says so" gd_log_has "had signed a token with the allowed key"
check "no new token was sent to it" \
	[ "$(gd_log | grep -c "sent the waiting host a new token")" = 0 ]
check "on the same connection (no reconnect)" \
	[ "$(gd_log | grep -c "adb: host connected")" = "$CONNS" ]
check "gadgetctl status: state device" adb_status state device
check "gadgetctl status: the host banner" adb_status host host::features=
check "the keys file holds the key" grep -q "$(cut -d' ' -f1 "$HOME/.android/adbkey.pub")" "$KEYS"
check "adb shell works" [ "$(timeout 20 adb shell echo hi)" = hi ]
check "model from the profile" sh -c "timeout 10 adb devices -l | grep -q model:authtest"
timeout 10 gadgetctl adb allow 00:11 > allow-bad.txt 2>&1
rc=$?
cat allow-bad.txt
check "allow of an unknown fingerprint fails" [ $rc != 0 ]
check "and says why" grep -q "no such pending key" allow-bad.txt

say "composite mtp,adb"
gd_switch mtp,adb
check "host sees mtp,adb" wait_usb 1d6b:01f1 20
check "adb is let in by its key after the switch" sh -c \
	"timeout 30 adb wait-for-device && [ \"\$(timeout 20 adb shell echo again)\" = again ]"
echo composite > composite.txt
check "push over the composite gadget" sh -c "timeout 60 adb push composite.txt /run/composite.txt >/dev/null"
check "pushed bytes arrived" cmp composite.txt /run/composite.txt
# 4 MiB each way, to a folder the unit leaves writable (/srv; /tmp is the
# service's own, /home read-only), read on the board's side too.
timeout 30 head -c 4194304 /dev/urandom > big.bin
check "adb push of 4 MiB" sh -c "timeout 120 adb push big.bin /srv/adb-big.bin >/dev/null"
check "the board has the bytes" cmp big.bin /srv/adb-big.bin
check "adb pull of them" sh -c "timeout 120 adb pull /srv/adb-big.bin big.back >/dev/null"
check "pulled bytes are the pushed ones" cmp big.bin big.back
rm -f /srv/adb-big.bin
# adb's and mtp's MS OS descriptors went in as the kernel wants them:
# 6.12's f_fs warns at a bcdVersion of 0x0001, 6.1's refuses 0x0100 (the
# worker writes 0x0100 and falls back: functions/runtime/ffs.h).
check "the kernel did not warn about the MS OS descriptors" sh -c "! dmesg | grep -q 'bcdVersion must be'"

finish
