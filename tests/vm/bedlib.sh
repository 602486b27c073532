# Sourced by mkbed.sh and mkbed-arm64.sh: what both beds do with a Debian
# kernel package once it is downloaded.
#
# bed_kernel OUT DEB BUSYBOX: unpack the kernel package DEB into OUT/kroot
# (modules indexed), copy its vmlinuz to OUT/vmlinuz, its version to
# OUT/kver, and make OUT/initrd: BUSYBOX (a static busybox of the guest's
# architecture), the modules it takes to reach a 9p root with an overlay,
# and tests/vm/initramfs-init.
bed_kernel() {
	bk_out=$1 bk_deb=$2 bk_busybox=$3
	rm -rf "$bk_out/kroot"
	dpkg-deb -x "$bk_deb" "$bk_out/kroot"
	kver=$(ls "$bk_out/kroot/lib/modules" | head -n1)
	depmod -b "$bk_out/kroot" "$kver"
	cp "$bk_out/kroot/boot/vmlinuz-$kver" "$bk_out/vmlinuz"
	echo "$kver" > "$bk_out/kver"
	bk_ird="$bk_out/initrd-root"
	rm -rf "$bk_ird"
	mkdir -p "$bk_ird/bin" "$bk_ird/lib/modules/$kver" "$bk_ird/proc" "$bk_ird/sys" \
		"$bk_ird/dev" "$bk_ird/newroot" "$bk_ird/lower" "$bk_ird/rw"
	cp "$bk_busybox" "$bk_ird/bin/busybox"
	for bk_m in virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev virtio_ring virtio \
		netfs fscache 9pnet 9pnet_virtio 9p overlay; do
		bk_f=$(find "$bk_out/kroot/lib/modules/$kver" -name "$bk_m.ko*" | head -n1)
		[ -n "$bk_f" ] && cp "$bk_f" "$bk_ird/lib/modules/$kver/"
	done
	cp "$(dirname "$0")/initramfs-init" "$bk_ird/init"
	chmod +x "$bk_ird/init"
	(cd "$bk_ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$bk_out/initrd"
}
