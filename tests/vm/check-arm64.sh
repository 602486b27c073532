#!/bin/sh
# make check-arm64: the loopback suite's core on Debian's arm64 kernel
# under qemu-system-aarch64 (-M virt, TCG), with gadgetd cross-built for
# arm64 and the arm64 host tools of mkbed-arm64.sh; one boot runs
# tests/vm/arm64-core.sh.
# Usage: check-arm64.sh BUILDDIR   (the arm64 build: BUILDDIR/arm64)
set -u
b=${1:?usage: check-arm64.sh BUILDDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$b"
b=$(cd "$b" && pwd)
tmo=${GADGETD_TEST_TIMEOUT:-1500}
start=$(date +%s)
"$src/tests/vm/mkbed-arm64.sh" "$b/vm-arm64" || exit 1
make -s -C "$src" -j2 CROSS_COMPILE=aarch64-linux-gnu- B="$b/arm64" all >"$b/arm64.log" 2>&1 ||
	{ tail -n 30 "$b/arm64.log"; echo "check-arm64: the arm64 build failed"; exit 1; }
out=$b/loopback-arm64
rm -rf "$out"
mkdir -p "$out"
stage=$out/.stage
make -s -C "$src" install-files B="$b/arm64" DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc >"$out/stage.log" 2>&1 ||
	{ cat "$out/stage.log"; echo "check-arm64: make install-files failed"; exit 1; }
bed=$b/vm-arm64
# The guest's init must be in its root: this tree is mounted by it.
install -D -m755 "$src/tests/vm/guest-arm64.sh" "$bed/root/usr/local/sbin/gadgetd-guest-init"
echo "check-arm64: bed and build ready in $(($(date +%s) - start)) s; booting"
cmd="SRC=$src B=$b/arm64 GD_STAGE=$stage ${GADGETD_TEST_ENV:-} sh $src/tests/vm/arm64-core.sh"
cmd=$(printf '%s' "$cmd" | sed 's/ /\\x20/g')
boot=$(date +%s)
timeout -k 5 "$tmo" qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu cortex-a72 \
	-m 2048 -smp 2 -nographic -no-reboot -net none \
	-kernel "$bed/vmlinuz" -initrd "$bed/initrd" \
	-virtfs local,path="$bed/root",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$src",mount_tag=src,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$out",mount_tag=out,security_model=none,multidevs=remap \
	-append "console=ttyAMA0 quiet loglevel=3 panic=-1 gadgetd.init=/usr/local/sbin/gadgetd-guest-init gadgetd.src=$src gadgetd.script=$cmd" \
	</dev/null > "$out/console.log" 2>&1
rc=$(tr -d '\r' < "$out/console.log" | sed -n 's/^GADGETD-EXIT=\([0-9]*\).*/\1/p' | tail -n1)
tr -d '\r' < "$out/console.log" | grep -E '^(ok|FAIL|==|checks)' 
echo "check-arm64: the VM ran $(($(date +%s) - boot)) s, $(($(date +%s) - start)) s in all"
case $rc in
0) echo "check-arm64: passed"; exit 0 ;;
'') tail -n 40 "$out/console.log"; echo "check-arm64: FAILED: no exit code (timeout ${tmo}s or no boot)"; exit 1 ;;
*) tail -n 60 "$out/console.log"; echo "check-arm64: FAILED: exit $rc"; exit 1 ;;
esac
