#!/bin/sh
# MTP space and overwrites against a hostile host (issue #9, part 4):
# gadgetd-worker + mtp.so composed by hand (mtp_lib.sh), two storages:
#   0 "Small": a 4 MiB tmpfs with storage0_reserve_mb=1;
#   1 "Big":   a folder on the root file system.
# Driven by libmtp (mtp_host.py) and mtp-tools: an overwrite cancelled (by
# libmtp's class cancel request) or whose host is killed halfway keeps the
# old bytes; GetStorageInfo shows free less the reserve; oversize sends,
# one byte over and 5 GiB announced are refused with Store_Full and write
# nothing; a send the board's own writes outrun stops at the reserve.
# Issue 21: a storage path through a symbolic link is refused, naming the
# option; every creation counts against the reserve, bytes and inodes
# (the tmpfs has 64 inodes, storage0_reserve_inodes=32): with the disk at
# its reserve, a folder, an empty upload and copies of an empty file and
# of a folder are refused with Store_Full and the storage does not grow.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: light - the gadget composed by hand around gadgetd-worker (no gadgetd),
#   hosts killed mid-transfer (fault injection)
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
S0=/srv/small
S1=/srv/big
SMALL=65537 # 0x00010001
BIG=131073  # 0x00020001
MIB=1048576
HOST=/tmp/host
OUT=/mnt/out
export LANG=C.UTF-8

: > "$MTP_WLOG"
gd_modules
mkdir -p $S0 $S1 $HOST
timeout 10 mount -t tmpfs -o size=4m,nr_inodes=64 small $S0 || die "no tmpfs for $S0"
mtp_pattern OLDDATA 1000000 $HOST/old.bin
cp $HOST/old.bin $S1/keep.bin

say "a storage behind a symbolic link is refused (issue 21)"
ln -s /srv /srv-link
: > "$MTP_WLOG"
mtp_up storage0_path=/srv-link/big storage0_description=Link > $OUT/link.txt 2>&1
up=$?
check "a storage reached through /srv-link does not come up" test "$up" != 0
cat "$MTP_WLOG" | tail -n 3
check "the worker says which option and which link" \
	grep -q 'storage0_path: /srv-link/big: /srv-link is a symbolic link' "$MTP_WLOG"
mtp_down
rm /srv-link
: > "$MTP_WLOG"

say "start the MTP function"
mtp_up storage0_path=$S0 storage0_description=Small storage0_reserve_mb=1 \
	storage0_reserve_inodes=32 \
	storage1_path=$S1 storage1_description=Big ||
	die "the MTP gadget did not come up"

say "an overwrite cancelled halfway keeps the old bytes"
mtp_pattern NEWDATA 1000000 $HOST/new.bin
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendcancel $BIG $HOST/new.bin keep.bin 0.5 > $OUT/cancel.txt 2>&1
cat $OUT/cancel.txt | head -n 5
check "libmtp cancelled the send at half" grep -q "^failed sendcancel" $OUT/cancel.txt
check "keep.bin still holds the old bytes" cmp $HOST/old.bin $S1/keep.bin
check "no temporary file is left" test "$(mtp_temps $S1)" = 0
timeout 120 $MTP_PY $MTP_T/mtp_host.py send $BIG $HOST/new.bin keep.bin > $OUT/over.txt 2>&1
check "the next overwrite goes through" grep -q "^ok send" $OUT/over.txt
check "keep.bin holds the new bytes" cmp $HOST/new.bin $S1/keep.bin

say "an overwrite whose host is killed halfway keeps the old bytes"
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendrun $BIG $HOST/old.bin keep.bin 0.5 'kill -9 $PPID' > $OUT/killed.txt 2>&1
check "the host died mid-transfer" sh -c "grep -q '^at ' $OUT/killed.txt && ! grep -q '^ok' $OUT/killed.txt"
check "keep.bin still holds the bytes before" cmp $HOST/new.bin $S1/keep.bin
timeout 60 mtp-files > $OUT/files3.txt 2>&1
check "the next host lists again" grep -q "Filename: keep.bin" $OUT/files3.txt
check "no temporary file is left" test "$(mtp_temps $S1)" = 0

say "space on a 4 MiB tmpfs with a 1 MiB reserve"
timeout 60 mtp-detect > $OUT/detect.txt 2>&1
FREE=$(awk '/FreeSpaceInBytes:/ { f = $2 } /StorageDescription: Small/ { print f }' $OUT/detect.txt)
AV=$(mtp_avail $S0)
check "GetStorageInfo's free space is free less the reserve ($FREE = $AV - $MIB)" \
	test "$FREE" = $((AV - MIB))
head -c 5000000 /dev/zero > $HOST/five.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py send $SMALL $HOST/five.bin five.bin > $OUT/five.txt 2>&1
check "a 5 MB send is refused with Store_Full" \
	sh -c "grep -q '^failed send' $OUT/five.txt && grep -q 'Store Full' $OUT/five.txt"
