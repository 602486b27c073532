#!/bin/sh
# The adb 34 root (make adbd-root, for make check and make bench): a
# Debian bookworm with Debian's own adbd (AOSP's daemon, 34.0.5 in
# bookworm-backports) for b-adbd.sh, and Debian's adb 34 (the host
# tool, same version) for t-adb34.sh, unpacked and installed by
# mmdebstrap. The guest sees this machine's files and runs them chrooted
# in OUTDIR/root, so this machine keeps its own adb 29 and takes nothing
# from bookworm-backports. A fresh machine makes it in about half a
# minute (27 s, 179 MB, 2026-12-06), once: again only when this script
# or bedlib.sh changes.
# Usage: mkadbd.sh OUTDIR   (OUTDIR/root; needs root and mmdebstrap)
set -eu
out=${1:?usage: mkadbd.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
bed_fresh "$out/stamp" "$here/mkadbd.sh" "$here/bedlib.sh" && exit 0
no() {
	echo "mkadbd: $* (t-adb34 in make check needs Debian's adb 34, b-adbd in make bench its adbd)" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || no "the adbd root needs root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || no "mmdebstrap is missing (make deps)"
root=$out/root
echo "mkadbd: unpacking Debian's adbd and adb from bookworm-backports in $root (mmdebstrap)" >&2
start=$(date +%s)
rm -f "$out/stamp"
# bookworm-backports from the first Debian mirror of this machine's apt
# sources, added to the root's own before apt's first update (a setup
# hook, so bed_strap's tries and fallback keep it). adbd/bookworm-backports
# and adb/bookworm-backports: apt takes them and the android-lib* they
# need at their backports versions, everything else from bookworm.
src=/etc/apt/sources.list.d/debian.sources
[ -f "$src" ] || src=/etc/apt/sources.list
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p; s/^deb  *\(\[[^]]*\] *\)\?\(http[^ ]*\/debian\) .*/\2/p' "$src" | head -n1)
[ -n "$mirror" ] || no "$src names no http(s) Debian mirror for bookworm-backports"
bed_strap bookworm "$root" --variant=apt --include=adbd/bookworm-backports,adb/bookworm-backports \
	--setup-hook="echo 'deb $mirror bookworm-backports main' > \"\$1/etc/apt/sources.list.d/backports.list\"" ||
	no "mmdebstrap failed"
[ -x "$root/usr/lib/android-sdk/platform-tools/adbd" ] || no "no adbd in $root"
[ -x "$root/usr/lib/android-sdk/platform-tools/adb" ] || no "no adb in $root"
touch "$out/stamp"
echo "mkadbd: adb 34 root ready in $(($(date +%s) - start)) s ($(chroot "$root" dpkg-query -W -f='adbd ${Version}' adbd), $(chroot "$root" dpkg-query -W -f='adb ${Version}' adb))" >&2
