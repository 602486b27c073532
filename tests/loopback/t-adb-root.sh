# adb root and unroot as on Android (issue 21). The shipped android.conf:
# adb's shell is the unprivileged gadgetd-adb, and `adb root` gets AOSP's
# production answer and changes nothing. The development board example
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
# The operator lets this host's key in, as on a real board.
timeout 20 adb keygen "$HOME/.android/adbkey" >/dev/null 2>&1 || die "adb keygen failed"
cp "$HOME/.android/adbkey.pub" /etc/gadgetd/adb_keys
ADB_UID=$(id -u gadgetd-adb) || die "no user gadgetd-adb"

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

say "the shipped profile: adb is gadgetd-adb, adb root is refused"
gd_start android
gd_switch adb
check "host sees the adb set (1d6b:0109)" wait_usb 1d6b:0109 20
timeout 30 adb start-server >/dev/null 2>&1
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
