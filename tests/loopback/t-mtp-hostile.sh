#!/bin/sh
# MTP between a hostile board and a hostile host (issue #9, parts 3 and 4),
# gadgetd-worker + mtp.so composed by hand (mtp_lib.sh), two storages:
#   0 "Small": a 4 MiB tmpfs with storage0_reserve_mb=1;
#   1 "Conf":  a folder where the board plants symlinks, hard links and
#              bind mounts leading to /srv/outside, before and after the
#              host lists it.
# Driven by mtp-tools and libmtp (mtp_host.py). Checks that oversize sends
# are refused and the disk keeps its reserve, that a disk filled during a
# transfer stops it at the reserve, that an overwrite cancelled (or killed)
# halfway keeps the old bytes, and that nothing of /srv/outside can be
# read, overwritten or deleted through the plants.
# Runs in the guest (see run-suite.sh); needs SRC and B.
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
S0=/srv/small
S1=/srv/conf
OUTSIDE=/srv/outside
SMALL=65537  # 0x00010001
CONF=131073  # 0x00020001
MIB=1048576
HOST=/tmp/host
OUT=/mnt/out
export LANG=C.UTF-8

# file_id NAME LISTING: the File ID mtp-files gave NAME.
file_id() {
	grep -B1 "Filename: $1\$" "$2" | sed -n 's/^File ID: \([0-9]*\).*/\1/p' | head -n1
}

# temps DIR: how many upload temporary files DIR holds.
temps() {
	ls -A "$1" | grep -c '^\.gadgetd-mtp-'
}

# avail DIR: the bytes free on DIR's file system.
avail() {
	stat -f -c '%a %S' "$1" | awk '{ print $1 * $2 }'
}

# pattern WORD BYTES FILE: FILE made of WORD repeated (never a valid
# container header, so bytes a cancelled host still sends are dropped).
pattern() {
	awk -v w="$1" 'BEGIN { for (;;) printf "%s-%07d\n", w, n++ }' 2>/dev/null |
		head -c "$2" > "$3"
}

# no_secret FILE...: none holds the outside's secret.
no_secret() {
	! grep -l TOPSECRET "$@" 2>/dev/null
}

: > "$MTP_WLOG"
gd_modules
mkdir -p $S0 $S1 $OUTSIDE/sub $HOST/get
timeout 10 mount -t tmpfs -o size=4m small $S0 || die "no tmpfs for $S0"
echo TOPSECRET > $OUTSIDE/secret.txt
echo TOPSECRET > $OUTSIDE/sub/deep.txt
echo TOPSECRET > $OUTSIDE/in.txt

# The board's plants, there before the host looks.
echo fine > $S1/ok.txt
echo swap > $S1/swap.txt
echo bm > $S1/bm.txt
mkdir -p $S1/d $S1/d2 $S1/holder/inner
echo in > $S1/d/in.txt
echo in > $S1/d2/in.txt
echo x > $S1/holder/x.txt
ln -s $OUTSIDE/secret.txt $S1/sym.txt
ln -s $OUTSIDE $S1/symdir
ln $OUTSIDE/secret.txt $S1/hard.txt || die "no hard link"
mkdir -p $S1/mnt
timeout 10 mount --bind $OUTSIDE $S1/mnt || die "bind mount of a folder"
: > $S1/bindfile.txt
timeout 10 mount --bind $OUTSIDE/secret.txt $S1/bindfile.txt || die "bind mount of a file"
timeout 10 mount --bind $OUTSIDE $S1/holder/inner || die "bind mount in holder"
echo stale > $S1/.gadgetd-mtp-99-0
echo stale > $S1/d/.gadgetd-mtp-99-1
pattern OLDDATA 1000000 $HOST/old.bin
cp $HOST/old.bin $S1/keep.bin

say "start the MTP function"
mtp_up storage0_path=$S0 storage0_description=Small storage0_reserve_mb=1 \
	storage1_path=$S1 storage1_description=Conf ||
	die "the MTP gadget did not come up"
check "temporary files a killed worker left are gone at start" \
	test "$(temps $S1)" = 0 -a "$(temps $S1/d)" = 0

say "listing hides symlinks, hard links and mount points"
timeout 60 mtp-files > $OUT/files.txt 2>&1
timeout 60 mtp-folders > $OUT/folders.txt 2>&1
for n in ok.txt swap.txt bm.txt in.txt x.txt keep.bin; do
	check "$n is listed" grep -q "Filename: $n\$" $OUT/files.txt
done
for n in sym.txt hard.txt bindfile.txt secret.txt deep.txt; do
	check "$n is not listed" sh -c "! grep -q 'Filename: $n\$' $OUT/files.txt"
done
for n in symdir mnt inner sub; do
	check "folder $n is not listed" sh -c "! grep -qw '$n' $OUT/folders.txt"
done
timeout 120 $MTP_PY $MTP_T/mtp_host.py getall $HOST/get > $OUT/getall.txt 2>&1
check "every listed file could be read" \
	sh -c "grep -q '^ok getall' $OUT/getall.txt && ! grep -q '^refused' $OUT/getall.txt"
