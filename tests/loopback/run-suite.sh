#!/bin/sh
# The dummy_hcd loopback suite: one fresh VM boot per tests/loopback/t-*.sh.
# Usage: run-suite.sh BEDDIR OUTDIR [TEST...]
# Each test runs in the guest as root with SRC (this tree) and B (its
# build directory) set; its console goes to OUTDIR/NAME/console.log.
# GADGETD_TEST_ENV: VAR=VALUE words every test sees too (no spaces
# inside a value), e.g. "SOAK_ROUNDS=100 SOAK_SEED=7".
set -u
bed=${1:?usage: run-suite.sh BEDDIR OUTDIR [TEST...]}
out=${2:?usage: run-suite.sh BEDDIR OUTDIR [TEST...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmo=${GADGETD_TEST_TIMEOUT:-420}
if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$(cd "$here" && ls t-*.sh)
fi
mkdir -p "$out"
# One install tree for every test's gd_install (tests/loopback/lib.sh).
stage=$out/.stage
rm -rf "$stage"
make -s -C "$src" install-files DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc >"$out/stage.log" 2>&1 ||
	{ cat "$out/stage.log"; echo "loopback: make install-files DESTDIR=$stage failed"; exit 1; }
pass=0 fail=0 failed=""
for t in $tests; do
	t=$(basename "$t")
	name=${t%.sh}
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	start=$(date +%s)
	printf '%-28s ' "$name"
	"$src/tests/vm/run.sh" "$bed" "$out/$name" "$tmo" \
		"SRC=$src B=$src/build GD_STAGE=$stage ${GADGETD_TEST_ENV:-} sh $here/guest-run.sh $t" >/dev/null 2>"$out/$name/run.err"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc = 0 ]; then
		pass=$((pass + 1))
		echo "ok (${secs}s)"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		case $rc in
		124) why="timed out after ${tmo}s" ;;
		125) why="the VM did not boot" ;;
		*) why="exit $rc" ;;
		esac
		echo "FAILED: $why (${secs}s)"
		echo "---- last lines of $out/$name/console.log"
		tail -n 60 "$out/$name/console.log" | tr -d '\r' | grep -v '^.\[?7l'
		cat "$out/$name/run.err"
		echo "----"
	fi
done
echo "loopback: $pass passed, $fail failed"
[ $fail = 0 ] || { echo "failed:$failed"; exit 1; }
[ $pass -gt 0 ] || { echo "loopback: no test ran"; exit 1; }
