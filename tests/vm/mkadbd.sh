#!/bin/sh
# The adbd root for make bench (tests/bench/b-adbd.sh): a Debian bookworm
# with Debian's own adbd (AOSP's daemon, 34.0.5 in bookworm-backports)
# unpacked and installed by mmdebstrap. The bench's guest sees this
# machine's files and runs adbd chrooted in OUTDIR/root, so this machine
# keeps its own adb 29 and takes nothing from bookworm-backports.
# Usage: mkadbd.sh OUTDIR   (OUTDIR/root; needs root and mmdebstrap)
set -eu
out=${1:?usage: mkadbd.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
bed_fresh "$out/stamp" "$here/mkadbd.sh" "$here/bedlib.sh" && exit 0
no() {
	echo "mkadbd: $* (make bench needs Debian's adbd for b-adbd)" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || no "the adbd root needs root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || no "mmdebstrap is missing (make deps)"
root=$out/root
echo "mkadbd: unpacking Debian's adbd from bookworm-backports in $root (mmdebstrap)" >&2
start=$(date +%s)
rm -f "$out/stamp"
# bookworm-backports from the first Debian mirror of this machine's apt
# sources, added to the root's own before apt's first update (a setup
# hook, so bed_strap's tries and fallback keep it). adbd/bookworm-backports:
# apt takes adbd and the android-lib* it needs at their backports
# versions, everything else from bookworm.
src=/etc/apt/sources.list.d/debian.sources
[ -f "$src" ] || src=/etc/apt/sources.list
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p; s/^deb  *\(\[[^]]*\] *\)\?\(http[^ ]*\/debian\) .*/\2/p' "$src" | head -n1)
[ -n "$mirror" ] || no "$src names no http(s) Debian mirror for bookworm-backports"
bed_strap "$root" --variant=apt --include=adbd/bookworm-backports \
	--setup-hook="echo 'deb $mirror bookworm-backports main' > \"\$1/etc/apt/sources.list.d/backports.list\"" ||
	no "mmdebstrap failed"
[ -x "$root/usr/lib/android-sdk/platform-tools/adbd" ] || no "no adbd in $root"
touch "$out/stamp"
echo "mkadbd: adbd root ready in $(($(date +%s) - start)) s ($(chroot "$root" dpkg-query -W -f='${Version}' adbd))" >&2
