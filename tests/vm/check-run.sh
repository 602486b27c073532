#!/bin/sh
# make check once everything is built: the unit tests, the fuzz corpora,
# the loopback suite, the arm64 and armhf beds and check-cross, one part
# after the other, each on every CPU; the first part that fails ends the
# run. Beside them from the start, at the lowest CPU priority: the ARM
# side's preparation (check-arm64.sh ARCH prepare: the arm64 bed, which
# mmdebstrap mostly downloads, and the arm64 and armhf packages and unit
# tests, cross-built). It takes what the others leave: the network, the
# CPU while VMs wait, the loopback suite's last test alone. The tests in
# front keep their CPU (nice 19 weighs 15 against 1024). Run one after
# the other on a nearly idle two-CPU machine, the preparation cost about
# 4 min of the 30 (2026-12-05).
# Usage: check-run.sh BUILDDIR   (MAKE: the make to call)
set -u
b=${1:?usage: check-run.sh BUILDDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
make=${MAKE:-make}
mkdir -p "$b"
b=$(cd "$b" && pwd)
log=$b/arm-prepare.log
start=$(date +%s)

# The preparation runs in a process group of its own (setsid: a child
# in the background is no group leader, so setsid needs no fork and $!
# is the group), so that a failure in front takes all of it down,
# builds and downloads too.
setsid nice -n 19 sh -c '"$1" "$2" arm64 prepare && "$1" "$2" armhf prepare' sh \
	"$src/tests/vm/check-arm64.sh" "$b" >"$log" 2>&1 &
prep=$!
trap 'kill -TERM -$prep 2>/dev/null' EXIT
trap 'exit 130' INT TERM

step() {
	echo "check: $* ($(($(date +%s) - start)) s in)"
}
step "unit tests, fuzz corpora, loopback suite; the ARM preparation beside them (log: $log)"
$make WERROR=1 unit fuzz-regress loopback || exit 1
step "waiting for the ARM preparation"
wait $prep
rc=$?
trap - EXIT
cat "$log"
[ $rc = 0 ] || { echo "check: the ARM preparation failed (exit $rc)"; exit 1; }
for arch in arm64 armhf; do
	step "check-arm64 $arch"
	"$src/tests/vm/check-arm64.sh" "$b" $arch run || exit 1
done
step "check-cross"
"$src/tests/vm/check-cross.sh" "$b" || exit 1
step "all passed"
