#!/bin/sh
# The ptp function (issue 26) under gadgetd with the shipped profile's
# "ptp" set, driven by gphoto2 (libgphoto2's own PTP stack): detection
# and summary, a DCIM tree of 200 photos with EXIF thumbnails and a few
# without (nested folders), every file and every thumbnail back byte for
# byte, delete and upload refused read-only and working once writable,
# an ObjectAdded for a photo copied in, no storage or photo while the
# device is locked (gadgetctl lock) and all back at unlock, and the interface, DeviceInfo and
# hostile containers through pyusb (ptp_host.py).
# gphoto2 lists the whole storage at each start, so the test runs it as
# few times as it can (a start lists all 200 photos again).
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
export LANG=C.UTF-8 HOME=/tmp/gphome
OUT=/mnt/out
T=$SRC/tests/loopback
DCIM=/srv/mtp/DCIM
STORE=/store_00010001
N=${PTP_N:-200}
G="timeout 120 gphoto2 --quiet"
gd_install
mkdir -p /tmp/gphome /tmp/get /tmp/thumbs /srv/mtp
# What the board's camera wrote before gadgetd starts; the expected
# thumbnails and two more photos go elsewhere.
timeout 60 python3 $T/ptp_photos.py tree /srv/mtp $N || die "no photos made"
mv /srv/mtp/thumbs /tmp/want-thumbs
mv /srv/mtp/new /tmp/new
chown -R gadgetd-mtp:gadgetd-mtp $DCIM
gd_start android

say "switch ptp"
gd_switch ptp
PID=$(set_pid ptp)
check "the ptp set has its own product id ($PID)" test "$PID" = 010f
check "host sees 1d6b:$PID" wait_usb "1d6b:$PID"
$G --auto-detect > $OUT/detect.txt 2>&1
check "gphoto2 --auto-detect sees a PTP camera" grep -q "PTP.*usb:" $OUT/detect.txt
# One session for the summary, the listing, the files and the thumbnails.
(cd /tmp/get && $G --summary --list-files --get-all-files --get-all-thumbnails) \
	> $OUT/gphoto2.txt 2>&1
say "gphoto2 done"
check "--summary shows the profile's model" grep -q "Model: gadgetd development board" $OUT/gphoto2.txt
check "--summary shows no vendor extension" sh -c "! grep -qi 'vendor extension' $OUT/gphoto2.txt"
check "--summary shows the read-only storage" grep -q "Access Capability: Read-Only" $OUT/gphoto2.txt
check "--list-files lists the $N photos and the 3 without thumbnail" \
	test "$(grep -c "^$STORE/" $OUT/gphoto2.txt)" = $((N + 3))
check "--list-files shows the nested folder" grep -q "^$STORE/101GADGT/sub/IMG_0001.JPG" $OUT/gphoto2.txt
mv /tmp/get/thumb_* /tmp/thumbs/
check "--get-all-files brings back $((N + 3)) files" test "$(ls /tmp/get | wc -l)" = $((N + 3))
# Checksums by base name, a few processes in all (one per file is
# minutes on the emulated bed).
(cd $DCIM && find . -type f -exec md5sum {} + | sed 's|  .*/|  |' | sort) > $OUT/want.sums
(cd /tmp/get && md5sum * | sort) > $OUT/got.sums
check "each byte for byte" cmp $OUT/want.sums $OUT/got.sums
check "--get-all-thumbnails: the $N embedded ones and no other" \
	test "$(ls /tmp/thumbs | wc -l)" = $N
(cd /tmp/want-thumbs && md5sum * | sort) > $OUT/want-thumbs.sums
(cd /tmp/thumbs && md5sum * | sed 's|  thumb_\(.*\)\.jpg$|  \1.JPG|' | sort) > $OUT/got-thumbs.sums
check "each the embedded thumbnail, byte for byte" cmp $OUT/want-thumbs.sums $OUT/got-thumbs.sums

