# adb root and unroot as on Android (issue 21). The shipped android.conf:
# adb's shell is the unprivileged gadgetd-adb, and `adb root` gets AOSP's
# production answer and changes nothing. The keys file is root's (issue
# 37): the worker takes back one an older gadgetd gave gadgetd-adb,
# `gadgetctl adb allow` adds the key through gadgetd, and an allowed
# host's shell can neither add a key nor empty the file, so an admin's
# revoke holds. The development board example
# (devboard.conf, root = "allowed"): `adb root` restarts the function as
# root, the host's adb sees the device go and come back, the shell is
# uid 0; `adb unroot` brings gadgetd-adb back. Runs in the guest (see
# run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

export HOME=/run/adbroot-home
rm -rf "$HOME"
mkdir -p "$HOME/.android"
gd_install
timeout 20 adb keygen "$HOME/.android/adbkey" >/dev/null 2>&1 || die "adb keygen failed"
ADB_UID=$(id -u gadgetd-adb) || die "no user gadgetd-adb"
KEYS=/etc/gadgetd/adb_keys
KEY=$(cut -d' ' -f1 "$HOME/.android/adbkey.pub")
FP=$(printf %s "$KEY" | python3 -c \
	'import base64, hashlib, sys; d = hashlib.md5(base64.b64decode(sys.stdin.read())).hexdigest().upper(); print(":".join(d[i:i + 2] for i in range(0, 32, 2)))')
# The keys file as gadgetd before issue 37 made it: gadgetd-adb's own.
rm -f "$KEYS"
install -o gadgetd-adb -g gadgetd-adb -m 600 /dev/null "$KEYS" || die "cannot make $KEYS"

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT

# shell_uid: what `adb shell id -u` prints (nothing if no shell answers).
shell_uid() { timeout -k 5 20 adb shell id -u </dev/null 2>/dev/null | tr -d '\r'; }
# adb_root_status VALUE: gadgetctl status --json shows adb's root as VALUE.
adb_root_status() {
	gd_status "plugin(\"adb\").root == \"$1\"" || { gd_status; return 1; }
}
# adb_says CMD TEXT: `adb CMD` exits 0 and prints TEXT (and the host's
# adb has waited for the device to go and come back if it said so).
adb_says() {
	local t_rc
	timeout -k 5 40 adb "$1" > "$1.txt" 2>&1 </dev/null
	t_rc=$?
	cat "$1.txt"
	[ $t_rc = 0 ] && grep -qxF "$2" "$1.txt"
}
# device_back: adb sees the device again and a shell answers.
device_back() {
	timeout 30 adb wait-for-device </dev/null && adb_state GADGETD0001 device 20 &&
		[ -n "$(shell_uid)" ]
}

# shell_refused CMD: an adb shell (gadgetd-adb) ran CMD, which failed.
shell_refused() {
	local out
	out=$(timeout 20 adb shell "$1 2>&1 && echo wrote || echo refused" </dev/null | tr -d '\r')
	echo "  adb shell: $out"
	printf '%s\n' "$out" | tail -n 1 | grep -qx refused
}
# allow_key: the admin lets the waiting host in (gadgetd adds the key).
allow_key() {
	adb_state GADGETD0001 unauthorized 20 &&
		timeout 10 gadgetctl adb keys | grep -q "^$FP " &&
		timeout 10 gadgetctl adb allow "$FP" && adb_state GADGETD0001 device 20
}

say "the shipped profile: the keys file is root's, adb is gadgetd-adb"
gd_start android
gd_switch adb
check "host sees the adb set (1d6b:0109)" wait_usb 1d6b:0109 20
check "the worker took the keys file back: root's, its group may read" \
	[ "$(stat -c %U:%G:%a "$KEYS")" = root:gadgetd-adb:640 ]
timeout 30 adb start-server >/dev/null 2>&1
check "gadgetctl adb allow lets the host in" allow_key
check "gadgetd added the key to the keys file" grep -q "^$KEY" "$KEYS"
check "the keys file is still root's" [ "$(stat -c %U:%a "$KEYS")" = root:640 ]
cp "$KEYS" keys.before
timeout 20 adb keygen "$HOME/rogue" >/dev/null 2>&1
check "adb shell cannot add a key to the keys file" \
	shell_refused "echo '$(cut -d' ' -f1 "$HOME/rogue.pub") rogue' >> $KEYS"
check "adb shell cannot empty the keys file" shell_refused "true > $KEYS"
check "adb shell cannot replace the keys file" \
	shell_refused "cp /dev/null $KEYS.new && mv $KEYS.new $KEYS"
check "the keys file is as gadgetd left it" cmp "$KEYS" keys.before
say "the admin revokes the key"
sed -i "\|^$KEY|d" "$KEYS"
timeout 10 adb kill-server >/dev/null 2>&1
timeout 30 adb start-server >/dev/null 2>&1
check "after the revoke the host is refused" adb_state GADGETD0001 unauthorized 20
check "and has no shell" sh -c "! timeout 10 adb shell true </dev/null 2>/dev/null"
check "allowed again" allow_key
check "adb devices: device (key in adb_keys)" adb_state GADGETD0001 device 20
uid=$(shell_uid)
echo "adb shell id -u: $uid (gadgetd-adb is $ADB_UID)"
check "adb shell runs as gadgetd-adb, not root" [ "$uid" = "$ADB_UID" ]
check "adb shell cannot write root's files" \
	[ "$(timeout 20 adb shell 'echo x > /etc/gadgetd/owned 2>/dev/null && echo wrote' </dev/null | tr -d '\r')" != wrote ]
check "nothing was written" test ! -e /etc/gadgetd/owned
check "gadgetctl status: adb root refused" adb_root_status refused
pid=$(gd_status 'plugin("adb").pid')
check "adb root: the production answer" \
	adb_says root "adbd cannot run as root in production builds"
check "the shell is still gadgetd-adb" [ "$(shell_uid)" = "$ADB_UID" ]
check "the worker was not restarted" [ "$(gd_status 'plugin("adb").pid')" = "$pid" ]
check "adb unroot: not running as root" adb_says unroot "adbd not running as root"

say "the development board: adb root and back"
gd_example devboard
gd_switch --profile devboard adb
check "host sees the adb set again" wait_usb 1d6b:0109 20
check "adb comes back" device_back
check "adb shell runs as gadgetd-adb" [ "$(shell_uid)" = "$ADB_UID" ]
check "gadgetctl status: adb root allowed" adb_root_status allowed
check "adb root: restarting" adb_says root "restarting adbd as root"
check "adb comes back after adb root" device_back
check "adb shell id -u is 0" [ "$(shell_uid)" = 0 ]
check "and may write root's files" \
	[ "$(timeout 20 adb shell 'echo x > /etc/gadgetd/owned && echo wrote' </dev/null | tr -d '\r')" = wrote ]
rm -f /etc/gadgetd/owned
check "gadgetctl status: adb root active" adb_root_status active
check "the restart is no crash" gd_status 'plugin("adb").restarts == 0 and plugin("adb").failed == ""'
timeout 10 gadgetctl status > status.txt 2>&1
cat status.txt
check "gadgetctl status text says adb root active" grep -q "adb root active" status.txt
check "adb root again: already root" adb_says root "adbd is already running as root"
check "adb unroot: restarting" adb_says unroot "restarting adbd as non root"
check "adb comes back after adb unroot" device_back
check "adb shell runs as gadgetd-adb again" [ "$(shell_uid)" = "$ADB_UID" ]
check "gadgetctl status: adb root allowed again" adb_root_status allowed

finish
