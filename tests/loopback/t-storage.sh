# Virtual media on mass_storage (gadgetctl storage): a removable disk LUN
# and a CD-ROM LUN, read by the host's usb-storage. An image inserted is
# read back byte for byte; eject leaves the host no medium; another image
# appears under the same device node with no re-enumeration (same USB
# device number, no new enumeration); an ISO in the CD-ROM LUN mounts as
# iso9660; a FAT image takes a write; while the host holds it mounted a
# plain eject is refused and a forced one works; images outside media_dir
# ("..", a symbolic link, an absolute path) are refused to a member of
# group, whom group_media lets insert from media_dir. A member cannot
# lower the profile's cdrom, and an image the member may not write goes
# in read-only; a member is not told the name of a medium outside
# media_dir. The third security pass's attack: a member inserts an
# image, deletes it, plants a symbolic link named as the kernel shows the
# deleted file ("IMAGE (deleted)") pointing at /etc/shadow, then inserts
# a 100-byte image; the refused insert must leave the deleted image in,
# never reopen it by that name (which served /etc/shadow to the host).
# Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

KDIR=/lib/modules/$(uname -r)
for m in usb_f_mass_storage usb-storage sr_mod isofs vfat; do
	check "the bed's kernel has $m" sh -c "find $KDIR -name '$m.ko*' -o -name '$(echo $m | tr - _).ko*' | grep -q ."
done
gd_install
timeout 30 modprobe -a sr_mod isofs vfat nls_cp437 nls_ascii 2>/dev/null ||
	die "modprobe sr_mod isofs vfat"
useradd -M -N -G plugdev gdmedia 2>/dev/null

TOP=/srv/gadgetd
MEDIA=$TOP/media
mkdir -p "$MEDIA" /mnt/cd /mnt/fat iso
head -c 1048576 /dev/urandom > "$MEDIA/one.img"
head -c 1048576 /dev/urandom > "$MEDIA/two.img"
head -c 1048576 /dev/urandom > "$TOP/secret.img"
ln -s ../secret.img "$MEDIA/link.img"
# f_mass_storage refuses a CD-ROM image under 300 sectors of 2048 bytes.
head -c 800000 /dev/urandom > iso/payload.bin
timeout 30 genisoimage -quiet -R -o "$MEDIA/cd.iso" iso || die "genisoimage"
truncate -s 4M "$MEDIA/fat.img"
timeout 30 mkfs.vfat "$MEDIA/fat.img" >/dev/null || die "mkfs.vfat"

cat > /etc/gadgetd/profiles/media.conf <<EOF
gadget: { vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "media test"; serial = "MEDIA1"; }; };
functions: {
  media: { type = "mass_storage"; file = "$MEDIA/one.img"; removable = true;
           lun1_cdrom = true; lun1_removable = true; stall = false;
           inquiry_string = "gadgetd Virtual Media   0100";
           media_dir = "$MEDIA"; group_media = true; };
};
sets = ( { functions = [ "media" ]; product_id = 0x0130; } );
default = "media";
EOF
chmod 644 /etc/gadgetd/profiles/media.conf
gd_start media
DEV=1d6b:0130
check "host sees $DEV" wait_usb "$DEV"

# same FILE DEV: DEV reads as FILE (O_DIRECT, the first access after a
# media change may fail once with the unit attention).
same() {
	local lib_n=$(($(stat -c %s "$1") / 2048)) lib_i=0
	while [ $lib_i -lt 30 ]; do
		if [ "$(timeout 20 dd if="$2" iflag=direct bs=2048 count=$lib_n 2>/dev/null | sha256sum)" = \
		     "$(sha256sum < "$1")" ]; then
			return 0
		fi
		sleep 0.2
		lib_i=$((lib_i + 1))
	done
	return 1
}
# no_medium DEV: the host finds no medium in DEV.
no_medium() {
	local lib_i=0
	while [ $lib_i -lt 30 ]; do
		if ! timeout 10 dd if="$1" of=/dev/null bs=512 count=1 2>dd.err &&
			grep -q 'No medium found' dd.err; then
			return 0
		fi
		sleep 0.2
		lib_i=$((lib_i + 1))
	done
	cat dd.err
	return 1
}
# as_member CMD...: run as gdmedia, a member of plugdev; stderr in bad.txt.
as_member() { setpriv --reuid=gdmedia --regid=nogroup --init-groups "$@" 2>bad.txt; }