say "read-only: delete and upload refused"
$G --folder $STORE/NOTHUMB --delete-all-files > $OUT/ro-delete.txt 2>&1
check "the delete changed nothing" test "$(ls $DCIM/NOTHUMB | wc -l)" = 3
check_exit 1 "the upload is refused" sh -c "$G --folder $STORE/NOTHUMB \
	--upload-file /tmp/new/UP_4242.JPG > $OUT/ro-upload.txt 2>&1"
check "gphoto2 says why" grep -q "PTP Store Read Only" $OUT/ro-upload.txt
check "the upload made nothing" test ! -e $DCIM/NOTHUMB/UP_4242.JPG
check "no temporary file left" test -z "$(ls -A $DCIM/NOTHUMB | grep '^\.')"
timeout 60 python3 $T/ptp_host.py "1d6b:$PID" info thumb /tmp/want-thumbs hostile \
	> $OUT/ptp_host.txt 2>&1
check "interface 6/1/1, DeviceInfo with no vendor extension and no MTP op" \
	grep -q "^ok no MTP operation listed" $OUT/ptp_host.txt
check "GetThumb gives the embedded thumbnail, No_Thumbnail_Present without one" \
	grep -q "^ok GetThumb of it: No_Thumbnail_Present" $OUT/ptp_host.txt
check "hostile containers: refused, and the function still answers" \
	grep -q "^ok GetDeviceInfo after a refused upload" $OUT/ptp_host.txt

say "ObjectAdded for a photo copied into DCIM"
# Line-buffered, to see when it waits; it ends at the first FILEADDED.
(timeout 60 stdbuf -oL gphoto2 --wait-event=FILEADDED > $OUT/event.txt 2>&1 &)
n=0
while ! grep -q "Waiting for" $OUT/event.txt 2>/dev/null && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
cp /tmp/new/IMG_9999.JPG $DCIM/100GADGT/
n=0
while ! grep -q "event found" $OUT/event.txt && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "--wait-event sees IMG_9999.JPG added" \
	grep -q "FILEADDED IMG_9999.JPG $STORE/100GADGT" $OUT/event.txt

say "locked (gadgetctl lock): gphoto2 sees no storage and no photo; unlocked: they are back"
check "gadgetctl lock" timeout 30 gadgetctl lock
$G --summary --list-files > $OUT/locked.txt 2>&1
rc=$?
sed -n '/Storage Devices Summary/,$p' $OUT/locked.txt | head -20
check "while locked gphoto2 lists no photo ($rc)" sh -c "! grep -q '\.JPG' $OUT/locked.txt"
check "and its summary no storage" sh -c "! grep -q 'Access Capability' $OUT/locked.txt"
(cd /tmp/get && $G --folder $STORE/100GADGT --get-file 1) > $OUT/locked-get.txt 2>&1
rc=$?
cat $OUT/locked-get.txt
check "a get by the storage known before the lock fails ($rc)" [ $rc != 0 ]
check "gadgetctl unlock" timeout 30 gadgetctl unlock
$G --summary --list-files > $OUT/unlocked.txt 2>&1
check "unlocked, the read-only storage is back" grep -q "Access Capability: Read-Only" $OUT/unlocked.txt
check "and so are the photos, without a replug" grep -q "IMG_0001.JPG" $OUT/unlocked.txt

say "writable = true: delete and upload work"
sed -i 's|storage0_path = "/srv/mtp/DCIM";|&\n      writable = true;|' /etc/gadgetd/profiles/android.conf
check "the profile reloads" timeout 60 gadgetctl reload
check "host sees 1d6b:$PID again" wait_usb "1d6b:$PID"
$G --folder $STORE/NOTHUMB --upload-file /tmp/new/UP_4242.JPG > $OUT/rw-upload.txt 2>&1
check "the upload stores the bytes" cmp /tmp/new/UP_4242.JPG $DCIM/NOTHUMB/UP_4242.JPG
$G --folder $STORE/NOTHUMB --delete-all-files > $OUT/rw-delete.txt 2>&1
check "the delete removes the files" test -z "$(ls $DCIM/NOTHUMB)"
finish
