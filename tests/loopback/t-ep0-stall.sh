# A hostile host must not take a function down for the next host (issue
# 21): a host that starts a control request three times in a row and never
# sends its data stage (ep0_stall.py) neither hangs the worker's loop
# (the heartbeat keeps being answered, the worker is never restarted)
# nor gets the plugin marked failed; an honest host then does the AOA
# handshake. Before the fix each such request held the accessory
# worker's loop in f_fs until the heartbeat killed it, and restart_limit
# kills marked it failed until the next switch.
# bed: light - a hostile host stalls control requests (fault injection)
. "$SRC/tests/loopback/lib.sh"

H="python3 $SRC/tests/loopback/aoa_host.py"
VID=1d6b

gd_install
mkdir -p /etc/gadgetd/profiles
$H profile > /etc/gadgetd/profiles/aoatest.conf
# A heartbeat shorter than the 5 s a data stage may take: the loop must
# answer it while the stage waits.
gd_config heartbeat_interval 500
gd_config heartbeat_timeout 3000
gd_config restart_delay 200
gd_config restart_limit 5
gd_config restart_window 120000
gd_start aoatest

aoa_pid() {
	local p
	p=$(gd_status 'plugin("aoa").pid // 0' 2>/dev/null)
	echo "${p:-0}"
}

check "host sees $VID:0110" wait_usb $VID:0110 20
p0=$(aoa_pid)
check "accessory worker pid known ($p0)" test "$p0" -gt 1
n0=$(usb_enums)

say "three SETUPs without their data stage, 6 s apart"
# 6 s: longer than the stage's bound (5 s) and the heartbeat (3 s).
# Three rounds, each of which killed the worker before the fix: enough to
# see that nothing accumulates (ten took 97 s of make check).
stalled=0
for i in 1 2 3; do
	wait_usb $VID:0110 30 >/dev/null
	timeout 60 python3 "$SRC/tests/loopback/ep0_stall.py" $VID:0110 aoa &&
		stalled=$((stalled + 1))
	sleep 6
done
check "every round left a request without its data stage ($stalled of 3)" test "$stalled" = 3
check "the worker was never restarted (pid $p0)" test "$(aoa_pid)" = "$p0"
check "status: aoa not failed, no restart" \
	gd_status 'plugin("aoa") | .state != "failed" and .restarts == 0'
check "no heartbeat kill in the log" sh -c "! grep -q 'did not answer the heartbeat' '$GD_LOG'"
check "the worker stalled the request it waited for" \
	grep -q "without its data stage; stalled it" "$GD_LOG"
check "the host saw no re-enumeration" test "$(usb_enums)" = "$n0"

say "an honest host"
check "AOA handshake" timeout 60 $H handshake $VID:0110
check "host sees 18d1:2d00" wait_usb 18d1:2d00 20
check "status: accessory not failed" gd_status 'plugin("accessory").state != "failed"'
finish