DISK=$(host_blk 0) || die "no host block device for LUN 0"
CD=$(host_blk 1) || die "no host block device for LUN 1"
say "LUN 0 is $DISK, LUN 1 is $CD"
check "LUN 1 is a CD-ROM on the host (sr)" sh -c "case $CD in /dev/sr*) ;; *) false ;; esac"
check "the host reads the profile's image from $DISK" same "$MEDIA/one.img" "$DISK"
check "the inquiry string reaches the host" \
	grep -q 'Virtual Media' "/sys/block/$(basename "$DISK")/device/model"
NUM=$(usb_devnum "$DEV")
ENUMS=$(usb_enums)

say "eject, insert another"
check "storage eject" timeout 10 gadgetctl storage eject
check "the host sees no medium in $DISK" no_medium "$DISK"
check "storage status says no medium" sh -c 'gadgetctl storage status | grep -qx "media lun.0: no medium, removable"'
check "storage insert two.img (a name in media_dir)" timeout 10 gadgetctl storage insert two.img
check "the host reads two.img from the same node $DISK" same "$MEDIA/two.img" "$DISK"
check "storage status names the file" sh -c "gadgetctl storage status | grep -qx 'media lun.0: $MEDIA/two.img, removable'"
check "swapped straight for one.img" timeout 10 gadgetctl storage insert media "$MEDIA/one.img"
check "the host reads one.img again" same "$MEDIA/one.img" "$DISK"

say "an ISO in the CD-ROM LUN"
check "storage insert --cdrom --lun 1 cd.iso" timeout 10 gadgetctl storage insert --cdrom --lun 1 cd.iso
check "the host reads the ISO from $CD" same "$MEDIA/cd.iso" "$CD"
check "the host mounts it as iso9660" timeout 20 mount -t iso9660 -o ro "$CD" /mnt/cd
check "the file on it is byte for byte" cmp iso/payload.bin /mnt/cd/payload.bin
check_exit 6 "a plain eject is refused (busy) while the host holds it mounted" \
	sh -c 'timeout 10 gadgetctl storage eject --lun 1 2>ej.txt'
cat ej.txt
check "... saying the host holds it and how to force" \
	grep -q 'the host holds the medium.*eject --force' ej.txt
check "a forced eject works while it is mounted" timeout 10 gadgetctl storage eject --force --lun 1
check "storage status: LUN 1 has no medium" \
	sh -c 'gadgetctl storage status | grep -qx "media lun.1: no medium, cdrom, ro, removable"'
umount -l /mnt/cd 2>/dev/null
check "the host sees no medium in $CD" no_medium "$CD"

say "a FAT image, written by the host"
check "storage insert fat.img" timeout 10 gadgetctl storage insert fat.img
MARK="gadgetd-media-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
mount_fat() {
	local lib_i=0
	while [ $lib_i -lt 20 ]; do
		timeout 20 mount -t vfat "$DISK" /mnt/fat 2>/dev/null && return 0
		sleep 0.2
		lib_i=$((lib_i + 1))
	done
	return 1
}
check "the host mounts it" mount_fat
check "the host writes a file" sh -c "echo $MARK > /mnt/fat/mark.txt && sync"
check "the write is in the image on the board" grep -q "$MARK" "$MEDIA/fat.img"
check_exit 6 "a plain eject of the mounted disk is refused" timeout 10 gadgetctl storage eject
check "a forced eject works" timeout 10 gadgetctl storage eject --force
umount -l /mnt/fat 2>/dev/null
check "the host sees no medium" no_medium "$DISK"

say "a member of group, with group_media"
check "a member may insert from media_dir" as_member timeout 10 gadgetctl storage insert two.img
check "... and the host reads it" same "$MEDIA/two.img" "$DISK"
check_exit 5 "a member: ../secret.img refused" \
	as_member timeout 10 gadgetctl storage insert ../secret.img
check "... named, leads out" grep -q '../secret.img: refused: it leads out of' bad.txt
check_exit 5 "a member: a symbolic link refused" \
	as_member timeout 10 gadgetctl storage insert link.img
