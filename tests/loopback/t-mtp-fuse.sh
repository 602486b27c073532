#!/bin/sh
# The FUSE MTP clients (issue #11): Debian's jmtpfs (on libmtp) and
# go-mtpfs (its own MTP stack) mounted against gadgetd-worker + mtp.so
# (composed by hand, mtp_lib.sh). Through each mount: cp -r a tree in and
# out, ls -R, mv, rm, and edits in place (append, overwrite in the middle
# with dd conv=notrunc, truncate(1) shorter and longer). Every result is
# compared byte for byte with the storage folder on the board's side.
#
# go-mtpfs edits files in place with Android's extensions only when
# DeviceInfo says "android.com"; it runs twice: against the default
# device info (its "classic" mode: a local copy, sent whole on close) and
# with android_extension=true (BeginEditObject, SendPartialObject,
# TruncateObject, EndEditObject).
#
# The worker runs with -v: the operations each client issues for each
# action go to $OUT/ops-CLIENT.txt (the table in docs/mtp-clients.md).
#
# Then android-file-transfer's aft-mtp-cli (a third MTP stack, in batch
# mode): mkdir, put, ls, get and rm, compared byte for byte.
# Runs in the guest (see run-suite.sh); needs SRC and B.
# bed: light - the gadget composed by hand around gadgetd-worker (no gadgetd);
#   MTP under the unit: t-mtp-gadgetd
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
MTP_WFLAGS=-v
S0=/srv/fuse
HOST=/tmp/host
MNT=/tmp/mnt
OUT=/mnt/out
export LANG=C.UTF-8

: > "$MTP_WLOG"
gd_modules
timeout 30 modprobe fuse || die "modprobe fuse"
mkdir -p $S0 $HOST $MNT

# The tree: empty and odd-sized files around the packet and transfer
# sizes, a nested folder, a name with a space.
mktree() {
	rm -rf "$1"
	mkdir -p "$1/sub/deeper" "$1/empty dir"
	: > "$1/zero.bin"
	head -c 1 /dev/urandom > "$1/one.bin"
	head -c 512 /dev/urandom > "$1/sub/512.bin"
	head -c 16372 /dev/urandom > "$1/sub/16372.bin"
	head -c 300000 /dev/urandom > "$1/sub/deeper/big.bin"
	echo "some text" > "$1/a file.txt"
}

# mark CLIENT ACTION: what the worker logs next belongs to ACTION.
mark() {
	say "$1: $2"
	echo "=== $1 $2" >> "$MTP_WLOG"
}

# ops_table CLIENT: per action, the operation codes the worker saw, in order,
# repeats squeezed ("0x1008x12").
ops_table() {
	awk -v c="$1" '
	/^=== / { if (cur != "") flush(); cur = ($2 == c) ? $3 : ""; n = 0; last = ""; line = ""; next }
	cur != "" && /mtp: op 0x/ {
		for (i = 1; i <= NF; i++) if ($i == "op") op = $(i + 1)
		if (op == last) { n++; next }
		add(); last = op; n = 1
	}
	function add() { if (last != "") line = line " " last (n > 1 ? "x" n : "") }
	function flush() { add(); print cur ":" line; last = "" }
	END { if (cur != "") flush() }' "$MTP_WLOG"
}

# mount_client NAME: mount NAME at $MNT; $D is the storage inside.
mount_client() {
	case $1 in
	jmtpfs) timeout 60 jmtpfs "$MNT" > $OUT/mount-$1.txt 2>&1 ;;
	go-mtpfs*)
		go-mtpfs "$MNT" > $OUT/mount-$1.txt 2>&1 &
		GOPID=$! ;;
	esac
	local n=0
	until mountpoint -q "$MNT" && [ -d "$MNT/Internal" ]; do
		n=$((n + 1))
		[ $n -gt 300 ] && return 1
		sleep 0.1
	done
	D=$MNT/Internal
}

umount_client() {
	timeout 30 fusermount -u "$MNT" || timeout 10 umount -l "$MNT"
	[ -n "${GOPID:-}" ] && { timeout 10 sh -c "while kill -0 $GOPID 2>/dev/null; do sleep 0.1; done"; GOPID=; }
	return 0
}

# ls -R of a tree with the same relative names, here and there.
same_listing() {
	(cd "$1" && ls -R .) > $OUT/ls-a.txt && (cd "$2" && ls -R .) > $OUT/ls-b.txt &&
		cmp $OUT/ls-a.txt $OUT/ls-b.txt
}

