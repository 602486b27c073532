#!/bin/sh
# fuzz-long.sh against fake targets: one whose log has two stat blocks (a
# forked child printed libFuzzer's final statistics too), one that prints
# none, one missing, one honest. The run must reach the last target, take
# the parent's figures, name the bad ones in the table and exit 1.
#   tests/fuzz/fuzz-long-selftest.sh
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0

# fake NAME BODY: a target that runs BODY (sh) for any arguments.
fake() {
	printf '#!/bin/sh\n%s\n' "$2" > "$t/$1"
	chmod +x "$t/$1"
}
stats() {
	printf 'echo "stat::number_of_executed_units: %s"; echo "stat::average_exec_per_sec:     %s";' "$1" "$2"
}
# Busy for a moment, so that its CPU time is not 0 (the old script only
# did the arithmetic that choked on two blocks when it was not).
busy='end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done'
fake fuzz_adb_shell "$busy; echo 'Done 900 runs in 2 second(s)'; $(stats 900 450)
echo '==7== ERROR: libFuzzer: fuzz target exited'; $(stats 3 3)"
fake fuzz_codec "echo 'no statistics'"
fake fuzz_config "echo 'Done 50 runs in 1 second(s)'; $(stats 50 50)"

out=$(tests/fuzz/fuzz-long.sh 1 "$t" fuzz_adb_shell fuzz_codec fuzz_nosuch \
	fuzz_config 2>&1)
rc=$?
echo "$out"
row() { printf '%s\n' "$out" | awk -v t="$1" '$1 == t'; }
expect() {
	if eval "$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1"
		fail=1
	fi
}
expect "exits 1 (bad targets)" '[ $rc = 1 ]'
expect "the parent's figures for the target with two stat blocks" \
	'row fuzz_adb_shell | grep -Eq "^fuzz_adb_shell +[0-9]+ +900 +450 "'
expect "a target without figures is named" 'row fuzz_codec | grep -q "no figures"'
expect "a missing target is named" 'row fuzz_nosuch | grep -q "no corpus or binary"'
expect "the run reached the last target" \
	'row fuzz_config | grep -Eq "^fuzz_config +[0-9]+ +50 +50 "'
expect "the child's stat block is reported" \
	'printf "%s\n" "$out" | grep -q "fuzz_adb_shell: 2 stat blocks"'

# FUZZ_JOBS=2: two targets at a time. Each fake waits for the other to
# have started (at most 20 s), so they give figures only when run side by
# side; the table keeps the order of the arguments.
meet='touch "$T/$1"; i=0; while [ ! -e "$T/$2" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$T/$2" ] || exit 0'
fake fuzz_state "set -- a b; T=$t; $meet; echo 'Done 7 runs'; $(stats 7 7)"
fake fuzz_hid "set -- b a; T=$t; $meet; echo 'Done 8 runs'; $(stats 8 8)"
out=$(FUZZ_JOBS=2 tests/fuzz/fuzz-long.sh 1 "$t" fuzz_state fuzz_hid 2>&1)
rc=$?
echo "$out"
expect "FUZZ_JOBS=2 exits 0 (good targets)" '[ $rc = 0 ]'
expect "FUZZ_JOBS=2 runs two at a time" \
	'row fuzz_state | grep -Eq "^fuzz_state +[0-9]+ +7 +7 " && row fuzz_hid | grep -Eq "^fuzz_hid +[0-9]+ +8 +8 "'
expect "the table keeps the order of the arguments" \
	'printf "%s\n" "$out" | awk "\$1 ~ /^fuzz_/ { print \$1 }" | tail -n 2 | tr "\n" " " | grep -qx "fuzz_state fuzz_hid "'
expect "FUZZ_JOBS=0 is refused" '! FUZZ_JOBS=0 tests/fuzz/fuzz-long.sh 1 "$t" fuzz_state >/dev/null 2>&1'
exit $fail
