#!/bin/sh
# MTP against a hostile board (issue #9, part 3 on the MTP side):
# gadgetd-worker + mtp.so composed by hand (mtp_lib.sh), its storage a
# folder where the board plants symlinks, hard links and bind mounts (of a
# folder and of a file) leading to /srv/outside, before the host lists it
# and after. Driven by mtp-tools and libmtp (mtp_host.py): nothing of
# /srv/outside can be listed, read, overwritten or deleted through the
# plants. Space and overwrites: t-mtp-space.sh.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: light - the gadget composed by hand around gadgetd-worker (no gadgetd),
#   planted links (fault injection)
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
S1=/srv/conf
OUTSIDE=/srv/outside
CONF=65537 # 0x00010001
HOST=/tmp/host
OUT=/mnt/out
export LANG=C.UTF-8

# no_secret FILE...: none holds the outside's secret.
no_secret() {
	! grep -l TOPSECRET "$@" 2>/dev/null
}

: > "$MTP_WLOG"
gd_modules
mkdir -p $S1 $OUTSIDE/sub $HOST/get
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
echo keep > $S1/keep.bin

say "start the MTP function"
mtp_up storage0_path=$S1 storage0_description=Conf ||
	die "the MTP gadget did not come up"
check "temporary files a killed worker left are gone at start" \
	test "$(mtp_temps $S1)" = 0 -a "$(mtp_temps $S1/d)" = 0

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
SWAP=$(mtp_file_id swap.txt $OUT/files.txt)
BM=$(mtp_file_id bm.txt $OUT/files.txt)
IN=$(mtp_file_id in.txt $OUT/files.txt)
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

mtp_finish
