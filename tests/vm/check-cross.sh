#!/bin/sh
# make check-cross: gadgetd's unit tests cross-built for arm64 and armhf
# with Debian's toolchains in the cross build root (tests/vm/mkcross.sh,
# BUILDDIR/cross-root), each run under qemu-user against that root's
# libraries. (The product is cross-built as the package check-arm64.sh
# boots; the unit tests compile the sources they test themselves.)
# Usage: check-cross.sh BUILDDIR [ARCH...]   (ARCH: arm64 armhf)
# Each architecture builds in BUILDDIR/cross-ARCH. CROSS_HOST=1 builds
# with this machine's own toolchains and multiarch libraries instead (as
# check-cross-selftest.sh does with fakes). The unit tests are
# built with UBSan only: under qemu-user, ASan's children of fork() (the
# adb shell tests) died with SIGSEGV, and LeakSanitizer needs ptrace;
# the native make unit keeps both. A test that fails counts as failed
# and fails the run: it is not run again, so a flaky test shows as one.
# CROSS_JOBS: tests run at once (default: two per CPU). CROSS_SUITE and
# CROSS_ROOTDIR: another release's build root (mkcross.sh ROOTDIR SUITE).
# CROSS_SKIP names tests to leave out (see below for why the defaults
# are).
set -u
b=${1:?usage: check-cross.sh BUILDDIR [ARCH...]}
mkdir -p "$b" && b=$(cd "$b" && pwd) || exit 1
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
archs=${*:-arm64 armhf}
# What Debian 12's qemu-user (7.2) cannot run, and so left out:
# - test_sandbox, test_aioguard, test_aiopreload, test_describe: the
#   kernel applies the seccomp filter a test installs to qemu's own
#   x86-64 calls, and qemu dies (test_describe: installing it failed
#   with ENOMEM); test_aiopreload also runs itself again with
#   LD_PRELOAD, which qemu-user does not follow;
# - test_mtp_store, test_mtp_edit, test_mtp_events, test_mtp_plugin,
#   test_ptp, test_storage: openat2, which confines MTP storages, is not emulated (ENOSYS);
# - test_tcplisten: getsockopt(SO_BINDTODEVICE) is not emulated;
# test_sup_argv and test_supervisor run their workers as the test binary
# again, execv of /proc/self/exe: qemu-user does not follow execve, it
# hands the host the guest binary's path, and with no binfmt_misc
# handler for the target that is ENOEXEC. $UNIT_SELF (run_test) is a
# script that runs the binary under qemu instead. The fork storm
# test_supervisor once caused here (1200 processes a minute) was the
# libc mix-up below: a worker child died of SIGSEGV before exec,
# cmocka's handler took it back into the suite, and each copy forked
# workers of its own; the test now ends such copies.
# On armhf, also CROSS_SKIP_ARMHF (default test_composer): Debian 12's
# armhf libusbgx lists folders with the 32-bit scandir, and qemu, a
# 64-bit process, gets ext4's 64-bit hash cookies in d_off, so glibc's
# readdir fails with EOVERFLOW on a /tmp on ext4 (a real armhf kernel,
# or an arm64 one running armhf, hands a 32-bit task 32-bit cookies).
# The ARM beds (make check-arm64, check-armhf) run these on the arm64
# kernel (tests/vm/cross.sh holds the lists).
. "$src/tests/vm/cross.sh"
skip=${CROSS_SKIP-$CROSS_SKIP_DEFAULT}
cd "$src" || exit 1
# run_test BINARY LOG: the unit test under qemu-user, by the script that
# also runs it again as a worker (UNIT_SELF: test_supervisor and
# test_sup_argv, since qemu-user cannot exec /proc/self/exe, above).
# With the build root, qemu runs the root's own dynamic loader on the
# test, with the root's libraries for TRIPLET (UBSan's libubsan1:ARCH
# among them). Not QEMU_LD_PREFIX: qemu-user then looks up every path a
# program uses in the prefix first, and the tests' own files under /tmp
# came back under another name (test_state's fsync of its folder).
# Without the root (CROSS_HOST=1), ld.so is the target's own from this
# machine's multiarch (libc6:ARCH, /lib/TRIPLET), and the cross
# compiler's sanitizer runtimes are in /usr/TRIPLET/lib; that folder
# also holds the cross libc (libc6-ARCH-cross), which must not be
# loaded: with a libc.so.6 from another build every child of fork()
# died of SIGSEGV (si_addr 0x3d8) before it could exec (the adb shell
# tests, test_ctl, the supervisor's workers).
run_test() {
	self=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	mkdir -p "$out/self" || return 1
	if [ -n "$root" ]; then
		printf "#!/bin/sh\nexec '%s' '%s' --library-path '%s' '%s' \"\$@\"\n" \
			"$(command -v "$qemu")" "$root/usr/lib/$ldso" "$root/usr/lib/$triplet" "$self"
	else
		printf "#!/bin/sh\nLD_LIBRARY_PATH=/lib/%s:/usr/%s/lib exec '%s' '%s' \"\$@\"\n" \
			"$triplet" "$triplet" "$(command -v "$qemu")" "$self"
	fi >"$out/self/$n" && chmod +x "$out/self/$n" || return 1
	UNIT_SELF=$(cd "$out/self" && pwd)/$n timeout -k 5 300 "$out/self/$n" >"$2" 2>&1
}
# next_test DIR: the next name in DIR/.queue, or nothing once all are taken.
next_test() {
	(
		flock 9
		i=$(cat "$1/.next")
		echo $((i + 1)) >"$1/.next"
		sed -n "${i}p" "$1/.queue"
	) 9>"$1/.lock"
}
jobs=${CROSS_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
total_pass=0 total_fail=0 failed=""
if [ "${CROSS_HOST:-0}" = 1 ]; then
	root=
else
	# CROSS_SUITE=trixie: the tests built and run against trixie's
	# libraries, in its root CROSS_ROOTDIR (make check-cross-trixie).
	rootdir=${CROSS_ROOTDIR:-$b/cross-root}
	"$src/tests/vm/mkcross.sh" "$rootdir" ${CROSS_SUITE:+"$CROSS_SUITE"} || exit 1
	root=$(cd "$rootdir" && pwd)/root
fi
for a in $archs; do
	triplet=$(cross_triplet "$a") ||
		{ echo "check-cross: unknown architecture $a (arm64, armhf)" >&2; exit 2; }
	case $a in
	arm64) qemu=qemu-aarch64-static ldso=ld-linux-aarch64.so.1 askip= ;;
	armhf) qemu=qemu-arm-static ldso=ld-linux-armhf.so.3 askip=${CROSS_SKIP_ARMHF-$CROSS_SKIP_ARMHF_DEFAULT} ;;
	esac
	tools=$qemu
	[ -n "$root" ] || tools="$tools $triplet-gcc $triplet-pkg-config"
	for t in $tools; do
		command -v "$t" >/dev/null ||
			{ echo "check-cross: $t missing: make deps CROSS=$a" >&2; exit 1; }
	done
	out=$b/cross-$a
	echo "== $a: make CROSS_COMPILE=$triplet- B=$out${root:+ (in $root)}"
	start=$(date +%s)
	cross_unit_build "$root" "$src" "$b" "$a" ||
		{ tail -n 40 "$b/cross-$a.log"; echo "check-cross: the $a build FAILED"; exit 1; }
	echo "== $a: built in $(($(date +%s) - start)) s"
	start=$(date +%s)
	# test_* only: unit/ also holds test_loader's fake_abi_*.so.
	# CROSS_JOBS tests at a time (default: two per CPU; qemu-user runs
	# each on one host thread, and most of them wait: one at a time,
	# each ran about as long as natively, 108 s in all for arm64,
	# 2026-12-07). Workers take the next test from a queue.
	# The longest first (tests/unit/longest-first.sh), as make unit runs
	# them.
	: >"$out/unit/.queue"
	"$src/tests/unit/longest-first.sh" "$out"/unit/test_* | while read -r t; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		rm -f "$out/unit/$n.result"
		case " $skip $askip " in *" $n "*) echo "== $a $n: skipped (CROSS_SKIP)"; continue ;; esac
		echo "$n" >>"$out/unit/.queue"
	done
	echo 1 >"$out/unit/.next"
	j=0
	while [ $j -lt "$jobs" ]; do
		while n=$(next_test "$out/unit") && [ -n "$n" ]; do
			if run_test "$out/unit/$n" "$out/unit/$n.log"; then
				echo ok >"$out/unit/$n.result"
				echo "== $a $n: ok"
			else
				echo FAILED >"$out/unit/$n.result"
				echo "== $a $n: FAILED (log: $out/unit/$n.log)"
			fi
		done &
		j=$((j + 1))
	done
	wait
	while read -r n; do
		if [ "$(cat "$out/unit/$n.result" 2>/dev/null)" = ok ]; then
			total_pass=$((total_pass + 1))
			continue
		fi
		total_fail=$((total_fail + 1))
		failed="$failed $a/$n"
		echo "---- $a $n: last lines of $out/unit/$n.log"
		tail -n 30 "$out/unit/$n.log"
	done <"$out/unit/.queue"
	echo "== $a: unit tests ran in $(($(date +%s) - start)) s"
done
echo "check-cross: $total_pass passed, $total_fail failed"
[ $total_fail = 0 ] || { echo "failed:$failed"; exit 1; }
[ $total_pass -gt 0 ] || { echo "check-cross: no test ran"; exit 1; }