head -c $((FREE + 1)) /dev/zero > $HOST/over.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py send $SMALL $HOST/over.bin over.bin > $OUT/over1.txt 2>&1
check "one byte more than the reserve leaves is refused" grep -q "^failed send" $OUT/over1.txt
head -c 1000 /dev/zero > $HOST/small.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py sendsize $SMALL $HOST/small.bin huge.bin 5368709120 > $OUT/huge.txt 2>&1
check "5 GiB announced is refused with Store_Full" \
	sh -c "grep -q '^failed sendsize' $OUT/huge.txt && grep -q 'Store Full' $OUT/huge.txt"
check "nothing of them was written" \
	sh -c "test ! -e $S0/five.bin -a ! -e $S0/over.bin -a ! -e $S0/huge.bin && test \$(ls -A $S0 | wc -l) = 0"
check "the disk keeps its reserve" test "$(mtp_avail $S0)" -ge $MIB
head -c 2000000 /dev/zero > $HOST/two.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py send $SMALL $HOST/two.bin two.bin > $OUT/two.txt 2>&1
check "a 2 MB send fits" cmp $HOST/two.bin $S0/two.bin
rm -f $S0/two.bin
mtp_pattern FILL 2500000 $HOST/fill.bin
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendrun $SMALL $HOST/fill.bin fill.bin 0.3 \
	"head -c 1500000 /dev/zero > $S0/filler" > $OUT/fill.txt 2>&1
cat $OUT/fill.txt | head -n 5
check "a send the board's writes leave no room for fails with Store_Full" \
	sh -c "grep -q '^failed sendrun' $OUT/fill.txt && grep -q 'Store Full' $OUT/fill.txt"
check "the board's own 1.5 MB went in whole" test "$(stat -c %s $S0/filler)" = 1500000
check "nothing of the send is left" sh -c "test ! -e $S0/fill.bin && test $(mtp_temps $S0) = 0"
check "the disk keeps its reserve" test "$(mtp_avail $S0)" -ge $MIB

# refused CMD...: CMD fails with Store_Full and $S0 keeps $n entries.
refused() {
	what=$1
	shift
	timeout 60 $MTP_PY $MTP_T/mtp_host.py "$@" > $OUT/refused.txt 2>&1
	cat $OUT/refused.txt | tail -n 3
	check "$what is refused with Store_Full" \
		sh -c "grep -q '^failed $1' $OUT/refused.txt && grep -q 'Store Full' $OUT/refused.txt"
	check "and the storage does not grow ($n entries)" \
		test "$(find $S0 -mindepth 1 | wc -l)" = "$n"
}

say "every creation needs room above the reserve: bytes"
rm -f $S0/filler
mkdir $S0/dst $S0/tree
: > $S0/empty
: > $S0/tree/inner
: > $HOST/zero.bin
AV=$(mtp_avail $S0)
head -c $((AV - MIB)) /dev/zero > $S0/filler
check "the board filled the disk down to its reserve" test "$(mtp_avail $S0)" -le $MIB
n=$(find $S0 -mindepth 1 | wc -l)
refused "a new folder" mkdir $SMALL newdir
refused "a 0-byte upload" send $SMALL $HOST/zero.bin zero.bin
refused "a copy of an empty file" copy $SMALL empty dst
refused "a copy of a folder" copy $SMALL tree dst
check "no temporary file is left" test "$(mtp_temps $S0)" = 0

say "every creation needs room above the reserve: inodes"
rm -f $S0/filler
i=0
while [ "$(stat -f -c %d $S0)" -gt 32 ] && [ $i -lt 64 ]; do
	: > $S0/inode$i
	i=$((i + 1))
done
check "the board used the inodes down to the reserve ($(stat -f -c %d $S0) free)" \
	test "$(stat -f -c %d $S0)" = 32
check "bytes to spare" test "$(mtp_avail $S0)" -gt $((2 * MIB))
n=$(find $S0 -mindepth 1 | wc -l)
refused "a new folder" mkdir $SMALL newdir
refused "a 0-byte upload" send $SMALL $HOST/zero.bin zero.bin
refused "a copy of an empty file" copy $SMALL empty dst
refused "a copy of a folder" copy $SMALL tree dst
rm -f $S0/inode*
timeout 60 $MTP_PY $MTP_T/mtp_host.py mkdir $SMALL newdir > $OUT/mkdir.txt 2>&1
check "with inodes again a folder is made" sh -c "grep -q '^ok mkdir' $OUT/mkdir.txt && test -d $S0/newdir"
timeout 60 $MTP_PY $MTP_T/mtp_host.py copy $SMALL tree dst > $OUT/copy.txt 2>&1
check "and a folder copied" sh -c "grep -q '^ok copy' $OUT/copy.txt && test -f $S0/dst/tree/inner"

mtp_finish
