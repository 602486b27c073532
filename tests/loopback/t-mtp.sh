#!/bin/sh
# The MTP plugin driven by libmtp's mtp-tools: a gadget composed by hand
# (mtp_lib.sh) with gadgetd-worker + mtp.so, two storages (one read-only).
# Checks detection, listing, a 50 MB round trip, folders, delete, rename,
# board-side changes, read-only refusals and names escaping the storage.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: light - the gadget composed by hand around gadgetd-worker (no gadgetd);
#   MTP under the unit: t-mtp-gadgetd
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
S0=/srv/mtp0
S1=/srv/mtp1
RO_ID=131073   # 0x00020001: the second storage
HOST=/tmp/host
OUT=/mnt/out
export LANG=C.UTF-8

: > "$MTP_WLOG"
mkdir -p $S0/dir1 $S1 $HOST
echo hello > $S0/hello.txt
echo inner > $S0/dir1/inner.bin
echo readonly > $S1/ro.txt
ln -s /etc $S0/etclink
ln -s /etc/passwd $S0/pwlink
gd_modules

say "a missing storage folder is a clear init error"
check_exit 1 "worker with storage0_path=/nonexistent does not get READY" \
	sh -c ". $SRC/tests/loopback/lib.sh; . $SRC/tests/loopback/mtp_lib.sh; mtp_up storage0_path=/nonexistent >/dev/null 2>&1"
check "the error names the option and the path" \
	grep -q "storage0_path: /nonexistent: No such file" "$MTP_WLOG"
mtp_down

say "start the MTP function"
mtp_up storage0_path=$S0 storage0_description=Main \
	storage1_path=$S1 storage1_description=ReadOnly storage1_readonly=true \
	friendly_name=Board || die "the MTP gadget did not come up"
lsusb -v -d $MTP_ID > $OUT/lsusb.txt 2>/dev/null
check "interface 6/1/1 named MTP" grep -q "iInterface.*MTP" $OUT/lsusb.txt
check "three endpoints" test "$(grep -c bEndpointAddress $OUT/lsusb.txt)" = 3

say "mtp-detect"
timeout 60 mtp-detect > $OUT/detect.txt 2>&1
check "Model string" grep -q "Model: gadgetd MTP" $OUT/detect.txt
check "Manufacturer string" grep -q "Manufacturer: gadgetd" $OUT/detect.txt
check "MTP vendor extension 6" grep -q "Vendor extension ID: 0x00000006" $OUT/detect.txt
check "friendly name" grep -q "Friendly name: Board" $OUT/detect.txt
check "storage Main" grep -q "StorageDescription: Main" $OUT/detect.txt
check "storage ReadOnly, read-only" grep -q "StorageDescription: ReadOnly" $OUT/detect.txt
check "64-bit ObjectSize" grep -q "Object Size UINT64" $OUT/detect.txt
check "GetObjectPropList and GetObjectPropsSupported listed (object_prop_lists)" \
	sh -c "grep -q '^   9805: ' $OUT/detect.txt && grep -q '^   9801: ' $OUT/detect.txt"

say "listing"
timeout 60 mtp-files > $OUT/files.txt 2>&1
timeout 60 mtp-folders > $OUT/folders.txt 2>&1
check "mtp-files shows hello.txt" grep -q "Filename: hello.txt" $OUT/files.txt
check "mtp-files shows dir1/inner.bin" grep -q "Filename: inner.bin" $OUT/files.txt
check "mtp-files shows the read-only storage's file" grep -q "Filename: ro.txt" $OUT/files.txt
check "mtp-folders shows dir1" grep -q "dir1" $OUT/folders.txt
check "symlinks are not listed" sh -c "! grep -q -e etclink -e pwlink -e passwd $OUT/files.txt $OUT/folders.txt"

say "50 MB round trip"
timeout 30 head -c 52428800 /dev/urandom > $HOST/big.bin
timeout 300 mtp-sendfile $HOST/big.bin / > $OUT/send.txt 2>&1
tail -c 100 $OUT/send.txt; echo
check "mtp-sendfile prints no error" sh -c "! grep -qi error $OUT/send.txt"
check "the board has the same bytes" cmp $HOST/big.bin $S0/big.bin
BIG=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $OUT/send.txt)
check "mtp-sendfile gave a file ID ($BIG)" test -n "$BIG"
timeout 300 mtp-getfile "$BIG" $HOST/back.bin > $OUT/get.txt 2>&1
check "mtp-getfile prints no error" sh -c "! grep -qi error $OUT/get.txt"
check "the host got the same bytes back" cmp $HOST/big.bin $HOST/back.bin
rm -f $HOST/back.bin

say "small and empty files (ZLP framing)"
for n in 0 1 500 512 1012 1024 16372 65536; do
	head -c $n /dev/urandom > $HOST/f$n.bin
	timeout 60 mtp-sendfile $HOST/f$n.bin / > $OUT/send$n.txt 2>&1
	id=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $OUT/send$n.txt)
	timeout 60 mtp-getfile "$id" $HOST/g$n.bin > /dev/null 2>&1
	check "$n bytes round trip" sh -c "cmp $HOST/f$n.bin $S0/f$n.bin && cmp $HOST/f$n.bin $HOST/g$n.bin"
done

