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
exit $fail
