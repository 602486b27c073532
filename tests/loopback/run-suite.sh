#!/bin/sh
# The dummy_hcd loopback suite: one fresh VM boot per tests/loopback/t-*.sh.
# Usage: run-suite.sh BEDDIR OUTDIR [TEST...]
# Each test runs in the guest as root with SRC (this tree) and B (its
# build directory) set; its console goes to OUTDIR/NAME/console.log.
# GADGETD_TEST_ENV: VAR=VALUE words every test sees too (no spaces
# inside a value), e.g. "SOAK_ROUNDS=100 SOAK_SEED=7".
# GADGETD_TEST_JOBS: how many VMs run at once, one per host CPU by
# default: each VM has one vCPU (tests/vm/run.sh says why). The tests
# share nothing but the read-only host tree; the longest start first.
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
# Absolute: the guest runs the tests from /mnt/out/scratch, where a
# relative GD_STAGE is not there and gd_install fell back to a make
# install of its own (10 s a test instead of 1).
out=$(cd "$out" && pwd)
# One install tree for every test's gd_install (tests/loopback/lib.sh),
# or with GADGETD_TEST_DEB (make check-trixie) that package, which every
# test's gd_install puts in with dpkg -i (the guest must see its path).
stage=$out/.stage
rm -rf "$stage"
if [ -n "${GADGETD_TEST_DEB:-}" ]; then
	[ -f "$GADGETD_TEST_DEB" ] || { echo "loopback: GADGETD_TEST_DEB: no file $GADGETD_TEST_DEB"; exit 1; }
	install="GD_DEB=$(cd "$(dirname "$GADGETD_TEST_DEB")" && pwd)/$(basename "$GADGETD_TEST_DEB")"
else
	make -s -C "$src" install-files DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc >"$out/stage.log" 2>&1 ||
		{ cat "$out/stage.log"; echo "loopback: make install-files DESTDIR=$stage failed"; exit 1; }
	install="GD_STAGE=$stage"
fi
# bed_of TEST: the words after "# bed:" in the test's header
# (tests/loopback/lib.sh says what they mean).
bed_of() { sed -n 's/^# bed: *//p' "$here/$1" | head -n 1; }

jobs=${GADGETD_TEST_JOBS:-$(nproc)}
# The longest tests first (their times on 2026-12-06, the systemd bed's
# with its boot), so that the queues end about together; then the rest
# in name order.
long="t-unit.sh t-net.sh t-hid.sh t-install.sh t-deb.sh t-accessory.sh t-dbus.sh t-switch.sh t-ptp.sh t-stress.sh t-storage.sh t-mtp-space.sh t-privsep.sh t-soak.sh"
queue=$out/.queue
: > "$queue"
for l in $long; do
	for t in $tests; do
		[ "$(basename "$t")" = "$l" ] && echo "$l" >> "$queue"
	done
done
for t in $tests; do
	t=$(basename "$t")
	case " $long " in *" $t "*) ;; *) echo "$t" >> "$queue" ;; esac
done
echo 1 > "$out/.next"
# Every test names its bed (lib.sh): one that does not is refused
# before any VM boots.
nobed=
while read -r t; do
	case $(bed_of "$t") in
	systemd | "systemd disk" | "light - "?*) ;;
	*) nobed="$nobed $t" ;;
	esac
done < "$queue"
[ -z "$nobed" ] || { echo "loopback: no valid '# bed:' line (tests/loopback/lib.sh) in:$nobed"; exit 1; }

# next_test: the next queued test, or nothing once all are taken.
next_test() {
	(
		flock 9
		i=$(cat "$out/.next")
		echo $((i + 1)) > "$out/.next"
		sed -n "${i}p" "$queue"
	) 9> "$out/.lock"
}

# run_one TEST: one VM; the verdict goes to OUTDIR/NAME/result.
run_one() {
	name=${1%.sh}
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	pid1= disk=
	case " $(bed_of "$1") " in
	" systemd "*) pid1=systemd ;;
	esac
	case " $(bed_of "$1") " in
	*" disk "*) disk=1 ;;
	esac
	start=$(date +%s)
	GADGETD_VM_PID1=$pid1 GADGETD_VM_DISK=$disk "$src/tests/vm/run.sh" "$bed" "$out/$name" "$tmo" \
		"SRC=$src B=$src/build $install ${GADGETD_TEST_ENV:-} sh $here/guest-run.sh $1" >/dev/null 2>"$out/$name/run.err"
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) why="ok" ;;
	124) why="FAILED: timed out after ${tmo}s" ;;
	125) why="FAILED: the VM did not boot" ;;
	*) why="FAILED: exit $rc" ;;
	esac
	echo "$why" > "$out/$name/result"
	printf "%-28s %s (%ss, cpu %ss%s)\n" "$name" "$why" "$secs" "$(cat "$out/$name/cpu" 2>/dev/null)" \
		"${pid1:+, under systemd}"
}

worker() {
	while t=$(next_test) && [ -n "$t" ]; do
		run_one "$t"
	done
}

echo "loopback: $(wc -l < "$queue") tests, $jobs VMs at once"
suite_start=$(date +%s)
j=0
while [ $j -lt "$jobs" ]; do
	worker &
	j=$((j + 1))
done
wait
pass=0 fail=0 failed=""
while read -r t; do
	name=${t%.sh}
	if [ "$(cat "$out/$name/result" 2>/dev/null)" = ok ]; then
		pass=$((pass + 1))
		continue
	fi
	fail=$((fail + 1))
	failed="$failed $name"
	echo "---- $name: $(cat "$out/$name/result" 2>/dev/null || echo "no result")"
	echo "---- last lines of $out/$name/console.log"
	tail -n 60 "$out/$name/console.log" | tr -d '\r' | grep -v '^.\[?7l'
	cat "$out/$name/run.err"
	echo "----"
done < "$queue"
echo "loopback: $pass passed, $fail failed in $(($(date +%s) - suite_start))s"
[ $fail = 0 ] || { echo "failed:$failed"; exit 1; }
[ $pass -gt 0 ] || { echo "loopback: no test ran"; exit 1; }
