# gadgetd's D-Bus API (gadgetd-dbus(7)) on the system bus as systemd
# runs it, with polkitd (started by D-Bus on demand) and logind: root,
# gadgetd.conf's group, a group a polkit rule grants, anyone else, and
# the policy's own defaults for a user logged in on a virtual console
# through pam_systemd (allow_active while the session is in the
# foreground, allow_inactive once another console is; hid's input is
# org.gadgetd1.drive, not the read-only query). Also: gadgetd
# started with the bus stopped, and joining it when it returns;
# malformed calls, PropertiesChanged during a switch, a host unplug (the
# UDC removed) and a worker restart; a member's switch queued behind
# root's switch to another profile, refused when it runs. Runs in the guest (see
# run-suite.sh), gadgetd from make install and its unit.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

gd_install
# gdgrp: gadgetd.conf's group (plugdev); gdpk: in gdpolkit, which the
# rule below lets turn the gadget off, change profile and run plugin
# commands; gdother: nothing; gdseat: logs in on tty2.
groupadd -f gdpolkit
useradd -M -N -G plugdev gdgrp 2>/dev/null
useradd -M -N -G gdpolkit gdpk 2>/dev/null
useradd -M -N gdother 2>/dev/null
useradd -m -N gdseat 2>/dev/null
mkdir -p /etc/polkit-1/rules.d
cat > /etc/polkit-1/rules.d/50-gdpolkit.rules <<'RULE'
polkit.addRule(function(action, subject) {
    if ((action.id == "org.gadgetd1.off" ||
         action.id == "org.gadgetd1.switch-profile" ||
         action.id == "org.gadgetd1.command") && subject.isInGroup("gdpolkit"))
        return polkit.Result.YES;
});
RULE

# on_bus NAME: until NAME is on the bus (at most 20 s).
on_bus() {
	local lib_i=0
	while [ $lib_i -lt 200 ]; do
		timeout 5 gdbus call --system --dest org.freedesktop.DBus \
			--object-path /org/freedesktop/DBus \
			--method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null |
			grep -q true && return 0
		sleep 0.1
		lib_i=$((lib_i + 1))
	done
	return 1
}

say "the bus stopped: gadgetd starts without it, then joins it"
check "systemctl stop dbus" timeout 60 systemctl stop dbus.socket dbus.service
# Long enough to queue three requests behind a held command (below).
gd_config command_timeout 30000
gd_start lab
check "gadgetd works without a bus" gd_status '.set == "acm,ecm"'
check "and said so" gd_log_has "dbus: no system bus"
check "once" [ "$(gd_log | grep -c "dbus: no system bus")" = 1 ]
check "systemctl start dbus" timeout 60 systemctl start dbus.socket dbus.service
# gadgetd tries again every 10 s (gadgetd-dbus(7)).
check "gadgetd is on the bus within 20 s" on_bus org.gadgetd1
check "and logged it" gd_log_has "dbus: on the system bus as org.gadgetd1"
check "it is still the first gadgetd" [ "$(systemctl show -p MainPID --value gadgetd)" = "$GD_PID" ]
# logind on the new bus, for the seat's sessions below. systemd 252's
# logind stops with the bus (its unit's dependency), and the bus starts
# it again when it is first asked. 257's keeps running but never rejoins
# the new bus. dbus-daemon's activation of org.freedesktop.login1 then
# times out after 25 s, and pam_systemd makes no session (the trixie
# bed, 2026-12-07). A logind that runs with its name unowned is
# restarted, as a system would need after its bus was restarted. This is
# decided by what systemd and the bus say, not by a version.
if [ "$(systemctl is-active systemd-logind.service)" = active ] &&
	! timeout 5 gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
		--method org.freedesktop.DBus.NameHasOwner org.freedesktop.login1 2>/dev/null | grep -q true; then
	say "logind runs but is not on the restarted bus: systemctl restart systemd-logind"
	timeout 60 systemctl restart systemd-logind.service
fi
check "logind answers on the bus" timeout 30 gdbus call --system --dest org.freedesktop.login1 \
	--object-path /org/freedesktop/login1 --method org.freedesktop.DBus.Peer.Ping

