#!/bin/sh
# make check: the packages, the build, the fuzz corpora, the Debian
# package with its unit tests, the loopback suite, the arm64 and armhf beds and check-cross. The first
# part that fails ends the run. What only waits on the network or on
# another part runs beside the parts in front:
# - the build's packages are installed first (deps.sh build); the test
#   tools' and the cross toolchains' (deps.sh test cross) while the tree
#   compiles and the unit tests run: on a fresh machine the install was
#   8 of make check's 35 minutes (2026-12-04);
# - the ARM side's preparation (check-arm64.sh ARCH prepare: the arm64
#   bed, which mmdebstrap mostly downloads, and the arm64 and armhf
#   packages and unit tests, cross-built) beside the loopback suite, at
#   the lowest CPU priority: it takes what the VMs leave while they wait,
#   and the suite's last test alone. Nice only orders the run queue: the
#   two CPUs' caches and memory stay shared, and beside it the VMs used
#   more CPU time (t-hid 165 s against 107 s alone, 2026-12-05);
# - check-cross (the unit tests under qemu-user) in the same group once
#   the preparation is done, beside the two ARM boots.
# Usage: check-run.sh BUILDDIR   (MAKE: the make to call; CHECK_JOBS:
# compile jobs, default one per CPU; CROSS: default arm64,armhf)
set -u
b=${1:?usage: check-run.sh BUILDDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
make=${MAKE:-make}
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
export CROSS=${CROSS:-arm64,armhf}
mkdir -p "$b"
b=$(cd "$b" && pwd)
start=$(date +%s)
step() {
	echo "check: $* ($(($(date +%s) - start)) s in)"
}

step "packages to build"
"$src/tests/vm/deps.sh" build || exit 1
# The other packages, in a process group of its own (setsid: a child in
# the background is no group leader, so setsid needs no fork and $! is
# the group). A failure in front waits for it: dpkg stopped half-way
# leaves the machine needing `dpkg --configure -a`.
deps_log=$b/deps.log
setsid "$src/tests/vm/deps.sh" test cross >"$deps_log" 2>&1 &
deps=$!
prep=
trap '[ -n "$prep" ] && kill -TERM -$prep 2>/dev/null; wait $deps 2>/dev/null' EXIT
trap 'exit 130' INT TERM
step "compile ($jobs jobs); the test and cross packages beside it (log: $deps_log)"
$make -j"$jobs" WERROR=1 check-build || exit 1
# The unit tests run in the Debian package's build: make deb builds them
# with dpkg-buildflags' hardening (_FORTIFY_SOURCE, the stack protector;
# a FORTIFY abort in test_dbus was once seen only there), as a fresh
# machine's `make deb` does, then runs lintian; the loopback suite
# installs that package (DEB_BUILT=yes).
step "fuzz corpora"
$make WERROR=1 fuzz-regress || exit 1
step "make deb: the package, its unit tests with Debian's hardening flags, lintian"
$make deb || exit 1
step "waiting for the test and cross packages"
wait $deps
rc=$?
cat "$deps_log"
[ $rc = 0 ] || { echo "check: installing the test and cross packages failed (exit $rc)"; exit 1; }

log=$b/arm-prepare.log
cross_log=$b/check-cross.log
ready=$b/arm-prepared
rm -f "$ready"
# setsid makes a new session, and with the scheduler's autogroups (on in
# Debian's kernels) a session shares the CPU with the others whatever
# its processes' nice: the session's own nice is set as well, or the
# VMs ran 1.4 times their CPU time in wall time (2026-12-05).
# check-cross (the unit tests under qemu-user, all CPU) follows in the
# same group: it fills what the ARM boots leave (a 2-vCPU TCG guest
# running one test at a time), where it ran 106 s after them.
setsid nice -n 19 sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
	"$1" "$2" arm64 prepare && "$1" "$2" armhf prepare || exit 1
	touch "$4"
	"$3" "$2" >"$5" 2>&1 || { echo "check: check-cross FAILED (log: $5)"; exit 1; }' sh \
	"$src/tests/vm/check-arm64.sh" "$b" "$src/tests/vm/check-cross.sh" "$ready" "$cross_log" >"$log" 2>&1 &
prep=$!
step "loopback suite; the ARM preparation beside it (log: $log)"
$make WERROR=1 DEB_BUILT=yes loopback || exit 1
step "waiting for the ARM preparation"
while [ ! -e "$ready" ] && kill -0 $prep 2>/dev/null; do
	sleep 1
done
if [ ! -e "$ready" ]; then
	wait $prep
	rc=$?
	prep=
	cat "$log"
	echo "check: the ARM preparation failed (exit $rc)"
	exit 1
fi
cat "$log"
for arch in arm64 armhf; do
	step "check-arm64 $arch; check-cross beside it (log: $cross_log)"
	"$src/tests/vm/check-arm64.sh" "$b" $arch run || exit 1
done
step "waiting for check-cross"
wait $prep
rc=$?
prep=
cat "$cross_log"
[ $rc = 0 ] || { echo "check: check-cross failed (exit $rc)"; exit 1; }
step "all passed"
