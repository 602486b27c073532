# Shell helpers for the HID loopback tests (t-hid, t-wakeup, t-input),
# sourced in the guest after lib.sh: the host's side reads the gadget's
# HID devices through evdev with hid_host.py, in the background.
#
#   host_start NAME ARGS...  hid_host.py ARGS... NAME.ready in the
#                    background, into OUT/NAME.out; returns once it
#                    listens (or has failed)
#   host_done NAME   the reader's exit status; its output is shown
#   same FILE TEXT   FILE holds exactly TEXT (lines as printf %b gives
#                    them)
#   rt_status WANT [SECS]  $DEV's power/runtime_status becomes WANT
#                    within SECS (15)
export LANG=C.UTF-8
PY=/usr/bin/python3
T=$SRC/tests/loopback
OUT=/mnt/out
HPID=

host_start() {
	local name=$1 n=300
	shift
	rm -f "$OUT/$name.ready"
	timeout 120 $PY "$T/hid_host.py" "$@" "$OUT/$name.ready" >"$OUT/$name.out" 2>&1 &
	HPID=$!
	while [ $n -gt 0 ] && [ ! -e "$OUT/$name.ready" ] && kill -0 $HPID 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
	done
	[ -e "$OUT/$name.ready" ]
}

host_done() {
	wait $HPID
	local rc=$?
	sed "s/^/  $1: /" "$OUT/$1.out"
	return $rc
}

same() {
	printf '%b\n' "$2" | cmp -s - "$1" || { echo "want:"; printf '%b\n' "$2"; return 1; }
}

rt_status() {
	local n=$((${2:-15} * 10)) got
	while [ $n -gt 0 ]; do
		got=$(cat "$DEV/power/runtime_status")
		[ "$got" = "$1" ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "power/runtime_status: $got, want $1"
	return 1
}