check "... named, symbolic link" grep -q 'link.img: refused: a symbolic link' bad.txt
check_exit 5 "a member: an absolute path outside refused" \
	as_member timeout 10 gadgetctl storage insert "$TOP/secret.img"
check "... named, not beneath" grep -q "secret.img: refused: not beneath $MEDIA" bad.txt
check_exit 5 "a member: media_dir/../secret.img refused" \
	as_member timeout 10 gadgetctl storage insert "$MEDIA/../secret.img"
check "... named, leads out" grep -q 'media/../secret.img: refused: it leads out of' bad.txt
check "the host still reads two.img" same "$MEDIA/two.img" "$DISK"

say "a member cannot lower the profile's floor"
# two.img is root's: the member may read it but not write it.
check "a member inserts two.img, which is root's" as_member timeout 10 gadgetctl storage insert two.img
check "... it goes in read-only (the member may not write it)" \
	sh -c "gadgetctl storage status | grep -qx 'media lun.0: $MEDIA/two.img, ro, removable'"
check "... the kernel's LUN is read-only" \
	gd_ns sh -c 'grep -qx 1 /sys/kernel/config/usb_gadget/*/functions/mass_storage.media/lun.0/ro'
check "a member inserts cd.iso in LUN 1 without --cdrom" \
	as_member timeout 10 gadgetctl storage insert --lun 1 cd.iso
check "... LUN 1 stays a CD-ROM (the profile's lun1_cdrom)" \
	sh -c "gadgetctl storage status | grep -qx 'media lun.1: $MEDIA/cd.iso, cdrom, ro, removable'"
timeout 10 gadgetctl storage eject --force --lun 1 >/dev/null

say "a deleted medium is never reopened by its name"
OWN=$MEDIA/gdmedia
mkdir -p "$OWN" && chown gdmedia "$OWN"
as_member sh -c "head -c 1048576 /dev/urandom > $OWN/own.img && head -c 100 /dev/zero > $OWN/tiny.img"
cp "$OWN/own.img" own.copy
check "a member inserts an image of their own" as_member timeout 10 gadgetctl storage insert gdmedia/own.img
check "... read-write: the member may write it" \
	sh -c "gadgetctl storage status | grep -qx 'media lun.0: $OWN/own.img, removable'"
check "... and the host reads it" same own.copy "$DISK"
check "the member deletes it and plants \"own.img (deleted)\" -> /etc/shadow" \
	as_member sh -c "rm $OWN/own.img && ln -s /etc/shadow '$OWN/own.img (deleted)'"
check "gadgetd shows the kernel's name for it" \
	sh -c "gadgetctl storage status | grep -qx 'media lun.0: $OWN/own.img (deleted), removable'"
check_exit 5 "a member's 100-byte image is refused" \
	as_member timeout 10 gadgetctl storage insert gdmedia/tiny.img
cat bad.txt
check "... as too small, before anything changed" grep -q 'too small.*nothing was changed' bad.txt
check "the deleted image is still in the LUN" \
	sh -c "gadgetctl storage status | grep -qx 'media lun.0: $OWN/own.img (deleted), removable'"
check "the host reads the deleted image, not /etc/shadow" same own.copy "$DISK"
check "... and nothing of /etc/shadow" sh -c "! timeout 20 dd if=$DISK iflag=direct bs=512 count=8 2>/dev/null | grep -aq '^root:'"

check "root may name any file" timeout 10 gadgetctl storage insert "$TOP/secret.img"
check "... and the host reads it" same "$TOP/secret.img" "$DISK"
check "a member's status does not name it" \
	sh -c "as_member() { setpriv --reuid=gdmedia --regid=nogroup --init-groups \"\$@\"; }; as_member gadgetctl storage status | grep -qx 'media lun.0: a medium outside media_dir, removable'"
check "root's does" sh -c "gadgetctl storage status | grep -qx 'media lun.0: $TOP/secret.img, removable'"

check "no re-enumeration: the USB device number is $NUM still" [ "$(usb_devnum "$DEV")" = "$NUM" ]
check "no new enumeration in the host's log" [ "$(usb_enums)" = "$ENUMS" ]
finish
