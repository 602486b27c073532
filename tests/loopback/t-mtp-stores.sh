#!/bin/sh
# MTP storages that come and go while the host stays connected (issue 43):
# `gadgetctl mtp storage add/remove/list`, a storage that follows a mount
# point (storage1_follow_mount), the StoreAdded and StoreRemoved events
# the host reads on the interrupt endpoint (libmtp's event API), storage
# ids never given twice, and a removal during an upload: the host gets
# Store_Not_Available and no partial file stays. gadgetd from make
# install, started by its unit; needs SRC.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
export LANG=C.UTF-8
OUT=/mnt/out
PY="/usr/bin/python3 $SRC/tests/loopback/mtp_host.py"
gd_install
mkdir -p /srv/mtp /srv/extra /media/card
echo "from the board" > /srv/mtp/board.txt
echo "an extra folder" > /srv/extra/extra.txt
# What gadgetctl(1) asks of a folder given to `storage add`: the worker's
# user may open it (it runs unprivileged).
chown -R gadgetd-mtp: /srv/extra
cat > /etc/gadgetd/profiles/stores.conf <<'EOF'
gadget: {
  vendor_id = 0x1d6b;
  product_id = 0x0143;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "stores"; serial = "S43"; };
};
functions: {
  mtp: {
    type = "ffs"; plugin = "mtp";
    options: {
      storage0_path = "/srv/mtp";
      storage0_description = "Internal storage";
      storage1_path = "/media/card";
      storage1_description = "Card";
      storage1_follow_mount = true;
      storage_add_under = "/srv";
    };
  };
};
sets = ( { functions = [ "mtp" ]; product_id = 0x0143; } );
default = "mtp";
EOF
gd_start stores
check "the host sees the MTP gadget" wait_usb 1d6b:0143

say "before: the profile's storage alone (the card is not mounted)"
timeout 60 mtp-detect > $OUT/detect0.txt 2>&1
check "mtp-detect shows Internal storage" grep -q "StorageDescription: Internal storage" $OUT/detect0.txt
check "mtp-detect shows no Card yet" sh -c "! grep -q 'StorageDescription: Card' $OUT/detect0.txt"
check "storage list says the card is not shown" sh -c \
	"timeout 10 gadgetctl mtp storage list | grep -q '/media/card \"Card\" (not shown)'"

say "refusals: a path outside storage_add_under, a link out of it, an unknown storage"
timeout 10 gadgetctl mtp storage add /etc > $OUT/outside.txt 2>&1
check "a folder outside /srv is refused (exit 5, invalid)" [ $? = 5 ]
check "  and the reply names the option" grep -q "storage_add_under" $OUT/outside.txt
ln -sfn /etc /srv/etc-link
check_exit 1 "a symbolic link out of /srv is refused" timeout 10 gadgetctl mtp storage add /srv/etc-link
check_exit 5 "remove of an unknown storage fails" timeout 10 gadgetctl mtp storage remove nosuch

say "events: the host listens while a storage is added, removed, mounted, unmounted"
timeout 90 $PY storeevents 4 > $OUT/events.txt 2>&1 &
EVPID=$!
check "the listener has its session" within_s 30 grep -q listening $OUT/events.txt
timeout 10 gadgetctl mtp storage add /srv/extra --name Extra > $OUT/add1.txt 2>&1
check "storage add answers with the id" grep -q '^storage 0x[0-9a-f]* "Extra" added' $OUT/add1.txt
ID1=$(sed -n 's/^storage \(0x[0-9a-f]*\) .*/\1/p' $OUT/add1.txt)
check "the host reads StoreAdded $ID1" within_s 20 grep -q "event 1 param $ID1" $OUT/events.txt
check "storage remove Extra" timeout 10 gadgetctl mtp storage remove Extra
check "the host reads StoreRemoved $ID1" within_s 20 grep -q "event 2 param $ID1" $OUT/events.txt
mount -t tmpfs -o size=8m,mode=1777 card /media/card
check "the mounted card becomes a storage" within_s 10 sh -c \
	"timeout 10 gadgetctl mtp storage list | grep -q '^0x[0-9a-f]* rw /media/card \"Card\"$'"