# call USER METHOD ARGS...: the manager's METHOD by gdbus as USER (GVariant
# text arguments); its output in call.txt, gdbus's exit status.
call() {
	local lib_u=$1 lib_m=$2
	shift 2
	if [ "$lib_u" = root ]; then
		timeout 60 gdbus call --system --dest org.gadgetd1 --object-path /org/gadgetd1 \
			--method "org.gadgetd1.Manager.$lib_m" "$@" >call.txt 2>&1
	else
		setpriv --reuid="$lib_u" --regid=nogroup --init-groups timeout 60 gdbus call \
			--system --dest org.gadgetd1 --object-path /org/gadgetd1 \
			--method "org.gadgetd1.Manager.$lib_m" "$@" >call.txt 2>&1
	fi
	local lib_rc=$?
	echo "[$lib_u $lib_m $*] $(cat call.txt)"
	return $lib_rc
}
# denied USER METHOD ARGS...: AccessDenied, nothing else.
denied() {
	call "$@" && return 1
	grep -q "org.freedesktop.DBus.Error.AccessDenied" call.txt
}
# plugin_said USER METHOD ARGS...: the call was let through, and the
# adb plugin answered that it has no such pending key.
plugin_said() {
	call "$@"
	grep -q "no such pending key" call.txt
}
# prop NAME: the manager's property NAME, as busctl prints it (s "acm").
prop() {
	timeout 10 busctl --system get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager "$1"
}
# is NAME VALUE: the property NAME is the string VALUE.
is() {
	[ "$(prop "$1")" = "s \"$2\"" ]
}
isnt() { ! is "$@"; }

say "root"
dbus-monitor --system "type='signal',member='PropertiesChanged',path='/org/gadgetd1'" \
	>monitor.txt 2>&1 &
MON=$!
sleep 0.5
check "root: Switch acm" call root Switch "'acm'"
check "Set is acm" is Set acm
check "gadgetctl status agrees" gd_status '.set == "acm"'
n=0
while ! grep -q 'string "Set"' monitor.txt && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
check "PropertiesChanged named Set during the switch" grep -q 'string "Set"' monitor.txt
check "with the new set" grep -q 'string "acm"' monitor.txt

say "gadgetd.conf's group (plugdev)"
check "gdgrp: Switch ncm" call gdgrp Switch "'ncm'"
check "Set is ncm" is Set ncm
check "gdgrp: SwitchProfile is refused" denied gdgrp SwitchProfile "'android'" "''"
check "gdgrp: Off is refused" denied gdgrp Off
check "gdgrp: adb allow is refused" denied gdgrp Command "'adb'" "['allow', '00:11']"
check "gdgrp: Reload is refused" denied gdgrp Reload
check "nothing changed" is Set ncm
check "and the profile is lab" is Profile lab

say "another user"
check "gdother: Switch is refused" denied gdother Switch "'acm'"
check "gdother: Off is refused" denied gdother Off
check "gdother: adb allow is refused" denied gdother Command "'adb'" "['allow', '00:11']"
check "the refusal says polkit was asked" grep -q "polkit did not authorize org.gadgetd1.command" call.txt
check "nothing changed" is Set ncm

say "a user logged in on tty2 (logind, pam_systemd): the policy's defaults"
# seat_call VT METHOD ARGS...: with VT in the foreground of seat0, gdseat
# logs in on tty2 through PAM's login stack (pam_systemd makes the
# session), and the session's process calls METHOD: gdbus's output in
# call.txt, the session as logind saw it in session.txt; the status is
# gdbus's.
seat_call() {
	local lib_vt=$1
	shift
	timeout 10 busybox chvt "$lib_vt" || return 1
	rm -f seat.txt
	# shellcheck disable=SC2016
	timeout 90 systemd-run --quiet --wait --collect -p PAMName=login -p User=gdseat \
		-p TTYPath=/dev/tty2 -p StandardInput=tty -p StandardOutput=file:"$PWD/seat.txt" \
		-p StandardError=inherit /bin/sh -c '
		loginctl show-session "$XDG_SESSION_ID" -p Active -p Seat -p VTNr -p Type |
			sed "s/^/SESSION /"
		m=$1
		shift
		timeout 60 gdbus call --system --dest org.gadgetd1 --object-path /org/gadgetd1 \
			--method "org.gadgetd1.Manager.$m" "$@" 2>&1
		echo "RC $?"' sh "$@"
	sed -n 's/^SESSION //p' seat.txt > session.txt
	grep -v '^SESSION \|^RC ' seat.txt > call.txt
	echo "[gdseat on tty2, tty$lib_vt in front: $*] $(cat call.txt)"
	tr '\n' ' ' < session.txt; echo
	grep -qx "RC 0" seat.txt
}
# gdseat's systemd --user, kept between the logins: each login of a
# user with none started one and stopped it at the logout, 2-3 s of the
# guest's vCPU each (journal: "systemd[PID]: Startup finished in 2.4s",
# five times, 2026-12-07). The sessions themselves are unchanged.
timeout 60 loginctl enable-linger gdseat
active_tty_session() { grep -qx Active=yes session.txt && grep -qx Seat=seat0 session.txt && grep -qx VTNr=2 session.txt; }
check "tty2 in front: gdseat may Switch acm,ecm (allow_active = yes)" seat_call 2 Switch "'acm,ecm'"
check "logind saw an active tty session on seat0, VT 2" active_tty_session
check "Set is acm,ecm" is Set acm,ecm
seat_call 2 Off
check "tty2 in front: Off is refused (auth_admin, no agent)" grep -q "org.freedesktop.DBus.Error.AccessDenied" call.txt
check "State is still configured" isnt State off
seat_call 1 Switch "'ncm'"
check "tty1 in front: the session is not active" grep -qx Active=no session.txt
check "tty1 in front: Switch is refused (allow_inactive = no)" grep -q "org.freedesktop.DBus.Error.AccessDenied" call.txt
check "Set is still acm,ecm" is Set acm,ecm
# Typing into the attached computer is not a query: its own action
# (org.gadgetd1.drive, auth_admin_keep), while hid leds only reads.
gd_example kvm
check "root: SwitchProfile kvm hid" call root SwitchProfile "'kvm'" "'hid'"
seat_call 2 Command "'hid'" "['leds']"
check "tty2 in front: hid leds is a query (allow_active = yes)" grep -qx "RC 0" seat.txt
seat_call 2 Command "'hid'" "['type', 'x']"
check "tty2 in front: hid type is refused (org.gadgetd1.drive, auth_admin_keep)" \
	grep -q "org.freedesktop.DBus.Error.AccessDenied.*org.gadgetd1.drive" call.txt