# edit CLIENT: the in-place edits, each done on a host copy too.
edits() {
	c=$1
	head -c 100000 /dev/urandom > $HOST/e.bin
	head -c 3000 /dev/urandom > $HOST/patch
	# Made through the mount: go-mtpfs lists a folder once and assumes
	# the board never changes it (fs/fs.go), so a file the board made
	# later would be new to it and replaced.
	mark $c create
	timeout 60 cp $HOST/e.bin "$D/e.bin"
	check "$c: a new file shows on the board" cmp $HOST/e.bin $S0/e.bin

	mark $c append
	printf 'appended by %s\n' "$c" >> $HOST/e.bin
	timeout 60 sh -c "printf 'appended by %s\n' '$c' >> '$D/e.bin'"
	check "$c: append shows on the board" cmp $HOST/e.bin $S0/e.bin

	mark $c overwrite
	dd if=$HOST/patch of=$HOST/e.bin bs=1000 seek=7 conv=notrunc status=none
	timeout 60 dd if=$HOST/patch of="$D/e.bin" bs=1000 seek=7 conv=notrunc status=none
	check "$c: dd conv=notrunc in the middle shows on the board" cmp $HOST/e.bin $S0/e.bin

	mark $c truncate-shorter
	truncate -s 4321 $HOST/e.bin
	timeout 60 truncate -s 4321 "$D/e.bin"
	check "$c: truncate -s 4321 shows on the board" cmp $HOST/e.bin $S0/e.bin

	mark $c truncate-longer
	truncate -s 70000 $HOST/e.bin
	timeout 60 truncate -s 70000 "$D/e.bin"
	check "$c: truncate -s 70000 shows on the board" cmp $HOST/e.bin $S0/e.bin

	mark $c read-back
	timeout 60 cp "$D/e.bin" $HOST/e.back
	check "$c: the edited file reads back the same" cmp $HOST/e.bin $HOST/e.back
	mark $c rm-edited
	timeout 60 rm "$D/e.bin"
	check "$c: rm removes it on the board" test ! -e $S0/e.bin
	rm -f $HOST/e.back
}

# client NAME: the whole round through one client.
client() {
	c=$1
	mark $c mount
	if ! mount_client $c; then
		fail "$c did not mount"
		cat $OUT/mount-$c.txt
		return
	fi
	echo "ok: $c mounts"
	mktree $HOST/tree

	# What the board made before the mount: listed and read through it.
	mark $c ls-R
	check "$c: ls -R through the mount lists the board's tree" same_listing $S0/board "$D/board"

	mark $c cp-out
	rm -rf $HOST/back
	timeout 120 cp -r "$D/board" $HOST/back
	check "$c: cp -r out: the same bytes come back" diff -r $S0/board $HOST/back

	mark $c cp-in
	timeout 120 cp -r $HOST/tree "$D/" 2> $OUT/cp-$c.txt
	if [ $c = go-mtpfs ]; then
		# go-mtpfs sends a file whole on close, and refuses an
		# empty one itself (fs/classic.go: "cannot send 0 byte
		# file", EINVAL) without a word to the device.
		check "$c: refuses to send the empty file itself" \
			grep -q 'cannot send 0 byte file "zero.bin"' $OUT/mount-$c.txt
		diff -r $HOST/tree $S0/tree > $OUT/diff-$c.txt
		check "$c: cp -r in: the board has the same tree but zero.bin" \
			test "$(cat $OUT/diff-$c.txt)" = "Only in $HOST/tree: zero.bin"
	else
		check "$c: cp -r in: the board has the same tree" diff -r $HOST/tree $S0/tree
	fi

	check "$c: ls -R through the mount lists the tree it got" same_listing $HOST/tree "$D/tree"

	# go-mtpfs's two modes share their mv and rm (fs/fs.go): once is
	# enough.
	[ $c = go-mtpfs ] || client_mv_rm $c
	edits $c
	mark $c umount
	umount_client
	rm -rf $S0/tree
	ops_table $c > $OUT/ops-$c.txt
	echo "---- operations $c"
	cat $OUT/ops-$c.txt
}

