#!/bin/sh
# Build the loopback test bed: Debian's stock kernel, its modules and a
# busybox initramfs that mounts this machine's root over 9p.
# Usage: mkbed.sh OUTDIR
set -eu
out=${1:?usage: mkbed.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# Rebuilt when the initramfs script or this one changed.
[ "$out/stamp" -nt "$here/initramfs-init" ] && [ "$out/stamp" -nt "$here/mkbed.sh" ] && exit 0

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
rm -rf "$out/kroot"
dpkg-deb -x "$dl"/linux-image-*-amd64_*.deb "$out/kroot"
kver=$(ls "$out/kroot/lib/modules" | head -n1)
depmod -b "$out/kroot" "$kver"
cp "$out/kroot/boot/vmlinuz-$kver" "$out/vmlinuz"
echo "$kver" > "$out/kver"

# The initramfs only needs what it takes to reach the 9p root.
ird="$out/initrd-root"
rm -rf "$ird"
mkdir -p "$ird/bin" "$ird/lib/modules/$kver" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/newroot" "$ird/lower" "$ird/rw"
cp "$(command -v busybox)" "$ird/bin/busybox"
for m in virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev virtio_ring virtio netfs fscache 9pnet 9pnet_virtio 9p overlay; do
	f=$(find "$out/kroot/lib/modules/$kver" -name "$m.ko*" | head -n1)
	[ -n "$f" ] && cp "$f" "$ird/lib/modules/$kver/"
done
cp "$here/initramfs-init" "$ird/init"
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd"
touch "$out/stamp"
echo "mkbed: test bed ready in $out (kernel $kver)" >&2