check "no listed file holds the outside's secret" no_secret $HOST/get/*

say "plants after listing"
SWAP=$(file_id swap.txt $OUT/files.txt)
BM=$(file_id bm.txt $OUT/files.txt)
IN=$(file_id in.txt $OUT/files.txt)
ln -f $OUTSIDE/secret.txt $S1/swap.txt
timeout 10 mount --bind $OUTSIDE/secret.txt $S1/bm.txt
timeout 10 mount --bind $OUTSIDE $S1/d
mv $S1/d2 $S1/d2.away && ln -s $OUTSIDE $S1/d2
mkdir -p $HOST/late
timeout 120 $MTP_PY $MTP_T/mtp_host.py get $HOST/late $SWAP $BM $IN > $OUT/getlate.txt 2>&1
cat $OUT/getlate.txt | grep -e '^got' -e '^refused'
check "a listed file turned hard link is refused (id $SWAP)" \
	sh -c "grep -qx 'refused $SWAP' $OUT/getlate.txt && ! grep -qs TOPSECRET $HOST/late/$SWAP"
check "a listed file turned mount point is refused (id $BM)" \
	sh -c "grep -qx 'refused $BM' $OUT/getlate.txt && ! grep -qs TOPSECRET $HOST/late/$BM"
check "a file in a folder turned mount point or link is refused (id $IN)" \
	sh -c "grep -qx 'refused $IN' $OUT/getlate.txt && ! grep -qs TOPSECRET $HOST/late/$IN"
timeout 60 mtp-files > $OUT/files2.txt 2>&1
check "the outside is not listed through the new plants" \
	sh -c "! grep -q -e 'Filename: secret.txt' -e 'Filename: deep.txt' $OUT/files2.txt"
rm -f $HOST/get/*
timeout 120 $MTP_PY $MTP_T/mtp_host.py getall $HOST/get > $OUT/getall2.txt 2>&1
check "no file listed now holds the outside's secret" no_secret $HOST/get/*

say "no writes through the plants"
echo pwned > $HOST/pwn.txt
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendeach $CONF $HOST/pwn.txt \
	hard.txt sym.txt bindfile.txt > $OUT/pwn.txt 2>&1
for n in hard.txt sym.txt bindfile.txt; do
	check "sending over $n is refused" grep -qx "refused $n" $OUT/pwn.txt
done
check "the outside's secret is intact" grep -qx TOPSECRET $OUTSIDE/secret.txt
check "the symlink is still a symlink" test -L $S1/sym.txt
HOLDER=$(awk '$2 == "holder" { print $1 }' $OUT/folders.txt | head -n1)
timeout 60 mtp-delfile -n "$HOLDER" > $OUT/delholder.txt 2>&1
check "deleting a folder with a mount inside (id $HOLDER) spares the outside" \
	sh -c "grep -qx TOPSECRET $OUTSIDE/sub/deep.txt && grep -qx TOPSECRET $OUTSIDE/in.txt"
check "and removed what was the storage's" test ! -e $S1/holder/x.txt

say "an overwrite cancelled halfway keeps the old bytes"
pattern NEWDATA 1000000 $HOST/new.bin
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendcancel $CONF $HOST/new.bin keep.bin 0.5 > $OUT/cancel.txt 2>&1
cat $OUT/cancel.txt | head -n 5
check "libmtp cancelled the send at half" grep -q "^failed sendcancel" $OUT/cancel.txt
check "keep.bin still holds the old bytes" cmp $HOST/old.bin $S1/keep.bin
check "no temporary file is left" test "$(temps $S1)" = 0
timeout 120 $MTP_PY $MTP_T/mtp_host.py send $CONF $HOST/new.bin keep.bin > $OUT/over.txt 2>&1
check "the next overwrite goes through" grep -q "^ok send" $OUT/over.txt
check "keep.bin holds the new bytes" cmp $HOST/new.bin $S1/keep.bin

say "an overwrite whose host is killed halfway keeps the old bytes"
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendrun $CONF $HOST/old.bin keep.bin 0.5 'kill -9 $PPID' > $OUT/killed.txt 2>&1
check "the host died mid-transfer" sh -c "grep -q '^at ' $OUT/killed.txt && ! grep -q '^ok' $OUT/killed.txt"
check "keep.bin still holds the bytes before" cmp $HOST/new.bin $S1/keep.bin
timeout 60 mtp-files > $OUT/files3.txt 2>&1
check "the next host lists again" grep -q "Filename: keep.bin" $OUT/files3.txt
check "no temporary file is left" test "$(temps $S1)" = 0

say "space on a 4 MiB tmpfs with a 1 MiB reserve"
timeout 60 mtp-detect > $OUT/detect.txt 2>&1
FREE=$(awk '/FreeSpaceInBytes:/ { f = $2 } /StorageDescription: Small/ { print f }' $OUT/detect.txt)
AV=$(avail $S0)
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
check "the disk keeps its reserve" test "$(avail $S0)" -ge $MIB
head -c 2000000 /dev/zero > $HOST/two.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py send $SMALL $HOST/two.bin two.bin > $OUT/two.txt 2>&1
check "a 2 MB send fits" cmp $HOST/two.bin $S0/two.bin
rm -f $S0/two.bin
pattern FILL 2500000 $HOST/fill.bin
timeout 120 $MTP_PY $MTP_T/mtp_host.py sendrun $SMALL $HOST/fill.bin fill.bin 0.3 \
	"head -c 1500000 /dev/zero > $S0/filler" > $OUT/fill.txt 2>&1
cat $OUT/fill.txt | head -n 5
check "a send the board's writes leave no room for fails with Store_Full" \
	sh -c "grep -q '^failed sendrun' $OUT/fill.txt && grep -q 'Store Full' $OUT/fill.txt"
check "the board's own 1.5 MB went in whole" test "$(stat -c %s $S0/filler)" = 1500000
check "nothing of the send is left" sh -c "test ! -e $S0/fill.bin && test $(temps $S0) = 0"
check "the disk keeps its reserve" test "$(avail $S0)" -ge $MIB

say "the worker survived it all"
STATS=$(mtp_cmd stats)
echo "stats: $STATS"
check "stats command answers" test "${STATS%% *}" = 0
check "worker still running" kill -0 "$MTP_WPID"
mtp_down
finish
