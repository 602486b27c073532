#!/bin/sh
# go-mtpfs asks GetObjectInfo alone whatever the device info says, yet in
# b-mtp its walk cost the worker more CPU an object on the default
# profile than with object_prop_lists = false. This walks PROBE_FILES
# files (2000) through go-mtpfs on each profile in turn, fresh workers,
# and after other clients, printing time and worker CPU an object.
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
N=${PROBE_FILES:-2000}
S=/srv/mtpprobe
W=/tmp/pg
export LANG=C.UTF-8
now() { date +%s%N; }
ticks() { sed 's/^.*) //' /proc/$1/stat | awk '{ print $12 + $13 }'; }
hz=$(getconf CLK_TCK)
: > "$MTP_WLOG"
gd_modules
modprobe fuse
mkdir -p $S/many $W/g $W/j
(cd $S/many && i=0 && while [ $i -lt "$N" ]; do echo $i > f$i.txt; i=$((i + 1)); done)
gls() {
	timeout 900 go-mtpfs $W/g > $W/go.txt 2>&1 &
	gp=$!
	n=0
	while ! mountpoint -q $W/g && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
	c0=$(ticks $MTP_WPID)
	t0=$(now)
	ls -R $W/g > $W/ls.txt 2>&1
	t1=$(now)
	c1=$(ticks $MTP_WPID)
	echo "PROBE $1 go-mtpfs $(( (t1 - t0) / 1000000 )) ms, worker $(( (c1 - c0) * 1000000 / hz / N )) us/object, $(grep -c '^f[0-9]*\.txt$' $W/ls.txt) files"
	fusermount -u $W/g 2>/dev/null || umount $W/g
	kill $gp 2>/dev/null
	wait $gp 2>/dev/null
}
for round in 1 2; do
	mtp_up storage0_path=$S storage0_description=Probe || die "mtp up"
	gls default-$round-a
	gls default-$round-b
	mtp-folders > /dev/null 2>&1
	gls default-$round-after-folders
	mtp_down
	mtp_up storage0_path=$S storage0_description=Probe object_prop_lists=false || die "mtp up"
	gls npl-$round-a
	gls npl-$round-b
	mtp_down
done
exit 0
