# gadgetd's D-Bus API (gadgetd-dbus(7)) on a system dbus-daemon with
# polkitd, started here (the bed has no systemd as PID 1 and no logind,
# so "the active local session" cannot be tested: root, gadgetd.conf's
# group, a group a polkit rule grants, and anyone else are). Also: gadgetd
# with no bus at all, malformed calls, PropertiesChanged during a switch,
# a host unplug (the UDC removed) and a worker restart.
# Runs in the guest (see run-suite.sh).
. "$SRC/tests/loopback/lib.sh"

gd_install
# gdgrp: gadgetd.conf's group (plugdev); gdpk: in gdpolkit, which the
# rule below lets turn the gadget off, change profile and run plugin
# commands; gdother: nothing.
groupadd -f gdpolkit
useradd -M -N -G plugdev gdgrp 2>/dev/null
useradd -M -N -G gdpolkit gdpk 2>/dev/null
useradd -M -N gdother 2>/dev/null

say "no bus at all"
gd_start lab
check "gadgetd works without a bus" gd_status '.set == "acm,ecm"'
check "and said so once" [ "$(grep -c "dbus: no system bus" "$GD_LOG")" = 1 ]
gd_stop

say "a system bus and polkitd"
mkdir -p /run/dbus /etc/polkit-1/rules.d
dbus-uuidgen --ensure 2>/dev/null
cat > /etc/polkit-1/rules.d/50-gdpolkit.rules <<'RULE'
polkit.addRule(function(action, subject) {
    if ((action.id == "org.gadgetd1.off" ||
         action.id == "org.gadgetd1.switch-profile" ||
         action.id == "org.gadgetd1.command") && subject.isInGroup("gdpolkit"))
        return polkit.Result.YES;
});
RULE
check "dbus-daemon --system starts" timeout 20 dbus-daemon --system --fork
/usr/lib/polkit-1/polkitd --no-debug >/mnt/out/polkitd.log 2>&1 &
POLKIT_PID=$!
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
check "polkitd is on the bus" on_bus org.freedesktop.PolicyKit1
gd_start lab
check "gadgetd is on the bus" on_bus org.gadgetd1
check "and logged it" grep -q "dbus: on the system bus as org.gadgetd1" "$GD_LOG"

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
isnt() { ! is "$@"; }
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

kill "$MON" "$POLKIT_PID" 2>/dev/null
finish
