#!/bin/sh
# MTP gated by the lock (issue 43, lock_gated's default): while locked the
# responder answers (mtp-detect gets DeviceInfo) but lists no storage and
# no file; at unlock the storage and its files are back without
# re-enumeration (same USB device number); a lock during an upload ends
# it with Store_Not_Available and leaves no partial file. gadgetd from
# make install, started by its unit; needs SRC.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
export LANG=C.UTF-8
OUT=/mnt/out
PY="/usr/bin/python3 $SRC/tests/loopback/mtp_host.py"
gd_install
mkdir -p /srv/mtp
echo "from the board" > /srv/mtp/board.txt
cat > /etc/gadgetd/profiles/mtplock.conf <<'EOF'
gadget: {
  vendor_id = 0x1d6b;
  product_id = 0x0145;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "mtp lock"; serial = "ML43"; };
};
functions: {
  mtp: {
    type = "ffs"; plugin = "mtp";
    options: {
      storage0_path = "/srv/mtp";
      storage0_description = "Internal storage";
    };
  };
};
sets = ( { functions = [ "mtp" ]; product_id = 0x0145; } );
default = "mtp";
EOF
gd_start mtplock
check "the host sees the MTP gadget" wait_usb 1d6b:0145
DEV=$(usb_devnum 1d6b:0145)

say "locked: DeviceInfo, but no storage and no file"
check_exit 0 "gadgetctl lock" timeout 10 gadgetctl lock
check "the worker hid its storage" gd_log_has "mtp: locked: 1 storage(s) hidden"
timeout 60 mtp-detect > $OUT/detect-locked.txt 2>&1
check "mtp-detect still reads DeviceInfo" grep -q "Manufacturer: gadgetd" $OUT/detect-locked.txt
check "mtp-detect shows no storage" sh -c "! grep -q 'StorageDescription' $OUT/detect-locked.txt"
check "nothing of the storage leaks (name, file)" sh -c \
	"! grep -qe 'Internal storage' -e board.txt $OUT/detect-locked.txt"
timeout 60 mtp-files > $OUT/files-locked.txt 2>&1
check "mtp-files lists no file" sh -c "! grep -q 'Filename:' $OUT/files-locked.txt"

say "unlocked: the files are back, without replug"
check_exit 0 "gadgetctl unlock" timeout 10 gadgetctl unlock
check "the worker showed it again" gd_log_has "mtp: unlocked: 1 storage(s) shown again"
timeout 60 mtp-files > $OUT/files-unlocked.txt 2>&1
check "mtp-files lists board.txt" grep -q "Filename: board.txt" $OUT/files-unlocked.txt
check "no re-enumeration (same devnum $DEV)" [ "$(usb_devnum 1d6b:0145)" = "$DEV" ]

say "a lock during an upload"
ID=$(timeout 10 gadgetctl mtp storage list | sed -n 's/^\(0x[0-9a-f]*\) rw \/srv\/mtp .*/\1/p')
check "the storage has a new id after the unlock ($ID)" sh -c "[ -n '$ID' ] && [ '$ID' != 0x00010001 ]"
timeout 30 head -c 6000000 /dev/urandom > /var/tmp/big.bin
timeout 120 $PY sendrun $ID /var/tmp/big.bin big.bin 0.3 \
	'timeout 10 gadgetctl lock' > $OUT/send.txt 2>&1
cat $OUT/send.txt
check "the upload fails on the host" grep -q "^failed sendrun" $OUT/send.txt
check "the lock ran during it" grep -q "ran .*: exit 0" $OUT/send.txt
check "the host is told Store_Not_Available" grep -q "PTP Store Not Available" $OUT/send.txt
check "no partial file and no temporary file stay" sh -c \
	"[ \"\$(ls -A /srv/mtp)\" = board.txt ]"
check_exit 0 "gadgetctl unlock" timeout 10 gadgetctl unlock
timeout 60 mtp-files > $OUT/files-end.txt 2>&1
check "mtp-files lists board.txt and no big.bin" sh -c \
	"grep -q 'Filename: board.txt' $OUT/files-end.txt && ! grep -q big.bin $OUT/files-end.txt"
check "no re-enumeration through it all" [ "$(usb_devnum 1d6b:0145)" = "$DEV" ]
check "the worker still runs" gd_status 'plugin("mtp").pid > 0'
finish
