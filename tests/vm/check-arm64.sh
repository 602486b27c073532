#!/bin/sh
# make check-arm64 / check-armhf: the loopback suite's core on Debian's
# arm64 kernel under qemu-system-aarch64 (-M virt, TCG), with the host
# tools of mkbed-arm64.sh; one boot runs tests/vm/arm64-core.sh.
# ARCH is the gadgetd build that runs there: arm64, or armhf, 32-bit
# ARM binaries on the 64-bit kernel (CONFIG_COMPAT), as on a Raspberry
# Pi OS with a 64-bit kernel; Debian's armmp kernel has no QEMU machine
# with a UDC to spare, and the compat path is the one 32-bit boards
# with arm64 SoCs run. The same boot runs the unit tests qemu-user
# cannot (check-cross.sh says why) on that real kernel.
# Usage: check-arm64.sh BUILDDIR [ARCH [prepare|run]]
# (the package: BUILDDIR/deb-ARCH). prepare makes the bed, the package
# and the unit tests and stops; run boots what an earlier prepare of this
# ARCH made (tests/check-run.sh prepares beside the loopback suite);
# neither: both, one after the other.
set -u
b=${1:?usage: check-arm64.sh BUILDDIR [arm64|armhf [prepare|run]]}
arch=${2:-arm64}
phase=${3:-all}
case $phase in
all | prepare | run) ;;
*) echo "check-arm64: $phase: prepare or run" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/vm/cross.sh"
triplet=$(cross_triplet "$arch") ||
	{ echo "check-arm64: unknown architecture $arch (arm64, armhf)" >&2; exit 2; }
mkdir -p "$b"
b=$(cd "$b" && pwd)
tmo=${GADGETD_TEST_TIMEOUT:-1500}
start=$(date +%s)
# prepare: the bed, the package and the unit tests; a run after a
# prepare finds them in BUILDDIR (the stamp says this ARCH's are done).
prepared=$b/prepared-$arch
if [ "$phase" != run ]; then
	rm -f "$prepared"
	"$src/tests/vm/mkbed-arm64.sh" "$b/vm-arm64" || exit 1
	# Everything ARM is built in the cross build root (mkcross.sh).
	"$src/tests/vm/mkcross.sh" "$b/cross-root" || exit 1
	root=$b/cross-root/root
	# gadgetd as the board gets it: the package cross-built for ARCH
	# (dpkg-buildpackage -a ARCH), its files unpacked into the guest.
	DEB_BUILD_OPTIONS=nocheck MKDEB_LINTIAN=no "$src/tests/vm/mkdeb.sh" "$b/deb-$arch" "$arch" "$root" >"$b/deb-$arch.log" 2>&1 ||
		{ tail -n 30 "$b/deb-$arch.log"; echo "check-arm64: the $arch package failed to build"; exit 1; }
	deb=$(ls "$b/deb-$arch"/gadgetd_*_"$arch".deb)
	[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] ||
		{ echo "check-arm64: $deb is not for $arch"; exit 1; }
	# The unit tests as check-cross.sh builds them (UBSan only), in its
	# directory: one build serves both. The product itself is the
	# package's build above (its UBSan build was 27 CPU-s an architecture
	# that no test ran; 2026-12-05).
	cross_unit_build "$root" "$src" "$b" "$arch" ||
		{ tail -n 30 "$b/cross-$arch.log"; echo "check-arm64: the $arch unit test build failed"; exit 1; }
	# On 32-bit ARM, clang finds every implicit 64-to-32-bit truncation.
	if [ "$arch" = armhf ]; then
		cross_in "$root" "$src" "$b" "$src/tests/vm/shorten.sh" ||
			{ echo "check-arm64: armhf: tests/vm/shorten.sh failed"; exit 1; }
	fi
	touch "$prepared"
	echo "check-arm64: $arch: package, unit tests and bed ready in $(($(date +%s) - start)) s"
	[ "$phase" = prepare ] && exit 0
fi
[ -e "$prepared" ] || { echo "check-arm64: $arch: nothing prepared in $b (check-arm64.sh $b $arch prepare)"; exit 1; }
deb=$(ls "$b/deb-$arch"/gadgetd_*_"$arch".deb)
out=$b/loopback-$arch
rm -rf "$out"
mkdir -p "$out"
stage=$out/.stage
dpkg-deb -x "$deb" "$stage" || { echo "check-arm64: dpkg-deb -x $deb failed"; exit 1; }
bed=$b/vm-arm64
# A root with merged /usr: the package's /lib files go where dpkg puts
# them, through the /lib link (lib.sh's gd_install copies the stage).
if [ -L "$bed/root/lib" ] && [ -d "$stage/lib" ]; then
	cp -a "$stage/lib/." "$stage/usr/lib/" && rm -rf "$stage/lib"
fi
# The guest's init must be in its root: this tree is mounted by it.
# make check runs check-arm64 and check-armhf at once on the one bed: the
# file is replaced by a rename, never rewritten in place under the other
# one's guest.
init=$bed/root/usr/local/sbin/gadgetd-guest-init
cmp -s "$src/tests/vm/guest-arm64.sh" "$init" || {
	install -D -m755 "$src/tests/vm/guest-arm64.sh" "$init.$$" && mv -f "$init.$$" "$init"
} || { echo "check-arm64: cannot install the guest's init in $bed/root"; exit 1; }
echo "check-arm64: $arch: booting with $(basename "$deb")"
# The unit tests qemu-user cannot run (make check-cross runs the rest).
units=$CROSS_SKIP_DEFAULT
[ "$arch" = armhf ] && units="$units $CROSS_SKIP_ARMHF_DEFAULT"
units=${ARM_UNIT_TESTS-$units}
cmd="SRC=$src B=$b/deb-$arch ARCH=$arch UNIT=$b/cross-$arch/unit ARM_UNIT_TESTS=$(echo $units | tr ' ' ,) GD_STAGE=/mnt/out/.stage ${GADGETD_TEST_ENV:-} sh $src/tests/vm/arm64-core.sh"
cmd=$(printf '%s' "$cmd" | sed 's/ /\\x20/g')
boot=$(date +%s)
timeout -k 5 "$tmo" qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu cortex-a72 \
	-m 2048 -smp ${GADGETD_ARM_SMP:-2} -nographic -no-reboot -net none \
	-kernel "$bed/vmlinuz" -initrd "$bed/initrd" \
	-virtfs local,path="$bed/root",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$src",mount_tag=src,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$out",mount_tag=out,security_model=none,multidevs=remap \
	-append "console=ttyAMA0 quiet loglevel=3 panic=-1 gadgetd.init=/usr/local/sbin/gadgetd-guest-init gadgetd.src=$src gadgetd.script=$cmd" \
	</dev/null > "$out/console.log" 2>&1
rc=$(tr -d '\r' < "$out/console.log" | sed -n 's/^GADGETD-EXIT=\([0-9]*\).*/\1/p' | tail -n1)
tr -d '\r' < "$out/console.log" | grep -E '^(ok|FAIL|==|checks)'
echo "check-arm64: $arch on the arm64 kernel: the VM ran $(($(date +%s) - boot)) s, $(($(date +%s) - start)) s in all"
case $rc in
0) echo "check-arm64: $arch passed"; exit 0 ;;
'') tail -n 40 "$out/console.log"; echo "check-arm64: $arch FAILED: no exit code (timeout ${tmo}s or no boot)"; exit 1 ;;
*) tail -n 60 "$out/console.log"; echo "check-arm64: $arch FAILED: exit $rc"; exit 1 ;;
esac
