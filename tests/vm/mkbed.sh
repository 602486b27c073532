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
# The kernel uncompressed, for a PVH boot (bedlib.sh says why).
bed_vmlinux "$out" || exit 1
touch "$out/stamp"
echo "mkbed: test bed ready in $out (kernel $kver)" >&2
