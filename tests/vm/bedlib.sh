# Sourced by mkbed.sh, mkbed-arm64.sh and mkcross.sh: what the beds do
# with a Debian kernel package once it is downloaded, and how the ARM bed
# and the cross build root are unpacked.
#
# bed_fresh STAMP FILE...: true when STAMP exists and is newer than
# every FILE (what made it has not changed since).
bed_fresh() {
	bf_stamp=$1
	shift
	for bf_f in "$@"; do
		[ "$bf_stamp" -nt "$bf_f" ] || return 1
	done
}

# bed_kernel OUT DEB BUSYBOX: unpack the kernel package DEB into OUT/kroot
# (modules indexed), copy its vmlinuz to OUT/vmlinuz, its version to
# OUT/kver, and make OUT/initrd: BUSYBOX (a static busybox of the guest's
# architecture), the modules it takes to reach a 9p root with an overlay
# (and an ext4 disk for its upper layer), and tests/vm/initramfs-init.
bed_kernel() {
	bk_out=$1 bk_deb=$2 bk_busybox=$3
	rm -rf "$bk_out/kroot"
	dpkg-deb -x "$bk_deb" "$bk_out/kroot"
	# Debian 13's kernel packages ship their modules under /usr/lib:
	# moved to /lib, where depmod -b (Debian 12's) and the beds look.
	if [ ! -d "$bk_out/kroot/lib/modules" ] && [ -d "$bk_out/kroot/usr/lib/modules" ]; then
		mkdir -p "$bk_out/kroot/lib" &&
			mv "$bk_out/kroot/usr/lib/modules" "$bk_out/kroot/lib/" || return 1
	fi
	bk_mods=$bk_out/kroot/lib/modules
	kver=$(ls "$bk_mods" | head -n1)
	depmod -b "$bk_out/kroot" "$kver"
	cp "$bk_out/kroot/boot/vmlinuz-$kver" "$bk_out/vmlinuz"
	echo "$kver" > "$bk_out/kver"
	bk_ird="$bk_out/initrd-root"
	rm -rf "$bk_ird"
	mkdir -p "$bk_ird/bin" "$bk_ird/lib/modules/$kver" "$bk_ird/proc" "$bk_ird/sys" \
		"$bk_ird/dev" "$bk_ird/newroot" "$bk_ird/lower" "$bk_ird/rw"
	cp "$bk_busybox" "$bk_ird/bin/busybox"
	# virtio_blk and ext4 (with what it needs): the disk that keeps the
	# overlay's upper layer across a reboot of the guest (run.sh,
	# GADGETD_VM_DISK).
	for bk_m in virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev virtio_ring virtio \
		netfs fscache 9pnet 9pnet_virtio 9p overlay configfs \
		virtio_blk crc16 crc32c_generic mbcache jbd2 ext4; do
		bk_f=$(find "$bk_mods/$kver" -name "$bk_m.ko*" | head -n1)
		# Uncompressed: busybox's insmod reads no .ko.xz (Debian 13's
		# kernel packages compress every module; 12's none).
		case $bk_f in
		'') ;;
		*.ko.xz) xz -dc "$bk_f" > "$bk_ird/lib/modules/$kver/$bk_m.ko" ;;
		*) cp "$bk_f" "$bk_ird/lib/modules/$kver/" ;;
		esac
	done
	cp "$(dirname "$0")/initramfs-init" "$bk_ird/init"
	chmod +x "$bk_ird/init"
	(cd "$bk_ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$bk_out/initrd"
}

