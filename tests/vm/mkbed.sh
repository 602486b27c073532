#!/bin/sh
# Build the loopback test bed: Debian's stock kernel (uncompressed, for a
# PVH boot), its modules and a busybox initramfs that mounts this
# machine's root over 9p.
# Usage: mkbed.sh OUTDIR
set -eu
out=${1:?usage: mkbed.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
# Rebuilt when the initramfs script or this one changed.
bed_fresh "$out/stamp" "$here/initramfs-init" "$here/mkbed.sh" "$here/bedlib.sh" && exit 0

need() { command -v "$1" >/dev/null 2>&1 || { echo "mkbed: $1 is missing (run as root to install packages)" >&2; exit 1; }; }
need dpkg-deb; need depmod; need cpio; need busybox

dl="$out/dl"
mkdir -p "$dl"
if ! ls "$dl"/linux-image-*-amd64_*.deb >/dev/null 2>&1; then
	echo "mkbed: downloading Debian's linux-image-amd64" >&2
	kdep() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1; }
	dep=$(kdep)
	if [ -z "$dep" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq >&2 && dep=$(kdep)
	fi
	[ -n "$dep" ] || { echo "mkbed: cannot resolve linux-image-amd64 (apt-get update?)" >&2; exit 1; }
	(cd "$dl" && apt-get download "$dep" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	ls "$dl"/linux-image-*-amd64_*.deb >/dev/null 2>&1 || { echo "mkbed: download of $dep failed" >&2; exit 1; }
fi
# The initramfs only needs what it takes to reach the 9p root.
bed_kernel "$out" "$(ls "$dl"/linux-image-*-amd64_*.deb | head -n1)" "$(command -v busybox)"
# The kernel uncompressed, for QEMU to start at its PVH entry (CONFIG_PVH,
# the ELF note XEN_ELFNOTE_PHYS32_ENTRY, 0x12): no BIOS, no real-mode
# setup, and no XZ decompression, which TCG runs about three times
# slower than the host: 2 to 3 s of every boot (an empty guest took 8.4
# to 10.5 s from vmlinuz, 5.3 to 6.8 s from vmlinux; 2026-12-05).
need xz; need readelf
xzoff=$(LC_ALL=C grep -abo "$(printf '\3757zXZ')" "$out/vmlinuz" | head -n1 | cut -d: -f1)
[ -n "$xzoff" ] || { echo "mkbed: $out/vmlinuz holds no XZ stream (not Debian's CONFIG_KERNEL_XZ?)" >&2; exit 1; }
tail -c +$((xzoff + 1)) "$out/vmlinuz" | xz -dc --single-stream > "$out/vmlinux.new" ||
	{ echo "mkbed: cannot uncompress $out/vmlinuz" >&2; exit 1; }
LC_ALL=C readelf -n "$out/vmlinux.new" | grep -q 'Unknown note type: (0x00000012)' ||
	{ echo "mkbed: the kernel in $out/vmlinuz has no PVH entry (CONFIG_PVH)" >&2; exit 1; }
mv "$out/vmlinux.new" "$out/vmlinux"
touch "$out/stamp"
echo "mkbed: test bed ready in $out (kernel $kver)" >&2
