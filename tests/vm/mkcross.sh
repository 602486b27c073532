#!/bin/sh
# The cross build root: a Debian bookworm for this machine (amd64) with
# arm64 and armhf added to its dpkg, their cross toolchains, gadgetd's
# build dependencies for both, and clang (tests/vm/shorten.sh), unpacked
# and installed by mmdebstrap. The ARM package (dpkg-buildpackage -a
# ARCH), the ARM unit tests and the armhf truncation check are built in
# it (cross_in in tests/vm/cross.sh), and check-cross runs those tests
# against its libraries under qemu-user: this machine's own dpkg gets no
# foreign architecture. That is the point: the host's multiarch tied
# armhf's libzstd1 to the version amd64 already had, and with one armhf
# index of bookworm-security failing at the mirror (2026-12-04 to 06)
# the cross packages could not be installed at all.
#
# With SUITE (trixie), the root is that release's, and it also has
# gadgetd's build dependencies for this machine's own architecture and
# that release's lintian, blhc and hardening-check (devscripts): make deb
# SUITE=trixie builds and checks all three packages in it (mkdeb.sh),
# since this machine's bookworm can build none for trixie.
# Usage: mkcross.sh OUTDIR [SUITE]   (OUTDIR/root; needs root and mmdebstrap)
set -eu
out=${1:?usage: mkcross.sh OUTDIR [SUITE]}
suite=${2:-bookworm}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
. "$here/cross.sh"
bed_fresh "$out/stamp" "$here/mkcross.sh" "$here/cross.sh" "$here/bedlib.sh" "$here/../../debian/control" && exit 0
[ "$(id -u)" = 0 ] || { echo "mkcross: the build root needs root (mmdebstrap, chroot)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "mkcross: mmdebstrap is missing (make deps CROSS=arm64,armhf)" >&2; exit 1; }
# debian/control's Build-Depends for the host and the targets
# (dpkg-buildpackage checks them) and the cross compilers. systemd.pc
# and udev.pc (debian/rules) are in systemd and udev on bookworm, in
# systemd-dev since. Bookworm's cross root (no SUITE) has clang for
# shorten.sh; with a SUITE, the root builds this machine's architecture
# too and checks the packages with that release's tools.
pkgs="build-essential pkg-config dpkg-dev debhelper dbus-daemon python3 bash-completion"
case $suite in
bookworm) pkgs="$pkgs systemd udev" ;;
*) pkgs="$pkgs systemd-dev" ;;
esac
arches="arm64 armhf"
if [ $# -lt 2 ]; then
	pkgs="$pkgs clang"
else
	pkgs="$pkgs lintian blhc devscripts"
	arches="$arches $(dpkg --print-architecture)"
fi
for a in $arches; do
	cross_triplet $a >/dev/null && pkgs="$pkgs gcc-$(cross_triplet $a)"
	for p in $CROSS_DEV_PKGS; do
		pkgs="$pkgs $p:$a"
	done
done
root=$out/root
echo "mkcross: unpacking the $suite cross build root in $root (mmdebstrap)" >&2
start=$(date +%s)
rm -f "$out/stamp"
bed_strap "$suite" "$root" --variant=apt --architectures="$(dpkg --print-architecture),arm64,armhf" \
	--include="$(echo $pkgs | tr ' ' ',')" || { echo "mkcross: mmdebstrap failed" >&2; exit 1; }
touch "$out/stamp"
echo "mkcross: $suite cross build root ready in $(($(date +%s) - start)) s" >&2
