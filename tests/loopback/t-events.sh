# Events and the queue of switches: `gadgetctl wait` before and after the
# start-up, `gadgetctl monitor --json` lines matching what happened (switches
# begun and done, the host configured and detached with its UDC, a worker
# killed and restarted, gadgetd stopping), two switches asked at once both
# done in order, and a burst of 50 on a queue of 2: the overflow exits 6,
# the rest are each answered with their own switch. Runs in the guest (see
# run-suite.sh). The burst switches between acm and ncm, kernel functions
# that bind fast; after the UDC's return only acm and adb are used: a
# network function bound before its UDC vanished may not bind again on
# this kernel (t-switch.sh).
# bed: light - events and the switch queue, which the unit does not change;
#   gadgetd under the unit: t-unit
. "$SRC/tests/loopback/lib.sh"

gd_install
gd_config switch_queue 2
# A plugin starting while 50 clients start on the loaded bed.
gd_config ready_timeout 20000
gd_example lab
gd_config profile '"lab"'

say "wait: no gadgetd"
check_exit 3 "wait --timeout 0.5 without gadgetd: not reachable" \
	timeout 10 gadgetctl wait --timeout 0.5
check_exit 2 "wait --timeout x: usage" gadgetctl wait --timeout x

say "wait, asked before gadgetd starts"
(timeout 60 gadgetctl wait --timeout 50 >wait.out 2>&1; echo $? >wait.rc) &
WAITER=$!
gd_start
# gd_start returns once the start-up switch is over: the waiter follows.
n=0; while [ ! -s wait.rc ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
check "wait exited 0 once the start-up was over" test "$(cat wait.rc 2>/dev/null)" = 0
check "wait said what came up" grep -q "acm,ecm" wait.out
wait $WAITER 2>/dev/null
check_exit 0 "wait after the start-up: at once" timeout 5 gadgetctl wait --timeout 1

say "monitors"
gadgetctl monitor --json >mon.json 2>mon.err &
MON=$!
gadgetctl monitor >mon.txt 2>mon-text.err &
MONT=$!
# Subscribed once a switch is heard from its start: the monitor may
# connect in the middle of one and hear only its end (once the tests'
# own timeout started faster, the first switch-done came alone).
n=0
until [ $n -ge 5 ] || { gd_switch acm >/dev/null; grep -q '"event":"switch-begun"' mon.json &&
	grep -q '"switch-done".*"detail":"acm"' mon.json; }; do
	gd_switch acm,adb >/dev/null
	n=$((n + 1))
done
check "the monitor heard a switch" grep -q '"event":"switch-begun"' mon.json

# jq is slow to start on the bed: the waits grep, jq checks once.
# Every switch-begun followed by its switch-done before the next begins.
# (A switch-done first is the end of the switch the monitor came in on.)
in_order() {
	jq -se '[.[] | select(.event == "switch-begun" or .event == "switch-done")] |
		(if .[0].event == "switch-done" then .[1:] else . end) as $e |
		($e | length) % 2 == 0 and
		all(range(0; $e | length); $e[.].event == (if . % 2 == 0 then "switch-begun" else "switch-done" end)) and
		all(range(0; $e | length; 2); $e[. + 1].code != 0 or $e[. + 1].detail == $e[.].detail)' mon.json >/dev/null
}
# Successful switch-done lines after line $B0.
dones() { tail -n +$((B0 + 1)) mon.json | grep -c '"event":"switch-done".*"code":0}'; }
# wait_lines PATTERN [SECS]: a line after $B0 matches (grep -E).
wait_lines() {
	local lib_n=0
	until tail -n +$((B0 + 1)) mon.json | grep -Eq "$1"; do
		[ $lib_n -ge $((${2:-5} * 10)) ] && return 1
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
}

say "two switches asked at once"
# Neither set is active (acm is): both are real switches, whichever
# reaches gadgetd first.
B0=$(wc -l <mon.json)
(timeout 60 gadgetctl switch acm,adb >two1.out 2>&1; echo $? >two1.rc) &
P1=$!
(timeout 60 gadgetctl switch ncm >two2.out 2>&1; echo $? >two2.rc) &
P2=$!
wait $P1 $P2
check "the first exits 0" test "$(cat two1.rc)" = 0
check "the second exits 0 (queued, not busy)" test "$(cat two2.rc)" = 0
cat two1.out two2.out
check "each was answered with its own switch" sh -c 'grep -q "^switched to acm,adb " two1.out && grep -q "^switched to ncm " two2.out'
n=0; until [ "$(dones)" = 2 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "both switches were begun and done, one after the other" test "$(dones)" = 2
check "switch events in order" in_order

say "a burst of 50 on a queue of 2"
B0=$(wc -l <mon.json)
# The 50 clients start, then wait on a pipe; one line each sets them all
# off at once (a child that is late reads its line when it comes).
rm -f go; mkfifo go
exec 3<>go
i=0
while [ $i -lt 50 ]; do
	if [ $((i % 2)) = 0 ]; then set=acm; else set=ncm; fi
	(read -r _ <&3; gadgetctl switch $set >burst.$i.out 2>&1; echo $? >burst.$i.rc) &
	i=$((i + 1))
done
i=0; while [ $i -lt 50 ]; do echo; i=$((i + 1)); done >&3
# Every one answers: queued (exit 0 once done) or refused (exit 6); none
# waits for ever.
n=0
while [ "$(ls burst.*.rc 2>/dev/null | wc -l)" -lt 50 ] && [ $n -lt 900 ]; do sleep 0.1; n=$((n + 1)); done
exec 3>&-
ok=0 busy=0 other=0 mine=1
i=0
while [ $i -lt 50 ]; do
	if [ $((i % 2)) = 0 ]; then set=acm; else set=ncm; fi
	case $(cat burst.$i.rc 2>/dev/null) in
	0)
		ok=$((ok + 1))
		grep -Eq "(to |^)$set( \(| is already)" burst.$i.out || { echo "burst $i ($set): $(cat burst.$i.out)"; mine=0; } ;;
	6) busy=$((busy + 1)) ;;
	*) other=$((other + 1)); echo "burst $i: exit $(cat burst.$i.rc 2>/dev/null): $(cat burst.$i.out)" ;;
	esac
	i=$((i + 1))