client_mv_rm() {
	c=$1
	mark $c mv-rename
	timeout 60 mv "$D/tree/a file.txt" "$D/tree/renamed.txt"
	check "$c: mv in a folder renames on the board" \
		sh -c "cmp '$HOST/tree/a file.txt' $S0/tree/renamed.txt && ! test -e '$S0/tree/a file.txt'"

	mark $c mv-folder
	timeout 60 mv "$D/tree/one.bin" "$D/tree/sub/" 2> $OUT/mv-$c.txt
	case $c in
	go-mtpfs*)
		# go-mtpfs answers ENOSYS to a rename across folders without
		# asking the device (fs/fs.go, Rename): nothing may change.
		check "$c: mv across folders is refused by go-mtpfs itself" \
			grep -q "Function not implemented" $OUT/mv-$c.txt
		check "$c: the refused mv leaves the file in place" \
			sh -c "cmp $HOST/tree/one.bin $S0/tree/one.bin && ! test -e $S0/tree/sub/one.bin" ;;
	*)
		check "$c: mv into another folder moves on the board" \
			sh -c "cmp $HOST/tree/one.bin $S0/tree/sub/one.bin && ! test -e $S0/tree/one.bin" ;;
	esac

	mark $c rm
	timeout 60 rm "$D/tree/zero.bin"
	timeout 60 rm -r "$D/tree/sub/deeper"
	check "$c: rm and rm -r remove on the board" \
		sh -c "! test -e $S0/tree/zero.bin && ! test -e $S0/tree/sub/deeper && test -e $S0/tree/sub/512.bin"
}

# aft CMD...: one aft-mtp-cli session (android-file-transfer's own MTP
# stack) running CMDs in batch mode; its output goes to $OUT/aft-N.txt.
# It goes on after a failed command and exits 0 whatever happened, so
# every step is checked on the board's side and in its output.
AFT_N=0
aft() {
	AFT_N=$((AFT_N + 1))
	AFT_OUT=$OUT/aft-$AFT_N.txt
	printf '%s\n' "$@" | timeout 60 aft-mtp-cli -b > $AFT_OUT 2>&1
}

# aft_and CMD...: the last session printed no error (a failed command
# prints "error: ...", as the answer that broke put did:
# "vector::_M_range_check"), and CMD succeeds.
aft_and() {
	! grep -qi 'error\|exception\|terminate' $AFT_OUT && "$@"
}

# aft_client: mkdir, put, ls, get and rm through aft-mtp-cli,
# byte-compared with the board's side.
aft_client() {
	head -c 300000 /dev/urandom > $HOST/aft.bin
	head -c 16372 /dev/urandom > $HOST/aft-small.bin
	mark aft mkdir
	aft "mkdir aftdir"
	check "aft: mkdir makes the folder on the board" aft_and test -d $S0/aftdir
	mark aft put
	aft "put $HOST/aft.bin aftdir" "put $HOST/aft-small.bin aftdir"
	check "aft: put sends the bytes (SendObjectPropList + SendObject)" \
		aft_and sh -c "cmp $HOST/aft.bin $S0/aftdir/aft.bin && cmp $HOST/aft-small.bin $S0/aftdir/aft-small.bin"
	mark aft ls
	aft "ls aftdir"
	check "aft: ls lists what put sent" \
		aft_and sh -c "grep -q ' aft.bin\$' $AFT_OUT && grep -q ' aft-small.bin\$' $AFT_OUT"
	mark aft get
	rm -f $HOST/aft.back
	aft "get aftdir/aft.bin $HOST/aft.back"
	check "aft: get brings back the same bytes" aft_and cmp $HOST/aft.bin $HOST/aft.back
	mark aft rm
	aft "rm aftdir/aft-small.bin"
	check "aft: rm removes a file on the board" \
		aft_and sh -c "! test -e $S0/aftdir/aft-small.bin && test -e $S0/aftdir/aft.bin"
	aft "rm aftdir"
	check "aft: rm removes a folder and what it holds" aft_and test ! -e $S0/aftdir
	ops_table aft > $OUT/ops-aft.txt
	echo "---- operations aft"
	cat $OUT/ops-aft.txt
}

mktree $S0/board
say "start the MTP function"
mtp_up storage0_path=$S0 storage0_description=Internal ||
	die "the MTP gadget did not come up"
client jmtpfs
client go-mtpfs
aft_client
mtp_down

say "again with android.com in DeviceInfo"
mtp_up storage0_path=$S0 storage0_description=Internal android_extension=true ||
	die "the MTP gadget did not come up"
client go-mtpfs-android
check "go-mtpfs edited in place (BeginEditObject, SendPartialObject, TruncateObject)" \
	sh -c "grep -q 0x95c4 $OUT/ops-go-mtpfs-android.txt && grep -q 0x95c2 $OUT/ops-go-mtpfs-android.txt && grep -q 0x95c3 $OUT/ops-go-mtpfs-android.txt"
check "no upload temporary file is left" test "$(mtp_temps $S0)" = 0
mtp_finish
