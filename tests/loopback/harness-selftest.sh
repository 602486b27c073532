#!/bin/sh
# Host-side check of build/harness (make harness), the programs lib.sh
# puts first on the loopback tests' PATH: timeout (gd-timeout.c) gives,
# case by case, the exit status coreutils' timeout gives, checked on
# both (a command that would run 30 s must be ended by the bound, well
# before that); sleep, grep and cat (busybox's) give what coreutils' and
# GNU grep give for the options the tests use.
# Usage: harness-selftest.sh HARNESS-DIR
set -u
dir=$(cd "${1:?usage: harness-selftest.sh HARNESS-DIR}" && pwd) || exit 1
bin=$dir/timeout
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
			echo "harness-selftest: $what: ${tool##*/} exited $rc, expected $want"
			bad=1
		elif [ $(($(now) - t0)) -ge 20 ]; then
			echo "harness-selftest: $what: ${tool##*/} took $(($(now) - t0)) s"
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
[ $rc = 124 ] || { echo "harness-selftest: a child's child: exit $rc, expected 124"; bad=1; }
n=0
while kill -0 "$(cat "$tmp/pid")" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
if kill -0 "$(cat "$tmp/pid")" 2>/dev/null; then
	echo "harness-selftest: a child's child outlived the bound"
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
[ $rc = 0 ] || { echo "harness-selftest: TERM passed on: exit $rc, expected 0 (the command's trap)"; bad=1; }
[ "$(cat "$tmp/term" 2>/dev/null)" = passed ] || { echo "harness-selftest: TERM was not passed on"; bad=1; }
[ $(($(now) - t0)) -lt 20 ] || { echo "harness-selftest: TERM took $(($(now) - t0)) s"; bad=1; }
# stdin and stdout are the command's own.
got=$(echo through | "$bin" 5 cat)
[ "$got" = through ] || { echo "harness-selftest: stdin to stdout: '$got'"; bad=1; }

# The busybox tools that are there (make harness makes them; make unit
# has timeout alone), on the options the tests give (grep's are every
# option found in tests/loopback and tests/bench, lib.sh's gd_log_has
# and gd_log_grep among them: busybox's grep has no -G, which
# gd_log_grep gave once): the same output and exit status as the ones
# they stand in for.
printf 'abc\nfoo bar\nx|y\nABC\n\n12 34\n' >"$tmp/in"
[ -e "$dir/grep" ] && for args in "-q abc" "-q zzz" "-qx abc" "-qx ab" "-c o" "-v abc" "-e abc -e foo" \
	"-qF x|y" "-qi abc" "-Eq a(b|z)c" "-E ^[0-9]+.[0-9]+$" "-n bar" "-qs abc" \
	"-qE x\|y" "-F x|y" "-B1 foo" "-A1 abc" "-l abc" "-i abc" "-A5 foo" "-x abc" \
	"-qxF x|y" "-qw foo" "-qe abc" "-av abc" "-aq abc" "-Evq abc" "-Ec [a-z]" \
	"-q foo\|zzz" "-q \(ab\)\1" "-c ^$" "-qE [[:digit:]]{2}" "-q nosuchfile-x" \
	"-q -F -e x|y" "-q -e ^foo"; do
	# shellcheck disable=SC2086
	want=$(cd "$tmp" && grep $args in 2>&1; echo "exit $?")
	# shellcheck disable=SC2086
	got=$(cd "$tmp" && "$dir/grep" $args in 2>&1; echo "exit $?")
	[ "$got" = "$want" ] || { echo "harness-selftest: grep $args: '$got', GNU grep: '$want'"; bad=1; }
done
if [ -e "$dir/cat" ]; then
	[ "$("$dir/cat" "$tmp/in")" = "$(cat "$tmp/in")" ] || { echo "harness-selftest: cat differs"; bad=1; }
	[ "$(echo piped | "$dir/cat")" = piped ] || { echo "harness-selftest: cat of stdin differs"; bad=1; }
fi
if [ -e "$dir/sleep" ]; then
	t0=$(now)
	"$dir/sleep" 0.2 || { echo "harness-selftest: sleep 0.2 failed"; bad=1; }
	"$dir/sleep" x 2>/dev/null && { echo "harness-selftest: sleep x succeeded"; bad=1; }
	[ $(($(now) - t0)) -lt 20 ] || { echo "harness-selftest: sleep 0.2 took $(($(now) - t0)) s"; bad=1; }
fi

[ $bad = 0 ] && echo "harness-selftest: ok"
exit $bad
