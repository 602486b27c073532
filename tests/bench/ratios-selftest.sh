#!/bin/sh
# ratios.py's own checks: a whole run (--whole) with every figure passes;
# one with a ratio's figure missing, or a BENCH line with no figure,
# fails naming it; a negative figure fails any run; a subset run passes
# with its gaps shown as n/a.
set -u
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
fails=0
bad() { echo "ratios-selftest: FAIL: $*" >&2; fails=$((fails + 1)); }
r() { python3 "$here/ratios.py" "$@" >"$t/out" 2>&1; }

# Every figure the ratios name, found by adding what each run says is
# missing until nothing is.
: >"$t/all"
n=0
while r "$t/all" && name=$(sed -n 's/.*n\/a (missing \([^)]*\)).*/\1/p' "$t/out" | head -n 1) && [ -n "$name" ]; do
	echo "BENCH $name 2 MB/s" >>"$t/all"
	n=$((n + 1))
	[ $n -lt 1000 ] || { bad "the missing figures never end"; break; }
done
[ $n -gt 10 ] || bad "only $n figures found for the ratios"
r --whole "$t/all" || bad "a whole run with every figure failed: $(cat "$t/out")"

sed 1d "$t/all" >"$t/one-gone"
gone=$(sed -n '1s/^BENCH \([^ ]*\).*/\1/p' "$t/all")
if r --whole "$t/one-gone"; then bad "a whole run without $gone passed"; fi
grep -q "no usable $gone for a ratio" "$t/out" || bad "the failure does not name $gone: $(tail -n 1 "$t/out")"
r "$t/one-gone" || bad "a subset run without $gone failed: $(tail -n 1 "$t/out")"
grep -q "n/a (missing $gone)" "$t/out" || bad "a subset run does not show $gone as n/a"

{ cat "$t/all"; echo "BENCH empty_mbps  MB/s"; } >"$t/empty"
if r --whole "$t/empty"; then bad "a whole run with a figureless line passed"; fi
grep -q "no figure printed for empty_mbps" "$t/out" || bad "the failure does not name empty_mbps"

{ cat "$t/all"; echo "BENCH neg_mbps -3.2 MB/s"; } >"$t/neg"
if r "$t/neg"; then bad "a negative figure passed"; fi
grep -q "neg_mbps -3.2" "$t/out" || bad "the failure does not name neg_mbps"

sed "s|^BENCH $gone .*|BENCH $gone 0 MB/s|" "$t/all" >"$t/zero"
# A zero numerator is a true ratio of 0; a zero denominator is none.
if r --whole "$t/zero"; then
	grep -q ": 0.00" "$t/out" || bad "a zero figure gave neither a 0 ratio nor a failure"
else
	grep -q "$gone is 0" "$t/out" || bad "a zero denominator is not named: $(tail -n 1 "$t/out")"
fi
[ $fails = 0 ] && echo "ratios-selftest: ok ($n figures)"
exit $fails
