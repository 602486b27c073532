#!/bin/sh
# Host-side check of gd-timeout (tests/loopback/gd-timeout.c), which
# lib.sh's timeout calls in the guest: each case gives the exit status
# coreutils' timeout gives, checked on both. A command that would run
# 30 s must be ended by the bound (the case ends well before that).
# Usage: gd-timeout-selftest.sh BUILT-GD-TIMEOUT
set -u
bin=${1:?usage: gd-timeout-selftest.sh GD-TIMEOUT}
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { read -r lib_up lib_rest </proc/uptime; echo "${lib_up%.*}"; }

# case WANT WHAT TIMEOUT-ARGS...: both give WANT within 20 s.
case_() {
	local want=$1 what=$2 t0 rc tool
	shift 2
	for tool in "$bin" timeout; do
		t0=$(now)
		"$tool" "$@" </dev/null >/dev/null 2>&1
		rc=$?
		if [ "$rc" != "$want" ]; then
			echo "gd-timeout-selftest: $what: ${tool##*/} exited $rc, expected $want"
			bad=1
		elif [ $(($(now) - t0)) -ge 20 ]; then
			echo "gd-timeout-selftest: $what: ${tool##*/} took $(($(now) - t0)) s"
			bad=1
		fi
	done
}
case_ 0 "a command that succeeds" 5 true
case_ 3 "a command's own status" 5 sh -c 'exit 3'
case_ 124 "the bound reached" 0.3 sleep 30
case_ 124 "a minute's suffix" 0.005m sleep 30
case_ 0 "0: no bound" 0 true
case_ 127 "no such command" 5 /nonexistent/command
: >"$tmp/data"
chmod 644 "$tmp/data"
case_ 126 "not a program" 5 "$tmp/data"
case_ 137 "-k: KILL after TERM is ignored" -k 0.3 0.3 sh -c 'trap "" TERM; sleep 30'
case_ 143 "the command killed by a signal" 5 sh -c 'kill -TERM $$'
case_ 137 "-s KILL (which ends the bound's own process too)" -s KILL 0.3 sleep 30
case_ 125 "a duration that is none" x true

# The bound ends the command's children too (its process group).
"$bin" 0.3 sh -c 'sleep 30 & echo $! >"$1"; wait' sh "$tmp/pid" </dev/null
rc=$?
[ $rc = 124 ] || { echo "gd-timeout-selftest: a child's child: exit $rc, expected 124"; bad=1; }
n=0
while kill -0 "$(cat "$tmp/pid")" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
if kill -0 "$(cat "$tmp/pid")" 2>/dev/null; then
	echo "gd-timeout-selftest: a child's child outlived the bound"
	kill "$(cat "$tmp/pid")"
	bad=1
fi

# TERM sent to it goes on to the command.
t0=$(now)
"$bin" 30 sh -c 'trap "echo passed >\"$1/term\"; exit 0" TERM; : >"$1/ready"
	while :; do sleep 0.1; done' sh "$tmp" </dev/null &
p=$!
n=0
while [ ! -e "$tmp/ready" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] || { echo "gd-timeout-selftest: TERM passed on: exit $rc, expected 0 (the command's trap)"; bad=1; }
[ "$(cat "$tmp/term" 2>/dev/null)" = passed ] || { echo "gd-timeout-selftest: TERM was not passed on"; bad=1; }
[ $(($(now) - t0)) -lt 20 ] || { echo "gd-timeout-selftest: TERM took $(($(now) - t0)) s"; bad=1; }
# stdin and stdout are the command's own.
got=$(echo through | "$bin" 5 cat)
[ "$got" = through ] || { echo "gd-timeout-selftest: stdin to stdout: '$got'"; bad=1; }

[ $bad = 0 ] && echo "gd-timeout-selftest: ok"
exit $bad
