#!/bin/sh
# The arm64 loopback bed: Debian's arm64 kernel and modules, and an arm64
# userland with the host tools the suite uses, unpacked by mmdebstrap
# (variant extract: no maintainer script runs, so no qemu-user is needed).
# The userland is multiarch: armhf's libc and gadgetd's libraries are in
# it too, so that the armhf build runs on the same kernel (CONFIG_COMPAT,
# as on a Raspberry Pi OS with a 64-bit kernel and a 32-bit userland),
# and so are cmocka and UBSan for the unit tests qemu-user cannot run.
# The guest mounts that userland over 9p as its root, like the amd64 bed
# mounts this machine's, and this tree at the same path.
# Usage: mkbed-arm64.sh OUTDIR
set -eu
out=${1:?usage: mkbed-arm64.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bedlib.sh"
bed_fresh "$out/stamp" "$here/initramfs-init" "$here/mkbed-arm64.sh" "$here/bedlib.sh" && exit 0

need() { command -v "$1" >/dev/null 2>&1 || { echo "mkbed-arm64: $1 is missing (make deps CROSS=arm64)" >&2; exit 1; }; }
need mmdebstrap; need qemu-system-aarch64; need depmod; need cpio

# Tools of the core tests, gadgetd's libraries, and what the guest's
# scripts call (sh, coreutils, awk, timeout, modprobe, ip, lsusb, stty).
pkgs="base-files base-passwd dash bash coreutils diffutils findutils grep sed mawk
libc-bin util-linux mount procps psmisc kmod iproute2 usbutils busybox-static passwd systemd
adb mtp-tools python3 python3-usb libusbgx2 libconfig9 libaio1 libseccomp2 libssl3 libmnl0 libnftables1 libsystemd0 libexif12 libudev1
libxkbcommon0 xkb-data
libbrotli1 liblz4-1 libzstd1 jq libcmocka0 libubsan1
python3-cryptography python3-brotli python3-lz4 python3-zstandard"
# What the armhf build of gadgetd and its unit tests load.
armhf="libc6 libgcc-s1 libusbgx2 libconfig9 libaio1 libseccomp2 libssl3 libbrotli1 liblz4-1
libzstd1 libcmocka0 libubsan1 libmnl0 libnftables1 libxkbcommon0 libsystemd0 libexif12 libudev1"
pkgs="$pkgs $(for p in $armhf; do printf '%s:armhf ' "$p"; done)"
root="$out/root"
dl="$out/dl"
# A root made before a library joined the list is made again.
if [ ! -e "$root/usr/lib/arm-linux-gnueabihf/libcmocka.so.0" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libmnl.so.0" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libnftables.so.1" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libxkbcommon.so.0" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libsystemd.so.0" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libexif.so.12" ] ||
	[ ! -e "$root/usr/lib/arm-linux-gnueabihf/libudev.so.1" ] ||
	[ ! -d "$root/usr/lib/python3/dist-packages/zstandard" ]; then
	rm -rf "$root"
	echo "mkbed-arm64: unpacking an arm64 userland (mmdebstrap)" >&2
	bed_strap bookworm "$root" --architectures=arm64,armhf --variant=extract \
		--include="$(echo $pkgs | tr ' ' ',')" || exit 1
fi
# The kernel's package, from an unpack of its own for arm64 alone (its
# package kept in the apt cache), so that the host needs no arm64 lists
# and the kernel is bookworm-security's whenever arm64's index there can
# be read, even when armhf's cannot (2026-12-04 to 06: the userland above
# then comes from bookworm). bookworm's 6.1.0-50-arm64 oopsed once in
# five check-armhf runs, in f_fs's AIO completion
# (ffs_epfile_async_io_complete, a NULL workqueue); the amd64 bed and the
# ARM runs before had bookworm-security's 6.1.0-57.
if ! ls "$dl"/linux-image-*-arm64_*.deb >/dev/null 2>&1; then
	echo "mkbed-arm64: downloading the arm64 kernel (mmdebstrap)" >&2
	bed_strap bookworm "$out/kstrap" --architectures=arm64 --variant=extract --skip=cleanup/apt/cache \
		--include=linux-image-arm64 || exit 1
	mkdir -p "$dl"
	mv "$out"/kstrap/var/cache/apt/archives/linux-image-*-arm64_*.deb "$dl/" ||
		{ echo "mkbed-arm64: no linux-image-*-arm64 package in the unpack" >&2; exit 1; }
	rm -rf "$out/kstrap"
fi
# No postinst ran: the accounts base-passwd would have made.
[ -s "$root/etc/passwd" ] || cp "$root/usr/share/base-passwd/passwd.master" "$root/etc/passwd"
[ -s "$root/etc/group" ] || cp "$root/usr/share/base-passwd/group.master" "$root/etc/group"
grep -q '^plugdev:' "$root/etc/group" || echo "plugdev:x:46:" >> "$root/etc/group"
[ -e "$root/bin/sh" ] || ln -s dash "$root/bin/sh"
# The links update-alternatives would have made.
[ -e "$root/usr/bin/awk" ] || ln -s mawk "$root/usr/bin/awk"

# The linker cache (pyusb's find_library reads it), made here by the
# root's own static ldconfig under qemu-user in a third of a second: the
# guest took some 10 s of its boot for it, at every boot.
if command -v qemu-aarch64-static >/dev/null; then
	qemu-aarch64-static "$root/sbin/ldconfig" -r "$root" ||
		{ echo "mkbed-arm64: ldconfig -r $root under qemu-aarch64-static failed" >&2; exit 1; }
fi

bed_kernel "$out" "$(ls "$dl"/linux-image-*-arm64_*.deb | head -n1)" "$root/bin/busybox"
# The guest's root is the arm64 userland: its modules come from there.
rm -rf "$root/lib/modules"
mkdir -p "$root/lib/modules"
cp -a "$out/kroot/lib/modules/$kver" "$root/lib/modules/"
touch "$out/stamp"
echo "mkbed-arm64: arm64 bed ready in $out (kernel $kver)" >&2
