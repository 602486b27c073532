# gadgetd.conf's lock_follow = "logind" (issue 43): the lock follows the
# LockedHint of seat0's active session, as logind tells it. Two users
# log in on tty2 and tty3 through PAM's login stack (pam_systemd makes
# the sessions) and set their hint with Session.SetLockedHint, as a
# desktop's locker does: gadgetctl status and D-Bus Locked follow the
# session in front; chvt to the other session follows its hint; no
# active session (tty1 in front), or a greeter's session in front, is
# locked. A manual gadgetctl unlock
# stands until the hint next changes (the last change wins). logind
# stopped: gadgetd says so once, and follows again when logind returns.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

gd_install
useradd -m -N gdhint2 2>/dev/null
useradd -m -N gdhint3 2>/dev/null
gd_config lock_follow '"logind"'

cleanup() { timeout 30 systemctl stop lh-tty2 lh-tty3 lh-tty4 >/dev/null 2>&1; }
trap cleanup EXIT

# prop NAME: gadgetd's D-Bus property NAME as busctl prints it.
prop() {
	timeout 10 busctl --system get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager "$1"
}
# locked_is true|false: gadgetctl status and D-Bus Locked say so within 10 s.
locked_is() {
	local lib_n=0
	until gd_status ".locked == $1" && [ "$(prop Locked)" = "b $1" ]; do
		[ $lib_n -ge 100 ] && { gd_status .locked; prop Locked; return 1; }
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
}
# login USER PATH VT [ARG]: USER logs in on ttyVT (VT in front), the
# session runs until stopped; its object path in the file PATH. ARG: one
# more systemd-run argument.
login() {
	timeout 10 busybox chvt "$3" || return 1
	rm -f "$2.id"
	# shellcheck disable=SC2016
	timeout 30 systemd-run --quiet --unit="lh-tty$3" --collect ${4:+"$4"} -p PAMName=login -p User="$1" \
		-p TTYPath="/dev/tty$3" -p StandardInput=tty -p StandardOutput=file:"$PWD/$2.id" \
		/bin/sh -c 'echo "$XDG_SESSION_ID"; exec sleep 300' || return 1
	local lib_n=0
	until [ -s "$2.id" ]; do
		[ $lib_n -ge 100 ] && return 1
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
	timeout 10 busctl --system call org.freedesktop.login1 /org/freedesktop/login1 \
		org.freedesktop.login1.Manager GetSession s "$(cat "$2.id")" | sed 's/^o "\(.*\)"$/\1/' >"$2"
	echo "[$1 on tty$3] session $(cat "$2.id") $(cat "$2")"
	grep -q '^/org/freedesktop/login1/session/' "$2"
}
# hint USER PATH true|false: USER's SetLockedHint on its session.
hint() {
	setpriv --reuid="$1" --regid=nogroup --init-groups timeout 10 busctl --system call \
		org.freedesktop.login1 "$(cat "$2")" org.freedesktop.login1.Session SetLockedHint b "$3"
}

timeout 10 busybox chvt 1
gd_start lab
say "no active session on seat0 (tty1 in front): locked"
check "locked" locked_is true
check "gadgetd said why" gd_log_has "lock_follow: no active session on seat0: locking"

say "a user logs in on tty2: its hint (false) unlocks"
check "gdhint2 logs in on tty2" login gdhint2 s2 2
check "unlocked" locked_is false
check "SetLockedHint true, as gdhint2" hint gdhint2 s2 true
check "locked" locked_is true
check "the log says the hint locked" gd_log_has "the active session's LockedHint: locking"
check "SetLockedHint false" hint gdhint2 s2 false
check "unlocked" locked_is false

say "a manual change stands until the hint changes (the last change wins)"
check "SetLockedHint true" hint gdhint2 s2 true
check "locked" locked_is true
check_exit 0 "gadgetctl unlock" timeout 10 gadgetctl unlock
check "unlocked" locked_is false
sleep 0.5
check "still unlocked 0.5 s later" locked_is false
check "SetLockedHint false" hint gdhint2 s2 false
check "SetLockedHint true" hint gdhint2 s2 true
check "locked again" locked_is true

say "another user on tty3: chvt follows the session in front"
check "gdhint3 logs in on tty3 (hint false)" login gdhint3 s3 3
check "unlocked" locked_is false
check "chvt 2: gdhint2's session (hint true)" timeout 10 busybox chvt 2
check "locked" locked_is true
check "chvt 3: gdhint3's session (hint false)" timeout 10 busybox chvt 3
check "unlocked" locked_is false
check "chvt 1: no active session" timeout 10 busybox chvt 1
check "locked" locked_is true
check "chvt 3" timeout 10 busybox chvt 3
check "unlocked" locked_is false
say "a display manager's greeter in front (its hint false): locked"
check "a greeter session on tty4" login gdhint3 s4 4 -pEnvironment=XDG_SESSION_CLASS=greeter
check "locked" locked_is true
check "gadgetd said why" gd_log_has "lock_follow: seat0's active session is a greeter's: locking"

say "logind stopped: said once; followed again when it returns"
check_exit 0 "gadgetctl unlock" timeout 10 gadgetctl unlock
check "systemctl stop systemd-logind" timeout 30 systemctl stop systemd-logind.service
check "gadgetd said logind left" gd_log_has "lock_follow: logind left the system bus"
gd_start
check "gadgetd restarted without logind said so" gd_log_has "lock_follow: logind (org.freedesktop.login1) is not on the system bus"
check "once" [ "$(gd_log | grep -c "lock_follow: logind (org.freedesktop.login1) is not on")" = 1 ]
check "the lock is left as it was (unlocked)" locked_is false
check "systemctl start systemd-logind" timeout 30 systemctl start systemd-logind.service
check "gadgetd saw logind come" gd_log_has "lock_follow: logind is on the system bus"
check "the greeter in front: locked" locked_is true
check "chvt 3: gdhint3's session (hint false)" timeout 10 busybox chvt 3
check "unlocked" locked_is false
check "gadgetd is alive" kill -0 "$GD_PID"
finish