say "folders, delete, rename"
timeout 60 mtp-newfolder newdir 0 0 > $OUT/newfolder.txt 2>&1
check "mtp-newfolder creates a folder" test -d $S0/newdir
ID=$(sed -n 's/^New folder created with ID: \([0-9]*\).*/\1/p' $OUT/newfolder.txt)
check "and reports its ID ($ID)" test -n "$ID"
echo deleteme > $HOST/del.txt
timeout 60 mtp-sendfile $HOST/del.txt / > $OUT/senddel.txt 2>&1
DID=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $OUT/senddel.txt)
check "file to delete arrived" test -f $S0/del.txt
timeout 60 mtp-delfile -n "$DID" > $OUT/delfile.txt 2>&1
check "mtp-delfile removes it" test ! -e $S0/del.txt
mkdir -p $S0/tree/a/b && echo 1 > $S0/tree/a/b/f && echo 2 > $S0/tree/g
timeout 60 mtp-folders > $OUT/folders2.txt 2>&1
TID=$(awk '$2 == "tree" { print $1 }' $OUT/folders2.txt | head -n1)
timeout 60 mtp-delfile -n "$TID" > $OUT/deltree.txt 2>&1
check "deleting a folder removes its tree (id $TID)" test ! -e $S0/tree
timeout 60 $MTP_PY $MTP_T/mtp_host.py rename "$BIG" renamed.bin > $OUT/rename.txt 2>&1
check "rename through SetObjectPropValue(ObjectFileName)" \
	sh -c "test -f $S0/renamed.bin && test ! -e $S0/big.bin"
timeout 60 mtp-files > $OUT/files2.txt 2>&1
check "the renamed file keeps its handle" \
	sh -c "grep -A1 'File ID: $BIG\$' $OUT/files2.txt | grep -q renamed.bin"

say "changes on the board reach the host"
echo fromboard > $S0/board.txt
timeout 60 mtp-files > $OUT/files3.txt 2>&1
check "a file created on the board is listed" grep -q "Filename: board.txt" $OUT/files3.txt
(timeout 30 $MTP_PY $MTP_T/mtp_host.py events 20 > $OUT/events.txt 2>&1) &
EVP=$!
n=0; until grep -q '^listening$' $OUT/events.txt 2>/dev/null || [ $n -gt 300 ]; do sleep 0.1; n=$((n+1)); done
echo event > $S0/event.txt
wait $EVP
cat $OUT/events.txt
check "ObjectAdded arrives on the interrupt endpoint" grep -q "^ok events" $OUT/events.txt

say "read-only storage"
timeout 60 mtp-newfolder rodir 0 $RO_ID > $OUT/rofolder.txt 2>&1
check "folder creation on the read-only storage fails" grep -q "Folder creation failed" $OUT/rofolder.txt
check "and nothing was created" test ! -e $S1/rodir
timeout 60 $MTP_PY $MTP_T/mtp_host.py send $RO_ID $HOST/f500.bin ro-new.bin > $OUT/rosend.txt 2>&1
check "sending to the read-only storage fails" grep -q "^failed send" $OUT/rosend.txt
check "with Store_Read_Only" grep -qi "read only" $OUT/rosend.txt
ROID=$(grep -B1 "Filename: ro.txt" $OUT/files.txt | sed -n 's/^File ID: \([0-9]*\).*/\1/p')
timeout 60 mtp-delfile -n "$ROID" > $OUT/rodel.txt 2>&1
check "deleting on the read-only storage fails (id $ROID)" test -f $S1/ro.txt

say "names escaping the storage"
timeout 60 mtp-newfolder .. 0 0 > $OUT/dotdot.txt 2>&1
check "a folder named .. is refused" grep -q "Folder creation failed" $OUT/dotdot.txt
timeout 60 $MTP_PY $MTP_T/mtp_host.py send 0 $HOST/f500.bin ../escape.bin > $OUT/escape.txt 2>&1
check "a file named ../escape.bin is refused" grep -q "^failed send" $OUT/escape.txt
check "nothing appeared outside the storage" test ! -e /srv/escape.bin
timeout 60 $MTP_PY $MTP_T/mtp_host.py send 0 $HOST/f500.bin etclink > $OUT/overlink.txt 2>&1
check "writing over a symlink is refused" test -L $S0/etclink

say "object_prop_lists=false: the list operations unlisted (test_mtp_plugin: still answered)"
mtp_down
mtp_up storage0_path=$S0 storage0_description=Main object_prop_lists=false ||
	die "the MTP gadget did not come up with object_prop_lists=false"
timeout 60 mtp-detect > $OUT/detect-npl.txt 2>&1
check "mtp-detect: neither GetObjectPropList nor GetObjectPropsSupported" \
	sh -c "grep -q '^   1008: ' $OUT/detect-npl.txt && ! grep -q -e '^   9805: ' -e '^   9801: ' $OUT/detect-npl.txt"
timeout 60 mtp-files > $OUT/files-npl.txt 2>&1
check "mtp-files walks the tree (hello.txt, dir1/inner.bin)" \
	sh -c "grep -q 'Filename: hello.txt' $OUT/files-npl.txt && grep -q 'Filename: inner.bin' $OUT/files-npl.txt"
timeout 60 mtp-folders > $OUT/folders-npl.txt 2>&1
check "mtp-folders (libmtp walks instead of one list) shows dir1" grep -q "dir1" $OUT/folders-npl.txt

mtp_finish
