# The lock state (issue 43): `gadgetctl lock` and `unlock` for root and
# admin_group, refused to gadgetd.conf's group and to anyone else with
# exit 4 and a sentence; the state in `gadgetctl status` (text and JSON),
# as `gadgetctl monitor` events, and over D-Bus (the Locked property, its
# PropertiesChanged, Lock and Unlock, refused to a user polkit does not
# let). adb 29 with a trusted key, connecting while locked, stays
# "unauthorized" in `adb devices`; after unlock it is "device" on the
# same connection (no new CNXN, no re-enumeration). A session open at
# lock is kept (lock_close's default). The lock survives a restart of
# gadgetd: a host connecting then is held again.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

KEYS=/etc/gadgetd/adb_keys_lock
export HOME=/run/adblock-home
rm -rf "$HOME" "$KEYS"
mkdir -p "$HOME/.android"
gd_install
useradd -M -N -G plugdev gdlgrp 2>/dev/null
useradd -M -N gdlother 2>/dev/null
cat > /etc/gadgetd/profiles/locktest.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "lock test"; serial = "LOCK1"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb"; user = "root";
         options: { keys = "$KEYS"; model = "locktest"; }; };
};
sets = ( { functions = [ "adb" ]; product_id = 0x01f4; } );
default = "adb";
P
# The host's key is trusted: what keeps it out below is the lock alone.
timeout 30 adb keygen "$HOME/.android/adbkey" >/dev/null 2>&1
cp "$HOME/.android/adbkey.pub" "$KEYS"

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT

adb_status() {
	gd_status "plugin(\"adb\").status[\"$1\"] // \"\" | startswith(\"$2\")" ||
		{ gd_status; return 1; }
}
# as USER CMD...: CMD as USER (with USER's groups); its output in as.txt.
as() {
	local lib_u=$1
	shift
	setpriv --reuid="$lib_u" --regid=nogroup --init-groups "$@" >as.txt 2>&1
	local lib_rc=$?
	echo "[$lib_u $*] rc $lib_rc: $(cat as.txt)"
	return $lib_rc
}
prop() {
	timeout 10 busctl --system get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager "$1"
}
# dbus_lock_denied USER: USER's Lock call fails with AccessDenied.
dbus_lock_denied() {
	as "$1" timeout 30 gdbus call --system --dest org.gadgetd1 \
		--object-path /org/gadgetd1 --method org.gadgetd1.Manager.Lock && return 1
	grep -q "org.freedesktop.DBus.Error.AccessDenied" as.txt
}
# wait_file FILE PATTERN: an extended regular expression in FILE within 5 s.
wait_file() {
	local lib_n=0
	until grep -Eq "$2" "$1"; do
		[ $lib_n -ge 50 ] && { cat "$1"; return 1; }
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
}

gd_start locktest
check "host sees the adb set" wait_usb 1d6b:01f4 20
check "status: unlocked at first" gd_status '.locked == false'
check "D-Bus: Locked is false" [ "$(prop Locked)" = "b false" ]
gadgetctl monitor >mon.txt 2>mon.err &
dbus-monitor --system "type='signal',member='PropertiesChanged',path='/org/gadgetd1'" \
	>sig.txt 2>&1 &
sleep 0.5

say "who may lock"
check_exit 4 "gadgetd.conf's group: gadgetctl lock refused (exit 4)" as gdlgrp timeout 10 gadgetctl lock
check "with a sentence naming lock and who may" grep -q "permission denied: lock is for root" as.txt
check_exit 4 "anyone else: gadgetctl unlock refused (exit 4)" as gdlother timeout 10 gadgetctl unlock
check "with a sentence" grep -q "permission denied" as.txt
check "D-Bus: the group's Lock is refused as AccessDenied" dbus_lock_denied gdlgrp
check "still unlocked" gd_status '.locked == false'
check_exit 2 "gadgetctl lock takes no arguments (exit 2)" timeout 10 gadgetctl lock now

say "locked: a new adb host stays unauthorized"
check_exit 0 "root: gadgetctl lock" timeout 10 gadgetctl lock
check "status --json: locked" gd_status '.locked == true'
check "status: \"locked: yes\"" sh -c "timeout 10 gadgetctl status | grep -qx 'locked: yes'"
check "monitor: a lock event" wait_file mon.txt ' lock locked'
check "D-Bus: Locked is true" [ "$(prop Locked)" = "b true" ]
check "PropertiesChanged named Locked" wait_file sig.txt 'string "Locked"'
CONNS0=$(gd_log | grep -c "adb: host connected")
DEV=$(usb_devnum 1d6b:01f4)
timeout 30 adb start-server >/dev/null 2>&1
check "adb devices: unauthorized" adb_state LOCK1 unauthorized 20
check "gadgetd held it for the lock" gd_log_has "locked: the host stays unauthorized until unlock"
sleep 2
check "still unauthorized 2 s later" adb_state LOCK1 unauthorized 1
check "status: adb unauthorized" adb_status state unauthorized
check "adb shell fails while locked" sh -c "! timeout 10 adb -s LOCK1 shell echo hi"

say "unlock: the same connection becomes a device"
CONNS=$(gd_log | grep -c "adb: host connected")
check "the host connected while locked" [ "$CONNS" -gt "$CONNS0" ]
check_exit 0 "root: gadgetctl unlock" timeout 10 gadgetctl unlock
check "adb devices: device" adb_state LOCK1 device 20
check "gadgetd let it in at the unlock" gd_log_has "adb: unlocked: the waiting host is online"
check "no new connection (no CNXN again)" [ "$(gd_log | grep -c "adb: host connected")" = "$CONNS" ]
check "no re-enumeration (same devnum)" [ "$(usb_devnum 1d6b:01f4)" = "$DEV" ]
check "adb shell works" [ "$(timeout 20 adb -s LOCK1 shell echo hi)" = hi ]
check "monitor: an unlock event" wait_file mon.txt ' lock unlocked'
check "status --json: unlocked" gd_status '.locked == false'

say "lock with a session open: kept (lock_close = false)"
check_exit 0 "root: gadgetctl lock" timeout 10 gadgetctl lock
check "adb shell still works on the open session" [ "$(timeout 20 adb -s LOCK1 shell echo kept)" = kept ]
check_exit 0 "gadgetctl lock again: already locked" timeout 10 gadgetctl lock

say "the lock survives a restart of gadgetd"
gd_start
check "status: still locked after the restart" gd_status '.locked == true'
check "gadgetd said why" gd_log_has "locked, as gadgetd was when it stopped"
# The restart re-enumerated the gadget: the adb server connects anew.
check "adb devices: unauthorized again" adb_state LOCK1 unauthorized 20

say "D-Bus: Unlock and Lock as root"
: >sig.txt
check "root: Unlock" timeout 30 gdbus call --system --dest org.gadgetd1 \
	--object-path /org/gadgetd1 --method org.gadgetd1.Manager.Unlock
check "D-Bus: Locked is false" [ "$(prop Locked)" = "b false" ]
check "adb devices: device" adb_state LOCK1 device 20
check "root: Lock" timeout 30 gdbus call --system --dest org.gadgetd1 \
	--object-path /org/gadgetd1 --method org.gadgetd1.Manager.Lock
check "status: locked" gd_status '.locked == true'
check "PropertiesChanged named Locked" wait_file sig.txt 'string "Locked"'
check_exit 0 "unlocked at the end" timeout 10 gadgetctl unlock

finish
