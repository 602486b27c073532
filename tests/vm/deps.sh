#!/bin/sh
# Install what building and testing gadgetd needs (Debian packages), when
# running as root; otherwise name what is missing and fail.
set -eu
pkgs="gcc make pkg-config dpkg-dev debhelper libusbgx-dev libconfig-dev libaio-dev libcmocka-dev
libssl-dev libusb-1.0-0-dev libseccomp-dev qemu-system-x86 busybox-static kmod cpio
adb mtp-tools umtp-responder jmtpfs go-mtpfs android-file-transfer fuse python3 python3-usb python3-cryptography usbutils iproute2
iputils-ping bsdutils util-linux procps psmisc strace linux-perf clang libclang-rt-14-dev
libbrotli-dev liblz4-dev libzstd-dev python3-brotli python3-lz4 python3-zstandard jq
libmnl-dev dnsmasq-base avahi-daemon avahi-utils iperf3 bash-completion genisoimage dosfstools libexif-dev gphoto2
libsystemd-dev dbus-daemon dbus-bin polkitd libglib2.0-bin
libxkbcommon-dev xkb-data python3-evdev evtest"
# CROSS=arm64,armhf (make deps CROSS=...): also what cross builds and
# check-cross need, the target's -dev packages through multiarch.
cross_pkgs=""
. "$(dirname "$0")/cross.sh"
for a in $(echo "${CROSS:-}" | tr ',' ' '); do
	triplet=$(cross_triplet "$a") ||
		{ echo "deps: CROSS: unknown architecture $a (arm64, armhf)" >&2; exit 2; }
	# The ARM bed (mkbed-arm64.sh) is arm64 for both: armhf runs there too.
	pkgs="$pkgs gcc-$triplet qemu-user-static qemu-system-arm mmdebstrap"
	for p in libc6-dev libusbgx-dev libconfig-dev libaio-dev libseccomp-dev libssl-dev libmnl-dev libsystemd-dev \
		libbrotli-dev liblz4-dev libzstd-dev libcmocka-dev libxkbcommon-dev libexif-dev; do
		pkgs="$pkgs $p:$a"
	done
	cross_pkgs="$cross_pkgs $a"
done
# The bed's kernel is linux-image-arm64:arm64, found through apt.
case " $cross_pkgs " in *" armhf "*) case " $cross_pkgs " in *" arm64 "*) ;; *) cross_pkgs="$cross_pkgs arm64" ;; esac ;; esac
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
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
for a in $cross_pkgs; do
	dpkg --print-foreign-architectures | grep -qx "$a" || dpkg --add-architecture "$a"
done
# A mirror in the middle of a sync fails an index or two ("File has
# unexpected size", 2026-12-05): try again, then go on with the lists
# there are; the install below still fails loudly if a package is not
# found.
apt-get update -qq >&2 || { sleep 15; apt-get update -qq >&2; } ||
	echo "deps: apt-get update failed twice; installing from the package lists already here" >&2
# dpkg without an fsync per unpacked file (what Debian's own image builds
# do): a fresh machine's install is most of make check's setup time, and
# a crash half-way is repaired by running this again.
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io $missing >&2
