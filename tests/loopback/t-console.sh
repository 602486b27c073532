# A login over USB serial (console = "getty", gadgetd.conf(5)) as a board
# runs it: gadgetd from make install under its unit, which asks systemd
# over D-Bus for serial-getty@ttyGS0.service. The host opens its
# /dev/ttyACM0 (console_host.py), gets "login:", logs in as a test user,
# runs echo $((6*7)) and gets 42, logs out; the getty is back for the
# next login. Then a switch away and back leaves exactly one getty, a
# cable pulled and plugged again (the UDC removed and back) while a user
# is logged in leaves no stale shell and a fresh login: prompt, and
# gadgetctl off leaves none.
# The bed masks serial-getty@ttyS0 (the bed's own console), getty.target,
# getty@ and autovt@ (tests/vm/bed-systemd); serial-getty@.service itself
# is not masked, and getty.target's mask only drops an ordering
# (serial-getty@ is Before= it), so nothing of the bed is changed here.
# The test user gdcons and its password are the test's data (useradd and
# chpasswd in the overlay root), not gadgetd's job.
# t-console-light.sh runs the same on the light bed, where gadgetd -f
# runs agetty itself (no systemd as PID 1): the unit's checks are then
# left out, and the logout's restart is gadgetd's: four logouts with
# restart_limit 3 must leave the login running (a logout is no crash).
# Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

PY=/usr/bin/python3
T=$SRC/tests/loopback
PW=gd-Cons-42
useradd -m -s /bin/bash gdcons 2>/dev/null
echo "gdcons:$PW" | chpasswd || die "chpasswd"

gd_install
cat > /etc/gadgetd/profiles/console.conf <<'PROFILE'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "console"; serial = "c0"; };
};
functions: {
  acm: { type = "acm"; console = "getty"; };
  ecm: { type = "ecm"; };
};
sets = (
  { functions = [ "acm" ]; product_id = 0x0121; },
  { functions = [ "ecm" ]; product_id = 0x0122; }
);
default = "acm";
PROFILE
# agetty's exits after logouts must not count as crashes: with 3, the
# fourth logout within the minute would give the login up.
bed_systemd || gd_config restart_limit 3
gd_start console
check "the acm set is up" gd_status '.set == "acm"'
check "the host sees it" wait_usb 1d6b:0121 20

UNIT=serial-getty@ttyGS0.service
# gettys N: exactly N agetty processes within 30 s (the unit's Type=idle
# start waits a moment; a restarted one comes after the old one went).
gettys() {
	local n=0 c
	while [ $n -lt 150 ]; do
		c=$(pgrep -x agetty | wc -l)
		[ "$c" = "$1" ] && return 0
		sleep 0.2
		n=$((n + 1))
	done
	echo "gettys: $c agetty, not $1:"
	ps -o pid,tty,args -C agetty,login,bash
	return 1
}
# active: the unit is active within 30 s.
active() {
	local n=0
	while [ $n -lt 150 ]; do
		timeout 10 systemctl is-active --quiet $UNIT && return 0
		sleep 0.2
		n=$((n + 1))
	done
	timeout 10 systemctl status $UNIT --no-pager
	return 1
}
acm() {
	local n=0
	while [ ! -e /dev/ttyACM0 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	echo /dev/ttyACM0
}

if bed_systemd; then
	BACKEND=systemd
	check "gadgetd started $UNIT" active
else
	BACKEND=agetty
fi
check "one getty" gettys 1
check "gadgetctl status shows the console" gd_status ".consoles[0] | .function == \"acm\" and .tty == \"ttyGS0\" and .state == \"running\" and .backend == \"$BACKEND\""
check "the host logs in, runs a command, logs out" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"
check "one getty after the logout" gettys 1
check "and a login again" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"
if ! bed_systemd; then
	# login exits 0 when the shell ends, and so agetty's pid does.
	check "gadgetd saw agetty end with status 0 (a logout)" gd_log_has "agetty exited with status 0; starting it again"
	check "a third login" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"
	check "a fourth login: logouts are no crashes" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"
	check "one getty after four logouts" gettys 1
	check "the console still runs" gd_status '.consoles[0].state == "running"'
fi

say "a switch away and back"
check_switch ecm 1d6b:0122
check "no getty in the ecm set" gettys 0
check "gadgetctl status shows none" gd_status '.consoles == []'
bed_systemd && check "$UNIT is not active" sh -c "! systemctl is-active --quiet $UNIT"
check_switch acm 1d6b:0121
bed_systemd && check "$UNIT again" active
check "exactly one getty" gettys 1
check "a login after the switch" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"

say "the cable pulled with a user logged in, then plugged again"
check "logged in, staying" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW" --stay
check "the user's shell runs" pgrep -u gdcons -x bash
# The UDC goes and comes back (rmmod and modprobe dummy_hcd), as t-net
# and t-dbus pull the cable: the gadget's disconnect hangs ttyGS0 up, and
# gadgetd stops the console while the UDC is gone.
check "rmmod dummy_hcd" timeout 30 rmmod dummy_hcd
check "gadgetctl status shows no console while the UDC is gone" within_s 10 gd_status '.consoles == []'
check "modprobe dummy_hcd" timeout 30 modprobe dummy_hcd
check "the host sees it again" wait_usb 1d6b:0121 20
check "no stale shell" within_s 30 sh -c '! pgrep -u gdcons -x bash'
check "exactly one getty" gettys 1
check "a fresh login: prompt and login" timeout 240 $PY "$T/console_host.py" "$(acm)" gdcons "$PW"

say "gadgetctl off"
check "gadgetctl off" timeout 60 gadgetctl off
check "no getty" gettys 0
bed_systemd && check "$UNIT is not active" sh -c "! systemctl is-active --quiet $UNIT"
check "gadgetd logged the console's start and stop" gd_log_has "acm: console on ttyGS0 stopped ($BACKEND)"
finish
