#!/bin/sh
# Install what building and testing gadgetd needs (Debian packages), when
# running as root; otherwise name what is missing and fail.
# Usage: deps.sh [GROUP...]   (default: build test, and cross with CROSS)
#   build  compiling, the unit tests and lints, the fuzz targets, the
#          package (make all, unit, fuzz-regress, deb)
#   test   the test beds and the host-side tools the loopback suite and
#          make bench drive
#   cross  with CROSS=arm64,armhf: what makes the cross build root and
#          the arm64 bed (mmdebstrap: the toolchains and the targets'
#          packages go there, not on this machine) and runs them
#          (qemu-user, qemu-system-arm)
# make check installs build first and the rest in the background while
# it compiles and tests (tests/vm/check-run.sh): on a fresh machine the
# install was 8 of make check's 35 minutes (2026-12-04).
set -eu
build_pkgs="gcc make pkg-config dpkg-dev debhelper libusbgx-dev libconfig-dev libaio-dev libcmocka-dev
libssl-dev libusb-1.0-0-dev libseccomp-dev clang libclang-rt-14-dev
libbrotli-dev liblz4-dev libzstd-dev libmnl-dev libnftables-dev libexif-dev libsystemd-dev libudev-dev libxkbcommon-dev
python3 bash-completion dbus-daemon lintian"
test_pkgs="qemu-system-x86 busybox-static kmod cpio xz-utils zstd binutils
adb mtp-tools umtp-responder mmdebstrap jmtpfs go-mtpfs android-file-transfer fuse python3-usb python3-cryptography usbutils iproute2
iputils-ping bsdutils util-linux procps psmisc strace linux-perf
python3-brotli python3-lz4 python3-zstandard jq gojq
dnsmasq-base nftables avahi-daemon avahi-utils iperf3 genisoimage dosfstools gphoto2
dbus-bin polkitd libglib2.0-bin xkb-data
systemd systemd-sysv udev dbus libpam-systemd e2fsprogs"
# The last line: the systemd bed boots this machine's own systemd as PID 1
# (tests/vm/bed-systemd), with udevd, dbus and logind as a board runs
# them, and keeps a rebooting test's root on an ext4 image.
groups=${*:-build test${CROSS:+ cross}}
pkgs=""
for g in $groups; do
	case $g in
	build) pkgs="$pkgs $build_pkgs" ;;
	test) pkgs="$pkgs $test_pkgs" ;;
	cross) ;;
	*) echo "deps: $g: build, test or cross" >&2; exit 2 ;;
	esac
done
# why P: what the package is for, for the first screen a newcomer sees.
why() {
	case " $build_pkgs " in *" $1 "*) echo "to build and unit-test gadgetd and its package"; return ;; esac
	case " $test_pkgs " in *" $1 "*) echo "for the test bed (QEMU, Debian's kernel) and the USB host tools it drives"; return ;; esac
	echo "for the ARM builds and beds"
}
# CROSS=arm64,armhf (make deps CROSS=...): also what check-cross and the
# ARM beds need on this machine. This machine's dpkg gets no foreign
# architecture: the cross toolchains and the targets' -dev packages are
# in the cross build root (tests/vm/mkcross.sh).
. "$(dirname "$0")/cross.sh"
case " $groups " in *" cross "*) cross=${CROSS:-} ;; *) cross= ;; esac
for a in $(echo "$cross" | tr ',' ' '); do
	cross_triplet "$a" >/dev/null ||
		{ echo "deps: CROSS: unknown architecture $a (arm64, armhf)" >&2; exit 2; }
done
[ -z "$cross" ] || pkgs="$pkgs qemu-user-static qemu-system-arm mmdebstrap"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
for w in "to build and unit-test gadgetd and its package" \
	"for the test bed (QEMU, Debian's kernel) and the USB host tools it drives" \
	"for the ARM builds and beds"; do
	these=""
	for p in $missing; do
		[ "$(why "$p")" = "$w" ] && these="$these $p"
	done
	[ -z "$these" ] || echo "deps: installing with apt-get, $w:$these" >&2
done
export DEBIAN_FRONTEND=noninteractive
# A mirror in the middle of a sync fails an index or two ("File has
# unexpected size", 2026-12-05): try again, then go on with the lists
# there are; the install below still fails loudly if a package is not
# found.
# Lists fetched within the hour (an earlier group of this make check)
# are not fetched again.
# Another apt or dpkg (unattended-upgrades on a fresh machine, another
# make's deps.sh) holds the lock for a while: wait up to 10 minutes for
# it (DPkg::Lock::Timeout) instead of failing at once.
wait_lock="-o DPkg::Lock::Timeout=600"
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -60 2>/dev/null | head -n1)" ]; then
	apt-get update -qq $wait_lock >&2 || { sleep 15; apt-get update -qq $wait_lock >&2; } ||
		echo "deps: apt-get update failed twice; installing from the package lists already here" >&2
fi
# dpkg without an fsync per unpacked file (what Debian's own image builds
# do): a fresh machine's install is most of make check's setup time, and
# a crash half-way is repaired by running this again.
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $wait_lock -o Dpkg::Options::=--force-unsafe-io $missing >&2