# bed_vmlinux OUT: OUT/vmlinux, the kernel of OUT/vmlinuz uncompressed,
# for QEMU to start at its PVH entry (CONFIG_PVH, the ELF note
# XEN_ELFNOTE_PHYS32_ENTRY, 0x12): no BIOS, no real-mode setup, and no
# decompression, which TCG runs about three times slower than the host:
# 2 to 3 s of every boot (an empty guest took 8.4 to 10.5 s from
# vmlinuz, 5.3 to 6.8 s from vmlinux; 2026-12-05). Debian 12 compresses
# its kernel with XZ, Debian 13 with zstd: the first stream of either
# kind in the bzImage is the kernel. zstd goes on past the stream's end
# into the bzImage's code and fails there, after the whole kernel: the
# ELF is whole when its section headers, its last part, are in it.
bed_vmlinux() {
	bv_out=$1
	for bv_t in xz zstd readelf od; do
		command -v $bv_t >/dev/null || { echo "$(basename "$0"): $bv_t is missing" >&2; return 1; }
	done
	bv_off=$(LC_ALL=C grep -abo "$(printf '\3757zXZ')" "$bv_out/vmlinuz" | head -n1 | cut -d: -f1)
	if [ -n "$bv_off" ]; then
		tail -c +$((bv_off + 1)) "$bv_out/vmlinuz" | xz -dc --single-stream > "$bv_out/vmlinux.new" ||
			{ echo "$(basename "$0"): cannot uncompress $bv_out/vmlinuz (XZ)" >&2; return 1; }
	else
		bv_off=$(LC_ALL=C grep -abo "$(printf '\050\265\057\375')" "$bv_out/vmlinuz" | head -n1 | cut -d: -f1)
		[ -n "$bv_off" ] || { echo "$(basename "$0"): $bv_out/vmlinuz holds no XZ or zstd stream" >&2; return 1; }
		tail -c +$((bv_off + 1)) "$bv_out/vmlinuz" | zstd -dcq > "$bv_out/vmlinux.new" 2>/dev/null
		# ELF64: e_shoff at 40 (8 bytes), e_shentsize at 58, e_shnum at 60.
		bv_end=$(($(od -An -tu8 -j40 -N8 "$bv_out/vmlinux.new") +
			$(od -An -tu2 -j58 -N2 "$bv_out/vmlinux.new") * $(od -An -tu2 -j60 -N2 "$bv_out/vmlinux.new")))
		[ "$(od -An -c -j1 -N3 "$bv_out/vmlinux.new" | tr -d ' ')" = ELF ] &&
			[ "$(wc -c < "$bv_out/vmlinux.new")" -ge "$bv_end" ] ||
			{ echo "$(basename "$0"): cannot uncompress $bv_out/vmlinuz (zstd)" >&2; return 1; }
	fi
	LC_ALL=C readelf -n "$bv_out/vmlinux.new" | grep -q 'Unknown note type: (0x00000012)' ||
		{ echo "$(basename "$0"): the kernel in $bv_out/vmlinuz has no PVH entry (CONFIG_PVH)" >&2; return 1; }
	mv "$bv_out/vmlinux.new" "$bv_out/vmlinux"
}

# bed_strap SUITE ROOT OPTION...: `mmdebstrap --quiet OPTION... SUITE
# ROOT` from this machine's apt sources when they name SUITE (bookworm
# here); for another release (trixie: tests/vm/mkcross.sh OUTDIR SUITE)
# from SUITE, SUITE-updates and SUITE-security on the Debian and Debian
# security mirrors those sources name, listed in ROOT.list (one-line style: mmdebstrap
# reads a .sources file as deb822).
# mmdebstrap stops on any index that
# fails, and a mirror in the middle of a sync fails one for days
# (debian-security's armhf Packages.xz, 2026-12-04 to 06): after two
# tries ROOT comes from SUITE and SUITE-updates only, from the
# first Debian mirror the machine's own apt sources name (the tree names
# no mirror host). What matters
# is that every package in ROOT comes from one consistent set of lists,
# which the host's own multiarch could not promise (its amd64 libraries
# at bookworm-security's versions, armhf's lists without that suite); a
# package built in ROOT depends on its libraries' minimum versions
# (shlibs), not on the ones it was built against.
bed_strap() {
	bs_suite=$1 bs_root=$2
	shift 2
	bs_src=/etc/apt/sources.list.d/debian.sources
	[ -f "$bs_src" ] || bs_src=/etc/apt/sources.list
	bs_mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p; s/^deb  *\(\[[^]]*\] *\)\?\(http[^ ]*\/debian\) .*/\2/p' "$bs_src" | head -n1)
	bs_sec=$(sed -n 's/^URIs: *\(http[^ ]*\/debian-security\)$/\1/p; s/^deb  *\(\[[^]]*\] *\)\?\(http[^ ]*\/debian-security\) .*/\2/p' "$bs_src" | head -n1)
	if ! grep -Eq "^(Suites:|deb )(.*[[:space:]])?$bs_suite([[:space:]]|\$)" "$bs_src"; then
		if [ -z "$bs_mirror" ]; then
			echo "$(basename "$0"): $bs_src names neither $bs_suite nor an http(s) Debian mirror" >&2
			return 1
		fi
		{
			echo "deb $bs_mirror $bs_suite main"
			echo "deb $bs_mirror $bs_suite-updates main"
			[ -z "$bs_sec" ] || echo "deb $bs_sec $bs_suite-security main"
		} >"$bs_root.list"
		bs_src=$bs_root.list
	fi
	for bs_try in 1 2; do
		rm -rf "$bs_root"
		mmdebstrap --quiet "$@" "$bs_suite" "$bs_root" "$bs_src" && return 0
		[ $bs_try = 2 ] || sleep 20
	done
	if [ -z "$bs_mirror" ]; then
		echo "$(basename "$0"): the mirrors in $bs_src failed twice, and it names no http(s) Debian mirror to retry with $bs_suite and $bs_suite-updates only" >&2
		return 1
	fi
	echo "$(basename "$0"): the mirrors in $bs_src failed twice; unpacking from $bs_mirror $bs_suite and $bs_suite-updates only" >&2
	rm -rf "$bs_root"
	mmdebstrap --quiet "$@" "$bs_suite" "$bs_root" \
		"deb $bs_mirror $bs_suite main" "deb $bs_mirror $bs_suite-updates main"
}
