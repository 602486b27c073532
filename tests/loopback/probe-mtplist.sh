#!/bin/sh
# Which MTP operations each listing client issues, and how long it takes:
# mtp-files, `ls -lR` through jmtpfs and through go-mtpfs, over a tree of
# PROBE_FILES files (1000 by default) with usbmon recording the bus.
# Outside make check (like repro-adb-kill.sh); run it with
#   tests/loopback/run-suite.sh /work/main/build/vm build/loopback probe-mtplist.sh
# Writes /mnt/out/ops-CLIENT.txt: "count opcode" per client.
# PROBE_BUILDS="DIR:DIR..." runs the same clients against the mtp.so of each
# build directory in turn (variants of the device info, say), one boot.
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
GD_LOG=$MTP_WLOG
N=${PROBE_FILES:-1000}
S=/srv/mtpprobe
OUT=/mnt/out
export LANG=C.UTF-8
now() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }

: > "$MTP_WLOG"
gd_modules
modprobe usbmon
modprobe fuse
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p $S/many/sub
(cd $S/many && i=0 && while [ $i -lt "$N" ]; do echo $i > f$i.txt; i=$((i + 1)); done)
echo deep > $S/many/sub/deep.txt
# mon CLIENT CMD...: run CMD with usbmon on, count the command containers.
mon() {
	name=$1
	shift
	cat /sys/kernel/debug/usb/usbmon/0u > $OUT/mon-$name.txt &
	mp=$!
	sleep 0.5
	t0=$(now)
	"$@" > $OUT/out-$name.txt 2>&1
	rc=$?
	t1=$(now)
	sleep 0.5
	kill $mp
	wait $mp 2>/dev/null
	echo "PROBE $name rc=$rc $(secs $((t1 - t0))) s lines=$(wc -l < $OUT/out-$name.txt)"
	# A command container: a bulk OUT submission of 12..32 bytes whose
	# type (bytes 4-5) is 1; words in usbmon's text are 4 bytes, little
	# endian as sent: word 2 holds type then code.
	awk '$3 == "S" && $4 ~ /^Bo:/ && $6 >= 12 && $6 <= 32 && $7 == "=" {
		w = $9; if (substr(w, 1, 4) == "0100") print "0x" substr(w, 7, 2) substr(w, 5, 2)
	}' $OUT/mon-$name.txt | sort | uniq -c | sort -rn > $OUT/ops-$name.txt
	sed "s/^/PROBE $name op /" $OUT/ops-$name.txt
}

# clients TAG: every client against the worker now up.
clients() {
	tag=$1
	mon $tag-mtpfiles timeout 600 mtp-files
	mkdir -p /tmp/j /tmp/g
	mon $tag-jmtpfs-mount timeout 60 jmtpfs /tmp/j
	mon $tag-jmtpfs-ls timeout 600 ls -lR /tmp/j
	fusermount -u /tmp/j 2>/dev/null || umount /tmp/j
	sleep 1
	timeout 600 go-mtpfs /tmp/g > $OUT/go-mtpfs.log 2>&1 &
	gp=$!
	n=0
	while ! mountpoint -q /tmp/g && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
	mon $tag-gomtpfs-ls timeout 600 ls -lR /tmp/g
	fusermount -u /tmp/g 2>/dev/null || umount /tmp/g
	kill $gp 2>/dev/null
	tail -n 5 $OUT/go-mtpfs.log
	mon $tag-mtpfolders timeout 600 mtp-folders
}

i=0
for b in $(echo "${PROBE_BUILDS:-$B}" | tr : " "); do
	i=$((i + 1))
	tag=b$i-$(basename "$(dirname "$b")")
	B=$b
	mtp_up storage0_path=$S storage0_description=Probe || die "mtp gadget ($b) did not come up"
	clients "$tag"
	mtp_down
	sleep 1
done
exit 0
