#!/bin/sh
# The mtp plugin under gadgetd itself: the lab profile's "mtp" set
# (storage0_path=/srv/mtp), switched to with gadgetctl, seen by libmtp,
# a 4 MB round trip, and the switch to "mtp,adb" keeping MTP usable.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit; needs SRC and B.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
export LANG=C.UTF-8
OUT=/mnt/out
gd_install
# The board's image ships the storage with a file in it (lab.conf's
# storage0_create only matters when it is missing).
mkdir -p /srv/mtp
echo "from the board" > /srv/mtp/board.txt
gd_start lab
VID=1d6b

say "switch mtp"
gd_switch mtp
PID_MTP=$(set_pid mtp)
check "host sees $VID:$PID_MTP" wait_usb "$VID:$PID_MTP"
timeout 60 mtp-detect > $OUT/detect.txt 2>&1
check "mtp-detect shows the profile's model" grep -q "Model: gadgetd development board" $OUT/detect.txt
check "mtp-detect shows the storage" grep -q "StorageDescription: Internal storage" $OUT/detect.txt
timeout 60 mtp-files > $OUT/files.txt 2>&1
check "mtp-files lists the board's file" grep -q "Filename: board.txt" $OUT/files.txt
timeout 30 head -c 4000000 /dev/urandom > /tmp/rt.bin
timeout 120 mtp-sendfile /tmp/rt.bin / > $OUT/send.txt 2>&1
check "mtp-sendfile stores the bytes" cmp /tmp/rt.bin /srv/mtp/rt.bin
ID=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $OUT/send.txt)
timeout 120 mtp-getfile "$ID" /tmp/back.bin > $OUT/get.txt 2>&1
check "mtp-getfile returns them (id $ID)" cmp /tmp/rt.bin /tmp/back.bin

say "switch mtp,adb"
gd_switch mtp,adb
PID_MA=$(set_pid mtp,adb)
check "host sees $VID:$PID_MA" wait_usb "$VID:$PID_MA"
timeout 60 mtp-files > $OUT/files2.txt 2>&1
check "MTP still lists after the switch" grep -q "Filename: rt.bin" $OUT/files2.txt
finish
