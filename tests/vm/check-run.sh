#!/bin/sh
# make check: the packages, the build, the fuzz corpora, the Debian
# package with its unit tests, the loopback suite, the arm64 and armhf
# beds and check-cross. The first
# part that fails ends the run. What only waits on the network or on
# another part runs beside the parts in front:
# - the build's packages are installed first (deps.sh build); the test
#   tools' and the cross toolchains' (deps.sh test cross) while the tree
#   compiles and the unit tests run: on a fresh machine the install was
#   8 of make check's 35 minutes (2026-12-04);
# - once those packages are in, the loopback bed and the adb 34 root
#   (make bed adbd-root, mostly downloads), then the ARM side's
#   preparation (check-arm64.sh ARCH prepare: the arm64 bed, which
#   mmdebstrap mostly downloads, and the arm64 and armhf packages and
#   unit tests, cross-built), all at the lowest CPU priority, beside
#   make deb and then the loopback suite: they take what the compilers
#   and the VMs leave while they wait. make deb's unit tests mostly
#   wait (timers, children): the machine was 85 % idle for a minute of
#   them, when the preparation only started after make deb (2026-12-07).
#   Nice only orders the run queue: the two CPUs' caches and memory stay
#   shared, and beside it the VMs used more CPU time (t-hid 165 s
#   against 107 s alone, 2026-12-05);
# - check-cross (the unit tests under qemu-user, most of them waiting)
#   in the same group once the preparation is done: it ends during the
#   suite, and the two ARM boots, at once, follow the suite alone.
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
# Its exit status goes to a file: the preparation below waits for it.
deps_log=$b/deps.log
deps_rc=$b/deps.rc
rm -f "$deps_rc"
setsid sh -c '"$1" test cross; echo $? >"$2.new" && mv "$2.new" "$2"' sh \
	"$src/tests/vm/deps.sh" "$deps_rc" >"$deps_log" 2>&1 &
deps=$!
log=$b/arm-prepare.log
cross_log=$b/check-cross.log
bed_ready=$b/bed-prepared
ready=$b/arm-prepared
rm -f "$ready" "$bed_ready"
# setsid makes a new session, and with the scheduler's autogroups (on in
# Debian's kernels) a session shares the CPU with the others whatever
# its processes' nice: the session's own nice is set as well, or the
# VMs ran 1.4 times their CPU time in wall time (2026-12-05).
# It waits for the packages (deps.rc), makes the loopback bed
# (BUILDDIR/bed-prepared once done), the ARM beds and packages
# (BUILDDIR/arm-prepared); check-cross (the unit tests under qemu-user,
# most of them waiting) follows in the same group, during the suite.
setsid nice -n 19 sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
	while [ ! -e "$7" ]; do sleep 1; done
	[ "$(cat "$7")" = 0 ] || { echo "check: the test and cross packages are not installed: no beds"; exit 1; }
	$8 bed adbd-root || exit 1
	touch "$6"
	"$1" "$2" arm64 prepare && "$1" "$2" armhf prepare || exit 1
	touch "$4"
	"$3" "$2" >"$5" 2>&1 || { echo "check: check-cross FAILED (log: $5)"; exit 1; }' sh \
	"$src/tests/vm/check-arm64.sh" "$b" "$src/tests/vm/check-cross.sh" "$ready" "$cross_log" \
	"$bed_ready" "$deps_rc" "$make" >"$log" 2>&1 &
prep=$!
arm_arm64= arm_armhf=
trap '[ -n "$prep" ] && kill -TERM -$prep 2>/dev/null
	for p in $arm_arm64 $arm_armhf; do kill -TERM $p 2>/dev/null; done
	wait $deps 2>/dev/null' EXIT
trap 'exit 130' INT TERM
step "compile ($jobs jobs); beside it the test and cross packages (log: $deps_log), then the beds (log: $log)"
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
rc=$(cat "$deps_rc" 2>/dev/null)
cat "$deps_log"
[ "$rc" = 0 ] || { echo "check: installing the test and cross packages failed (exit ${rc:-none})"; exit 1; }
# prepared STAMP WHAT: wait until the preparation's group made STAMP;
# if the group ends without it, its log and "WHAT failed", and exit 1.
prepared() {
	while [ ! -e "$1" ] && kill -0 $prep 2>/dev/null; do
		sleep 1
	done
	[ -e "$1" ] && return 0
	wait $prep
	rc=$?
	prep=
	cat "$log"
	echo "check: $2 failed (exit $rc)"
	exit 1
}
step "waiting for the loopback bed"
prepared "$bed_ready" "making the loopback bed"

step "loopback suite; the ARM preparation beside it (log: $log)"
$make WERROR=1 DEB_BUILT=yes loopback || exit 1
step "waiting for the ARM preparation"
prepared "$ready" "the ARM preparation"
cat "$log"
# Both ARM beds at once, one vCPU each: 93 s against 167 s one after the
# other with two vCPUs each (2026-12-07, nothing else running; on
# 2026-12-05 it was the other way round, 403 s against 247 s, with
# check-cross beside them, which then ran its tests two at a time, most
# of them waiting, and was still far from done; it now ends during the
# suite).
step "check-arm64 arm64 and armhf at once, one vCPU each"
for arch in arm64 armhf; do
	GADGETD_ARM_SMP=1 "$src/tests/vm/check-arm64.sh" "$b" $arch run >"$b/check-$arch.log" 2>&1 &
	eval "arm_$arch=\$!"
done
arm_failed=
for arch in arm64 armhf; do
	eval "wait \$arm_$arch" || arm_failed="$arm_failed $arch"
	cat "$b/check-$arch.log"
done
arm_arm64= arm_armhf=
[ -z "$arm_failed" ] || { echo "check: check-arm64 failed:$arm_failed"; exit 1; }
step "waiting for check-cross"
wait $prep
rc=$?
prep=
cat "$cross_log"
[ $rc = 0 ] || { echo "check: check-cross failed (exit $rc)"; exit 1; }
step "all passed"