done
echo "burst: $ok done, $busy busy, $other other"
check "every request of the burst was answered 0 or 6" test $other = 0
check "the overflow was refused as busy" test $busy -gt 0
check "at least the running one and the queue's 2 were done" test $ok -ge 3
check "each done request was answered with its own set" test $mine = 1
check "a refusal names the full queue or the client limit" \
	sh -c 'cat burst.*.out | grep -Eq "switch_queue = 2|too many clients"'
# The monitor writes what it heard a moment after the replies came.
switched=$(grep -l '^switched to' burst.*.out | wc -l)
n=0; until [ "$(dones)" = "$switched" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "a successful switch-done for each of the $switched switches (the rest were already active)" \
	test "$(dones)" = "$switched"
check "switch events still in order" in_order

say "the host: configured, then detached with the UDC"
# acm may be active already, configured since the burst: any line counts.
B0=0
gd_switch acm >/dev/null
check "host configured" wait_usb 1d6b:0106
check "monitor: host configured" wait_lines '"event":"host".*"detail":"configured"'
B0=$(wc -l <mon.json)
timeout 30 rmmod dummy_hcd
check "monitor: host not attached once the UDC went" wait_lines '"event":"host".*"detail":"not attached"'
B0=$(wc -l <mon.json)
timeout 30 modprobe dummy_hcd
check "the gadget is back on the returning UDC" wait_usb 1d6b:0106 20
check "monitor: host configured again" wait_lines '"event":"host".*"detail":"configured"' 10

say "a worker killed and restarted"
gd_switch acm,adb >/dev/null
apid=$(gd_status 'plugin("adb").pid')
check "the adb worker runs" test -n "$apid" -a "$apid" != 0
B0=$(wc -l <mon.json)
kill -KILL "$apid"
check "monitor: plugin-restarted adb, restarts 1" \
	wait_lines '"event":"plugin-restarted","function":"adb",.*"code":1}' 15
check "status agrees: adb restarted once" gd_status 'plugin("adb").restarts == 1'

say "text and the end"
check "the text monitor printed the same switches" grep -q ' switch-done acm,adb$' mon.txt
check "the text monitor printed the host" grep -q ' host configured$' mon.txt
cp mon.json mon.txt /mnt/out/ 2>/dev/null
gd_stop
n=0; while kill -0 $MON 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
wait $MON
check "monitor exits 0 when gadgetd stops" test $? = 0
wait $MONT
check "the text monitor too" test $? = 0
check "and says why on stderr" grep -q "gadgetd is stopping" mon.err
finish
