#!/bin/sh
# The trixie bed: a Debian 13 root of its own (amd64), made by mmdebstrap
# with its maintainer scripts run, as a board's system is installed:
# Linux 6.12 from its linux-image-amd64, systemd 257 as PID 1, dbus,
# polkitd and avahi-daemon, trixie's own host tools (adb 34, mtp-tools
# and libmtp 1.1.22, gphoto2, python3-usb) and gadgetd's runtime
# libraries, so that `dpkg -i` of the trixie package needs no network.
# tests/vm/run.sh boots it (it finds OUTDIR/root): the guest mounts that
# root over 9p with an overlay on it, as the amd64 bed mounts this
# machine's, and this tree at the path it has here.
# Usage: mkbed-trixie.sh OUTDIR
set -eu
out=${1:?usage: mkbed-trixie.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
bed_fresh "$out/stamp" "$here/initramfs-init" "$here/mkbed-trixie.sh" "$here/bedlib.sh" && exit 0

need() { command -v "$1" >/dev/null 2>&1 || { echo "mkbed-trixie: $1 is missing (make deps)" >&2; exit 1; }; }
need mmdebstrap; need depmod; need cpio; need busybox

# The system and its services; the clients the trixie subset drives
# (make check-trixie: tests/vm/check-trixie.sh), and what its scripts
# call (busybox for udhcpc and nc, script from bsdutils, gdbus,
# genisoimage and mkfs.vfat for t-storage, the kernel's input-event-codes.h
# that hid_host.py reads); gadgetd's libraries under
# their trixie names (libusbgx3, and the 64-bit time_t libaio1t64 and
# libssl3t64).
pkgs="linux-image-amd64 systemd systemd-sysv udev dbus libpam-systemd login polkitd
avahi-daemon avahi-utils dnsmasq-base
adb mtp-tools gphoto2 python3 python3-usb python3-cryptography python3-brotli python3-lz4
python3-zstandard usbutils iproute2 iputils-ping busybox-static jq kmod procps psmisc
util-linux bsdutils diffutils findutils genisoimage dosfstools eject libglib2.0-bin dbus-bin linux-libc-dev
e2fsprogs
libusbgx3 libconfig11 libaio1t64 libseccomp2 libssl3t64 libmnl0 libnftables1 libsystemd0 libexif12
libxkbcommon0 xkb-data libbrotli1 liblz4-1 libzstd1"
root=$out/root
# The root is made again only when the list changed (an initramfs-init
# change remakes the initrd alone).
if [ "$(cat "$out/root.pkgs" 2>/dev/null)" != "$(echo $pkgs)" ] || [ ! -x "$root/lib/systemd/systemd" ]; then
	rm -f "$out/root.pkgs"
	echo "mkbed-trixie: installing a trixie root (mmdebstrap)" >&2
	# The kernel's package stays in the apt cache for bed_kernel.
	bed_strap trixie "$root" --variant=apt --skip=cleanup/apt/cache \
		--include="$(echo $pkgs | tr ' ' ',')" || exit 1
	mkdir -p "$out/dl"
	rm -f "$out"/dl/*.deb
	mv "$root"/var/cache/apt/archives/linux-image-*-amd64_*.deb "$out/dl/" ||
		{ echo "mkbed-trixie: no linux-image-*-amd64 package in $root's apt cache" >&2; exit 1; }
	rm -f "$root"/var/cache/apt/archives/*.deb
	echo $pkgs > "$out/root.pkgs"
fi
bed_kernel "$out" "$(ls "$out"/dl/linux-image-*-amd64_*.deb | head -n1)" "$root/usr/bin/busybox"
[ -d "$root/lib/modules/$kver" ] ||
	{ echo "mkbed-trixie: $root has no modules of $kver (its kernel package is another)" >&2; exit 1; }
bed_vmlinux "$out" || exit 1
touch "$out/stamp"
echo "mkbed-trixie: trixie bed ready in $out (kernel $kver)" >&2
