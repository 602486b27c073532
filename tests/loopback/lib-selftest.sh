#!/bin/sh
# Host-side check of lib.sh's helpers, no VM needed: they must not change
# a test's own variables (n, i, desc, want, got) nor be changed by the
# commands they run. Usage: dash tests/loopback/lib-selftest.sh
here=$(cd "$(dirname "$0")" && pwd)
SRC=$here/../.. B=/nonexistent GD_LOG=/dev/null
. "$here/lib.sh"
lsusb() { return 0; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bad=0
expect() { [ "$2" = "$3" ] || { echo "lib-selftest: $1: '$2', expected '$3'"; bad=1; }; }
sets_globals() { desc=clobbered want=9 got=9 n=99 i=99; }
n=3 i=7 desc=mine want=1 got=2
check "the check's own text" sets_globals >"$out"
expect "check's line after its command set desc" "$(cat "$out")" "ok: the check's own text"
check_exit 0 "exit text" sets_globals >"$out"
expect "check_exit's line after its command set desc" "$(cat "$out")" "ok: exit text (exit 0)"
n=3 i=7 desc=mine want=1 got=2
check "wait" wait_usb 1:1 1 >/dev/null
check_exit 1 "wait" wait_no_usb 1:1 1 >/dev/null
expect "caller's n, i, desc, want, got" "$n $i $desc $want $got" "3 7 mine 1 2"
# say: the seconds since lib.sh was sourced, with one decimal.
expect "say's line" "$(say hello | sed 's/^== \[[0-9][0-9]*\.[0-9]s\] /== [T] /')" "== [T] hello"
# With the harness built, its folder comes first on the PATH.
hb=$(mktemp -d)
mkdir "$hb/harness" && : >"$hb/harness/timeout" && chmod +x "$hb/harness/timeout"
expect "PATH with the harness" "$(B=$hb; . "$here/lib.sh"; echo "${PATH%%:*}")" "$hb/harness"
rm -rf "$hb"
[ $bad = 0 ] && echo "lib-selftest: ok"
exit $bad
