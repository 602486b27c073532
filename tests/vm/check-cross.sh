#!/bin/sh
# make check-cross: gadgetd cross-built for arm64 and armhf with Debian's
# toolchains (make deps CROSS=arm64,armhf), then every unit test run under
# qemu-user.
# Usage: check-cross.sh BUILDDIR [ARCH...]   (ARCH: arm64 armhf)
# Each architecture builds in BUILDDIR/cross-ARCH. The unit tests keep
# ASan and UBSan; LeakSanitizer cannot run under qemu-user (it needs
# ptrace), so leaks are only checked by the native make unit.
# CROSS_SKIP names tests to leave out (see below for why the defaults are).
set -u
b=${1:?usage: check-cross.sh BUILDDIR [ARCH...]}
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
archs=${*:-arm64 armhf}
# qemu-user runs the test, but the kernel applies a filter the test
# installs to qemu's own host calls: a seccomp filter for aarch64 kills
# the x86-64 qemu at once.
skip=${CROSS_SKIP:-test_sandbox}
cd "$src" || exit 1
total_pass=0 total_fail=0 failed=""
for a in $archs; do
	case $a in
	arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
	armhf) triplet=arm-linux-gnueabihf qemu=qemu-arm-static ;;
	*) echo "check-cross: unknown architecture $a (arm64, armhf)" >&2; exit 2 ;;
	esac
	for t in "$triplet-gcc" "$triplet-pkg-config" "$qemu"; do
		command -v "$t" >/dev/null ||
			{ echo "check-cross: $t missing: make deps CROSS=$a" >&2; exit 1; }
	done
	out=$b/cross-$a
	echo "== $a: make CROSS_COMPILE=$triplet- B=$out"
	start=$(date +%s)
	make -s -j2 CROSS_COMPILE="$triplet-" B="$out" all unit-build >"$b/cross-$a.log" 2>&1 ||
		{ tail -n 40 "$b/cross-$a.log"; echo "check-cross: the $a build FAILED"; exit 1; }
	echo "== $a: built in $(($(date +%s) - start)) s"
	start=$(date +%s)
	for t in "$out"/unit/*; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		case " $skip " in *" $n "*) echo "== $a $n: skipped (CROSS_SKIP)"; continue ;; esac
		# The sanitizer runtimes of the cross compiler live in
		# /usr/TRIPLET/lib, outside the target's multiarch paths.
		if ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=/usr/$triplet/lib timeout 600 "$qemu" "$t" >"$out/unit/$n.log" 2>&1; then
			total_pass=$((total_pass + 1))
			echo "== $a $n: ok"
		else
			total_fail=$((total_fail + 1))
			failed="$failed $a/$n"
			tail -n 30 "$out/unit/$n.log"
			echo "== $a $n: FAILED"
		fi
	done
	echo "== $a: unit tests ran in $(($(date +%s) - start)) s"
done
echo "check-cross: $total_pass passed, $total_fail failed"
[ $total_fail = 0 ] || { echo "failed:$failed"; exit 1; }
[ $total_pass -gt 0 ] || { echo "check-cross: no test ran"; exit 1; }
