# The wedge of issue #10 section 4, reproduced quickly (not part of make
# check: run-suite.sh BED OUT repro-adb-kill.sh): kill -9 of the adb
# worker during a 32 MiB adb push, BURST times (default 60), 3 s apart,
# without waiting for a full recovery. Before functions/runtime/aioguard.c the
# 4th kill left the adb instance's completion kworker in exit_aio() and
# gadgetd in drain_workqueue() (their stacks are printed); with it, none.
. "$SRC/tests/loopback/lib.sh"
export HOME=/root
N=${BURST:-60}
gd_install
echo 1 > /proc/sys/kernel/sysrq
head -c $((32 << 20)) /dev/urandom > /tmp/soak32.bin
gd_start lab
gd_switch mtp,adb
timeout 20 adb start-server >/dev/null 2>&1
wpid() { gadgetctl status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
print([p["pid"] for p in s["plugins"] if p["name"] == "adb"][0])' 2>/dev/null; }
dstate() {
	for f in /proc/[0-9]*/stat; do
		read -r line < "$f" 2>/dev/null || continue
		rest=${line##*) }
		[ "${rest%% *}" = D ] || continue
		p=${f#/proc/}; p=${p%/stat}
		echo "$p:$(cat /proc/$p/comm 2>/dev/null)"
	done
}
S=$(date +%s)
i=1
while [ $i -le $N ]; do
	timeout 60 adb wait-for-device
	timeout 120 adb push /tmp/soak32.bin /tmp/soak-pushed.bin >/dev/null 2>&1 &
	x=$!
	S=$(( (S * 1103515245 + 12345) & 2147483647 )); R=$(( (S >> 8) % 14 ))
	sleep "0.$((R % 10))"; [ $R -ge 10 ] && sleep 1
	p=$(wpid)
	say "kill $i: adb worker $p, delay $R"
	[ "${p:-0}" -gt 1 ] && kill -KILL "$p"
	sleep 3
	d=$(dstate)
	if [ -n "$d" ]; then
		sleep 12
		d2=$(dstate)
		if [ -n "$d2" ]; then
			echo "WEDGE after kill $i: $d2"
			for t in $d2; do p=${t%%:*}; echo "-- $t"; cat /proc/$p/stack; done
			echo w > /proc/sysrq-trigger
			dmesg | tail -n 120
			tail -n 30 "$GD_LOG"
			fail "a task stayed in D state after kill $i"
			finish
		fi
	fi
	kill $x 2>/dev/null; wait $x 2>/dev/null
	i=$((i + 1))
done
check "no task stuck in D state after $N kills" true
finish
