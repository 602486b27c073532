#!/bin/sh
# make unit's runner: the unit test binaries, JOBS at a time.
# Usage: run-units.sh JOBS BINARY...
# Each test's output goes to BINARY.log and is printed whole when the
# test ends (so that two tests' lines never mix), after a line
# "== NAME: ok (S s)" or "== NAME: FAILED (exit N, S s)". Many tests
# mostly wait (timeouts, children, sockets): two at a time on two CPUs
# take less time than one after the other. Exits 1 if any test failed,
# naming them.
set -u
jobs=${1:?usage: run-units.sh JOBS BINARY...}
shift
[ $# -gt 0 ] || { echo "run-units: no test to run"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# One test: its log, then its verdict and log printed under a lock.
one='t=$1 tmp=$2
s=$(date +%s.%N)
"$t" >"$t.log" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) $s" | awk "{ printf \"%.1f\", \$1 - \$2 }")
n=$(basename "$t")
[ $rc = 0 ] || echo "$n" >"$tmp/failed.$n"
{
	flock 9
	echo "== $t"
	cat "$t.log"
	if [ $rc = 0 ]; then echo "== $n: ok ($secs s)"; else echo "== $n: FAILED (exit $rc, $secs s)"; fi
} 9>"$tmp/lock"'
# The longest first (tests/unit/longest-first.sh), so that the last ones
# to start are short: in the Makefile's order test_supervisor (19 s)
# started near the end and the run waited for it alone.
"$(dirname "$0")/longest-first.sh" "$@" | xargs -P "$jobs" -I{} sh -c "$one" _ {} "$tmp"
failed=$(cat "$tmp"/failed.* 2>/dev/null | tr '\n' ' ')
echo "unit: $# tests, $jobs at a time, in $(($(date +%s) - start)) s"
[ -z "$failed" ] || { echo "unit tests FAILED: $failed"; exit 1; }