check "gdgrp (gadgetd.conf's group) may type" call gdgrp Command "'hid'" "['type', 'x']"
check "root: SwitchProfile lab acm,ecm" call root SwitchProfile "'lab'" "'acm,ecm'"
timeout 10 busybox chvt 1

say "a group the polkit rule grants"
check "gdpk: Switch is refused (polkit: no active session, no rule)" denied gdpk Switch "'acm'"
check "gdpk: Off (the rule)" call gdpk Off
check "State is off" is State off
check "gdpk: SwitchProfile android adb (the rule)" call gdpk SwitchProfile "'android'" "'adb'"
check "Profile is android" is Profile android
check "Set is adb" is Set adb
check "gdpk: adb allow reaches the plugin" plugin_said gdpk Command "'adb'" "['allow', '00:11']"
check "root: adb allow reaches the plugin" plugin_said root Command "'adb'" "['allow', '00:11']"

say "the UDC's object"
UDC=/org/gadgetd1/udc/dummy_5fudc_2e0
check "the manager lists it" sh -c "busctl --system get-property org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager UDCs | grep -q $UDC"
check "it says configured, as UDCState does" \
	sh -c "[ \"\$(busctl --system get-property org.gadgetd1 $UDC org.gadgetd1.UDC State)\" = 's \"configured\"' ]"
check "UDCState is configured" is UDCState configured

say "root changes profile and turns off"
check "root: SwitchProfile lab ncm" call root SwitchProfile "'lab'" "'ncm'"
check "Profile is lab" is Profile lab
check "root: Off" call root Off
check "State is off" is State off
check "root: SwitchProfile lab acm,ecm" call root SwitchProfile "'lab'" "'acm,ecm'"

say "signals for a host unplug and a worker restart"
dbus-monitor --system "type='signal',member='PropertiesChanged'" >sig.txt 2>&1 &
SIG=$!
sleep 0.5
# sig_after N PATTERN...: within 10 s, the lines of sig.txt after the
# first N hold each PATTERN (fixed strings), in any order.
sig_after() {
	local lib_n=100 lib_from=$(($1 + 1)) lib_p lib_ok
	shift
	while [ $lib_n -gt 0 ]; do
		lib_ok=1
		for lib_p in "$@"; do
			tail -n +$lib_from sig.txt | grep -q -F -- "$lib_p" || lib_ok=
		done
		[ -n "$lib_ok" ] && return 0
		sleep 0.1
		lib_n=$((lib_n - 1))
	done
	tail -n +$lib_from sig.txt
	return 1
}
B0=$(wc -l <sig.txt)
timeout 30 rmmod dummy_hcd
check "PropertiesChanged: UDCState once the host (the UDC) is gone" \
	sig_after "$B0" 'string "UDCState"'