IDC=$(timeout 10 gadgetctl mtp storage list | sed -n 's|^\(0x[0-9a-f]*\) rw /media/card .*|\1|p')
check "the host reads StoreAdded $IDC for the card" within_s 20 grep -q "event 1 param $IDC" $OUT/events.txt
# A plain umount is refused while the worker serves the card
# (gadgetd.conf(5), storageN_follow_mount; docs/kernel.md): lazily, it
# goes at once.
check "a plain umount of the served card is refused as busy" sh -c \
	"! umount /media/card 2>$OUT/umount.txt && grep -q busy $OUT/umount.txt"
umount -l /media/card
check "the host reads StoreRemoved $IDC once it is unmounted" within_s 20 grep -q "event 2 param $IDC" $OUT/events.txt
wait $EVPID
cat $OUT/events.txt

say "mtp-files and mtp-detect before and after, in sessions of their own"
timeout 10 gadgetctl mtp storage add /srv/extra --name Extra > $OUT/add2.txt 2>&1
ID2=$(sed -n 's/^storage \(0x[0-9a-f]*\) .*/\1/p' $OUT/add2.txt)
check "a storage added again gets a new id ($ID1, then $ID2)" sh -c "[ -n '$ID2' ] && [ '$ID2' != '$ID1' ]"
mount -t tmpfs -o size=8m,mode=1777 card /media/card
echo "on the card" > /media/card/card.txt
check "the card is listed again" within_s 10 sh -c \
	"timeout 10 gadgetctl mtp storage list | grep -q ' /media/card \"Card\"$'"
timeout 60 mtp-detect > $OUT/detect1.txt 2>&1
check "mtp-detect shows Extra" grep -q "StorageDescription: Extra" $OUT/detect1.txt
check "mtp-detect shows Card" grep -q "StorageDescription: Card" $OUT/detect1.txt
timeout 60 mtp-files > $OUT/files1.txt 2>&1
check "mtp-files lists the extra folder's file" grep -q "Filename: extra.txt" $OUT/files1.txt
check "mtp-files lists the card's file" grep -q "Filename: card.txt" $OUT/files1.txt

say "a removal during an upload"
timeout 30 head -c 6000000 /dev/urandom > /var/tmp/big.bin
timeout 120 $PY sendrun $ID2 /var/tmp/big.bin big.bin 0.3 \
	'timeout 10 gadgetctl mtp storage remove Extra' > $OUT/send.txt 2>&1
cat $OUT/send.txt
check "the upload fails on the host" grep -q "^failed sendrun" $OUT/send.txt
check "the removal ran during it" grep -q "ran .*: exit 0" $OUT/send.txt
check "the host is told Store_Not_Available" grep -q "PTP Store Not Available" $OUT/send.txt
check "no partial file and no temporary file stay" sh -c \
	"[ \"\$(ls -A /srv/extra)\" = extra.txt ]"

say "after: Extra and the card are gone"
# Removed first, the card is let go: a plain umount passes.
check "storage remove Card" timeout 10 gadgetctl mtp storage remove Card
check "then a plain umount of the card passes" umount /media/card
check "the card is not shown" within_s 10 sh -c \
	"timeout 10 gadgetctl mtp storage list | grep -q '/media/card \"Card\" (not shown)'"
timeout 60 mtp-files > $OUT/files2.txt 2>&1
check "mtp-files still lists the board's file" grep -q "Filename: board.txt" $OUT/files2.txt
check "mtp-files no longer lists extra.txt" sh -c "! grep -q 'Filename: extra.txt' $OUT/files2.txt"
check "mtp-files no longer lists card.txt" sh -c "! grep -q 'Filename: card.txt' $OUT/files2.txt"
check "the worker still runs" gd_status 'plugin("mtp").pid > 0'
finish