check "UDCState is no longer configured" isnt UDCState configured
B0=$(wc -l <sig.txt)
timeout 30 modprobe dummy_hcd
check "the gadget is back on the returning UDC" wait_usb "1d6b:$(set_pid acm,ecm)" 20
check "PropertiesChanged: UDCState configured again" \
	sig_after "$B0" 'string "UDCState"' 'string "configured"'
check "root: Switch acm,adb" call root Switch "'acm,adb'"
APID=$(gd_status 'plugin("adb").pid')
check "the adb worker runs" test -n "$APID" -a "$APID" != 0
B0=$(wc -l <sig.txt)
kill -KILL "$APID"
check "PropertiesChanged: adb's Restarts on its object" \
	sig_after "$B0" 'path=/org/gadgetd1/function/adb' 'string "Restarts"'
check "adb's Restarts is 1" sh -c "[ \"\$(busctl --system get-property org.gadgetd1 /org/gadgetd1/function/adb org.gadgetd1.Function Restarts)\" = 'u 1' ]"
check "root: Switch acm,ecm" call root Switch "'acm,ecm'"
kill "$SIG" 2>/dev/null

say "a member's switch queued behind root's is judged again when it runs"
# The adb worker stopped, root's "adb keys" holds the gadget (for up to
# command_timeout, 30 s here: a member's gdbus call took over 2 s to
# reach gadgetd on the loaded bed, past the default 5 s); behind it root's switch to another profile, then a member's
# switch naming the active profile, on the socket and over D-Bus. Those
# were allowed when asked (lab was active) and must be refused when they
# run (android is), else they undo root's switch.
# queued N: within 10 s, N requests wait their turn.
queued() {
	local lib_n=0
	while [ $lib_n -lt 100 ]; do
		gd_status ".queued == $1" && return 0
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
	gd_status .queued
	return 1
}
check "root: Switch acm,adb" call root Switch "'acm,adb'"
APID=$(gd_status 'plugin("adb").pid')
kill -STOP "$APID"
(timeout 60 gadgetctl adb keys >keys.out 2>&1; echo $? >keys.rc) &
Q1=$!
sleep 0.3
(timeout 60 gadgetctl switch --profile android adb >root.out 2>&1; echo $? >root.rc) &
Q2=$!
check "root's switch to android waits" queued 1
(setpriv --reuid=gdgrp --regid=nogroup --init-groups timeout 60 \
	gadgetctl switch --profile lab acm >member.out 2>&1; echo $? >member.rc) &
Q3=$!
check "a member's switch --profile lab acm waits behind it" queued 2
(call gdgrp SwitchProfile "'lab'" "'acm'" >/dev/null; cp call.txt member-dbus.txt) &
Q4=$!
check "the member's SwitchProfile lab acm over D-Bus waits too" queued 3
kill -CONT "$APID"
wait "$Q1" "$Q2" "$Q3" "$Q4"
cat keys.out root.out member.out member-dbus.txt
check "root's switch ran" sh -c '[ "$(cat root.rc)" = 0 ]'
check_exit 4 "the member's socket switch is refused when it runs" sh -c 'exit $(cat member.rc)'
check "... because the active profile changed while it waited" \
	grep -q "while this switch waited, the active profile became android" member.out
check "the member's D-Bus switch is refused when it runs" \
	grep -q "org.freedesktop.DBus.Error.AccessDenied.*the active profile became android" member-dbus.txt
check "the profile is root's: android" is Profile android
check "and the set adb" is Set adb
check "root: SwitchProfile lab acm,ecm" call root SwitchProfile "'lab'" "'acm,ecm'"

say "malformed calls"
bc() {
	timeout 10 busctl --system call org.gadgetd1 /org/gadgetd1 org.gadgetd1.Manager "$@" >call.txt 2>&1
	local lib_rc=$?
	echo "[busctl $1] $(cat call.txt)"
	return $lib_rc
}
check_exit 1 "Switch with an integer" bc Switch i 5
check "is refused for its signature" grep -q "Invalid arguments" call.txt
check_exit 1 "Switch to a set the profile lacks" bc Switch s nope
check "says which" grep -q "nope" call.txt
# shellcheck disable=SC2046
check_exit 1 "Command with 100 arguments" bc Command sas adb 100 $(seq 100)
check "is refused for its size" grep -q "at most 61 arguments" call.txt
check_exit 1 "SwitchProfile to a path" bc SwitchProfile ss ../../etc/passwd ""
check "Set is still acm,ecm" is Set acm,ecm
check "gadgetctl status agrees" gd_status '.set == "acm,ecm" and .profile == "lab"'
check "gadgetd is alive" kill -0 "$GD_PID"

kill "$MON" 2>/dev/null
finish
