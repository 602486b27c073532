#!/bin/sh
# MTP throughput and listing time: gadgetd's mtp plugin (hand-composed
# gadget, gadgetd-worker + mtp.so) against Debian's umtp-responder
# (umtprd) on the same bed, both driven by mtp-tools. Prints
#   BENCH mtp_send_mbps / mtp_get_mbps / mtp_files_s / mtp_folders_s
#   BENCH umtprd_send_mbps / umtprd_get_mbps / umtprd_files_s / umtprd_folders_s
#   BENCH mtp_tiny_send_ms / mtp_tiny_get_ms: the tools' fixed cost
#   BENCH mtp_send_net_mbps / mtp_get_net_mbps: the rates less that cost
#   BENCH near_sync16k_{in,out}_mbps: the libmtp-pattern bound
#         (b-sourcesink.sh) measured right before and right after
#         gadgetd's transfers, which ratios.py compares them with
#   BENCH near_ffsfile_{in,out}_mbps: the ffs-file bound, also right
#         before and after them: the same host pattern (usbsync) against
#         tests/bench/ffsfile.c, a FunctionFS function that only moves the
#         bytes between f_fs and a file in the MTP storage's file system,
#         with the mtp plugin's request sizes (8 reads of 128 KiB queued,
#         256 KiB writes, 1 MiB queued): what the bytes cost any responder
#         in user space on this bed
#   BENCH near_ffslibmtp_{in,out}_mbps: the same with usbsync following
#         libmtp's and mtp-tools' pattern exactly (a first transfer of one
#         packet, then 16 KiB ones, and a progress line after each: the
#         stream cut where a responder's 12-byte header puts it)
#   BENCH mtp_jmtpfs_ls_s / mtp_gomtpfs_ls_s and umtprd_*: `ls -R` of the
#         same tree through a jmtpfs and a go-mtpfs mount
#   BENCH mtp_files_obj_ms / *_cpu_us: wall ms per object of mtp-files, and
#         the responder's CPU time per object (utime + stime) in each walk
#   BENCH mtp_bench_files: the tree's size
# Runs in the guest (see run-bench.sh); needs SRC and B. MTP_BENCH_FILES
# sets the tree's size; MTP_BENCH_LIST_ONLY=1 skips the 50 MB transfers.
# MTP_BENCH_USBMON=1 runs mtp-files and go-mtpfs' `ls -R` once more with
# usbmon on and prints the median spans of a transaction (usbmon-txn.awk)
# as BENCH NAME_*_us and NAME_gomtpfs_*_us.
# MTP_BENCH_BASE=DIR also walks the tree with DIR/gadgetd-worker and
# DIR/plugins/mtp.so (a build of another commit), as mtpbase_*.
# MTP_BENCH_XFER_BASES="NAME=DIR ..." also sends and gets the 50 MB file
# with each DIR's worker and mtp.so, right after gadgetd's own transfers
# and between the same bounds (BENCH mtpNAME_*): builds compared side by
# side in one boot. MTP_BENCH_ROUNDS=N repeats the ffs-file bound and
# those transfers N times, interleaved (ratios.py takes the means).
# MTP_BENCH_FFS_SHAPES="OUT_KIB:IN_KIB ..." adds ffs-file bounds with other
# request sizes. MTP_BENCH_STRACE=1 sends and gets once more with
# `strace -c -f` on the worker (b-mtp/mtp-strace-{send,get}.txt).
# MTP_BENCH_XFER_USBMON=1 records the bus under usbmon during every timed
# 50 MB transfer (gadgetd's and the ffs-file bounds') and splits each
# one's 16 KiB URBs between device and host (usbmon-bulk.awk): BENCH
# NAME_{send,get}_{dev,host}_{p50,p90}_us (submit to completion; the
# completion to the next submit) and their sums NAME_*_{dev,host}_ms, the
# first submit to the last completion NAME_*_span_ms, with NAME mtp,
# mtpNAME, near_ffsfile or near_ffslibmtp. usbmon costs every side
# alike; compare the rates of such a run only with each other. Every
# transfer also gives the CPU time it took the responder and the host
# tool: NAME_{send,get}_{dev,host}_cpu_ms.
# MTP_BENCH_PIN=1 runs the host tools on CPU 0 and the responders on CPU 1
# in the timed transfers. MTP_BENCH_XFER_ONLY=1 skips umtprd and the
# listings. MTP_BENCH_PERF=1
# ends the rounds with one more ffs-file bound in libmtp's pattern and one
# more gadgetd send and get, each under `perf record -a` (reports in
# b-mtp.log; their rates are BENCH perf_*, left out of the ratios).
. "$SRC/tests/loopback/lib.sh"
. "$SRC/tests/loopback/mtp_lib.sh"
export LANG=C.UTF-8
SIZE=52428800
NFILES=${MTP_BENCH_FILES:-10000}
W=/tmp/mtpbench
UFFS=/dev/ffs-mtp
UPID=

now() { date +%s%N; }
# cpu_ticks PID: the process's utime + stime in clock ticks (0 if gone).
cpu_ticks() {
	sed 's/^.*) //' /proc/$1/stat 2>/dev/null | awk '{ print $12 + $13 }' | grep . || echo 0
}
# cpu_us TICKS0 TICKS1: CPU microseconds per object of the tree.
cpu_us() {
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" -v n="$NFILES" \
		'BEGIN { printf "%.0f", (b - a) * 1e6 / hz / n }'
}
# kids_ticks: the CPU time of this shell's waited-for children (the
# host tools), in clock ticks.
kids_ticks() { sed 's/^.*) //' /proc/$$/stat | awk '{ print $14 + $15 }'; }
# cpu_ms NAME T0 T1: BENCH NAME_cpu_ms from two tick counts.
cpu_ms() {
	awk -v n=$1 -v a=$2 -v b=$3 -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "BENCH %s_cpu_ms %.0f ms\n", n, (b - a) * 1000 / hz }'
}
mbps() { awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.1f", b / 1e6 / (ns / 1e9) }'; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }

# mon_start: usbmon on, if MTP_BENCH_XFER_USBMON asks.
mon_start() {
	[ -n "${MTP_BENCH_XFER_USBMON:-}" ] || return 0
	usbmon_on
	usbmon_start $W/mon.txt
	sleep 0.3
}

# mon_stop NAME DIR: usbmon off; the spans of the DIR (i, o) 16 KiB URBs.
mon_stop() {
	[ -n "$USBMON_PID" ] || return 0
	sleep 0.3
	usbmon_stop
	awk -v dir=$2 -v size=16384 -f "$SRC/tests/bench/usbmon-bulk.awk" $W/mon.txt > $W/$1-bulk.txt
	rm -f $W/mon.txt
	for k in dev host; do
		awk -v k=$k '$1 == k { print $2 }' $W/$1-bulk.txt | sort -n | awk -v name=${1}_$k '
			{ v[NR] = $1; s += $1 }
			END {
				if (!NR) exit
				printf "BENCH %s_p50_us %d us\n", name, v[int((NR + 1) / 2)]
				printf "BENCH %s_p90_us %d us\n", name, v[int((NR * 9 + 9) / 10)]
				printf "BENCH %s_ms %.1f ms\n", name, s / 1000
			}'
	done
	awk -v name=$1 '$1 == "span" { printf "BENCH %s_span_ms %.1f ms\n", name, $2 / 1000 }
		$1 == "n" { printf "BENCH %s_urbs %d URBs\n", name, $2 }' $W/$1-bulk.txt
	cp $W/$1-bulk.txt /mnt/out/b-mtp/ 2>/dev/null
}

# MTP_BENCH_PIN=1: the host tools on CPU 0 (HOSTPIN), the responders
# (every thread) on CPU 1 (dev_pin PID), so that neither side's CPU time
# shows in the other's spans; the kernel's workers and interrupts stay
# where they run.
HOSTPIN=
[ -z "${MTP_BENCH_PIN:-}" ] || HOSTPIN="taskset -c 0"
dev_pin() {
	[ -z "${MTP_BENCH_PIN:-}" ] || [ -z "$1" ] || taskset -a -p -c 1 "$1" > /dev/null
}

# profiled NAME CMD...: CMD, under `perf record -a` when PROFILE is set
# (the report goes to b-mtp/perf-NAME.txt).
PROFILE=
profiled() {
	local name=$1

	shift
	[ -n "$PROFILE" ] || { "$@"; return; }
	perf record -q -e cpu-clock -a -o $W/perf.data -- "$@"
	set -- $?
	{
		echo "perf $name: perf record -a, the busiest process, object and symbol triples:"
		perf report -i $W/perf.data --sort comm,dso,sym --stdio 2>/dev/null |
			grep -v '^#' | grep . | head -n 40
	} > /mnt/out/b-mtp/perf-$name.txt
	rm -f $W/perf.data
	return $1
}

# xfer NAME STORAGE_DIR PID: time mtp-sendfile and mtp-getfile of
# big.bin; the CPU time they took the responder (PID) and the host tool
# (BENCH NAME_{send,get}_{dev,host}_cpu_ms).
xfer() {
	rm -f "$2/big.bin" $W/back.bin
	mon_start
	c0=$(cpu_ticks $3) k0=$(kids_ticks)
	t0=$(now)
	profiled $1-send $HOSTPIN timeout 300 mtp-sendfile $W/big.bin / > $W/$1-send.txt 2>&1
	t1=$(now)
	c1=$(cpu_ticks $3) k1=$(kids_ticks)
	mon_stop ${1}_send o
	id=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $W/$1-send.txt)
	# No ID: libmtp's re-read of the new object failed (umtprd did so
	# with inotify on, see umtprd_up), and the time measured that.
	[ -n "$id" ] || { echo "FAIL: $1: mtp-sendfile printed no file ID"; tail -n 5 $W/$1-send.txt; return 1; }
	# libmtp's progress output has no newlines: drop it before grepping.
	sed 's/Progress: [0-9]* of [0-9]* ([0-9]*%)//g' $W/$1-send.txt | grep -i error | head -n 3 |
		sed "s/^/$1: mtp-sendfile said: /"
	cmp -s $W/big.bin "$2/big.bin" || { echo "FAIL: $1: sent file differs"; tail -n 5 $W/$1-send.txt; return 1; }
	sync
	mon_start
	c2=$(cpu_ticks $3) k2=$(kids_ticks)
	t2=$(now)
	profiled $1-get $HOSTPIN timeout 300 mtp-getfile "$id" $W/back.bin > $W/$1-get.txt 2>&1
	t3=$(now)
	c3=$(cpu_ticks $3) k3=$(kids_ticks)
	mon_stop ${1}_get i
	cmp -s $W/big.bin $W/back.bin || { echo "FAIL: $1: received file differs"; tail -n 5 $W/$1-get.txt; return 1; }
	echo "BENCH ${1}_send_mbps $(mbps $SIZE $((t1 - t0))) MB/s"
	echo "BENCH ${1}_get_mbps $(mbps $SIZE $((t3 - t2))) MB/s"
	cpu_ms ${1}_send_dev $c0 $c1
	cpu_ms ${1}_send_host $k0 $k1
	cpu_ms ${1}_get_dev $c2 $c3
	cpu_ms ${1}_get_host $k2 $k3
	if [ -n "${TINY_SEND_NS:-}" ]; then
		echo "BENCH ${1}_send_net_mbps $(mbps $SIZE $((t1 - t0 - TINY_SEND_NS))) MB/s"
		echo "BENCH ${1}_get_net_mbps $(mbps $SIZE $((t3 - t2 - TINY_GET_NS))) MB/s"
	fi
	rm -f $W/back.bin "$2/big.bin"
}

# tiny NAME: a one-byte mtp-sendfile and mtp-getfile, best of 3: what
# the tools cost whatever the size (connecting, the session, the storage
# list). usbsync's libmtp-pattern bound has no such cost, so the rates
# less it are what compare with that bound. Sets TINY_SEND_NS, TINY_GET_NS.
tiny() {
	echo x > $W/tiny.bin
	TINY_SEND_NS= TINY_GET_NS=
	for r in 1 2 3; do
		t0=$(now)
		timeout 60 mtp-sendfile $W/tiny.bin / > $W/$1-tiny.txt 2>&1
		t1=$(now)
		id=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $W/$1-tiny.txt)
		[ -n "$id" ] || { echo "FAIL: $1: no object ID for tiny.bin"; return 1; }
		t2=$(now)
		timeout 60 mtp-getfile "$id" $W/tiny.back > /dev/null 2>&1
		t3=$(now)
		cmp -s $W/tiny.bin $W/tiny.back || { echo "FAIL: $1: tiny.bin differs"; return 1; }
		timeout 60 mtp-delfile -n "$id" > /dev/null 2>&1 ||
			{ echo "FAIL: $1: mtp-delfile tiny.bin"; return 1; }
		[ -z "$TINY_SEND_NS" ] || [ $((t1 - t0)) -lt "$TINY_SEND_NS" ] && TINY_SEND_NS=$((t1 - t0))
		[ -z "$TINY_GET_NS" ] || [ $((t3 - t2)) -lt "$TINY_GET_NS" ] && TINY_GET_NS=$((t3 - t2))
	done
	rm -f $W/tiny.back
	echo "BENCH ${1}_tiny_send_ms $((TINY_SEND_NS / 1000000)) ms"
	echo "BENCH ${1}_tiny_get_ms $((TINY_GET_NS / 1000000)) ms"
}

# list NAME PID: time mtp-files over the whole device (PID: the responder).
list() {
	c0=$(cpu_ticks $2)
	t0=$(now)
	timeout 600 mtp-files > $W/$1-files.txt 2>&1
	t1=$(now)
	c1=$(cpu_ticks $2)
	n=$(grep -c '^File ID:' $W/$1-files.txt)
	echo "$1: mtp-files listed $n objects"
	[ "$n" -ge "$NFILES" ] || { echo "FAIL: $1: mtp-files listed only $n objects"; return 1; }
	echo "BENCH ${1}_files_s $(secs $((t1 - t0))) s"
	echo "BENCH ${1}_files_obj_ms $(awk -v ns=$((t1 - t0)) -v n=$NFILES 'BEGIN { printf "%.3f", ns / 1e6 / n }') ms"
	echo "BENCH ${1}_files_cpu_us $(cpu_us $c0 $c1) us"
	# mtp-folders opens the device cached: libmtp then asks for every
	# object at once (GetObjectPropList) when the responder offers it.
	t0=$(now)
	timeout 600 mtp-folders > $W/$1-folders.txt 2>&1
	t1=$(now)
	grep -q many $W/$1-folders.txt || echo "FAIL: $1: mtp-folders did not list 'many'"
	echo "BENCH ${1}_folders_s $(secs $((t1 - t0))) s"
}

# gomtpfs_up LOG: go-mtpfs mounted on $W/g (its output in LOG, its pid
# in GP); 1 when it did not mount within 30 s. gomtpfs_down: unmounted
# (if ls_time has not) and stopped.
gomtpfs_up() {
	local n=0
	modprobe fuse 2>/dev/null
	mkdir -p $W/g
	timeout 900 go-mtpfs $W/g > "$1" 2>&1 &
	GP=$!
	while ! mountpoint -q $W/g && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
	mountpoint -q $W/g
}
gomtpfs_down() {
	! mountpoint -q $W/g || timeout 30 fusermount -u $W/g 2>/dev/null || timeout 30 umount $W/g
	kill $GP 2>/dev/null
	wait $GP 2>/dev/null
}

# trace NAME [gomtpfs]: mtp-files again (or `ls -R` through go-mtpfs,
# mounted before the trace starts: BENCH NAME_gomtpfs_*), under usbmon;
# the medians of each span.
trace() {
	[ -n "${MTP_BENCH_USBMON:-}" ] || return 0
	local tag=$1
	usbmon_on
	if [ "${2:-}" = gomtpfs ]; then
		tag=${1}_gomtpfs
		gomtpfs_up $W/$tag.txt ||
			{ echo "FAIL: $1: go-mtpfs did not mount for the trace"; gomtpfs_down; return 0; }
	fi
	usbmon_start $W/$tag-mon.txt
	sleep 0.5
	if [ "${2:-}" = gomtpfs ]; then
		timeout 600 ls -R $W/g > /dev/null 2>&1
	else
		timeout 600 mtp-files > /dev/null 2>&1
	fi
	sleep 0.5
	usbmon_stop
	[ "${2:-}" != gomtpfs ] || gomtpfs_down
	awk -f "$SRC/tests/bench/usbmon-txn.awk" $W/$tag-mon.txt > $W/$tag-spans.txt
	for k in txn dev_data dev_resp host_data host_resp host_next; do
		m=$(awk -v k=$k '$1 == k { print $2 }' $W/$tag-spans.txt | sort -n |
			awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
		echo "BENCH ${tag}_${k}_us ${m:-0} us"
	done
	rm -f $W/$tag-mon.txt
}

# ls_time NAME CLIENT LABEL DIR PID: time `ls -R DIR` (CLIENT's mount;
# PID: the responder); a listing that failed or timed out gives no figure.
ls_time() {
	c0=$(cpu_ticks $5)
	t0=$(now)
	timeout 600 ls -R "$4" > $W/$1-$2-ls.txt 2>&1
	t1=$(now)
	c1=$(cpu_ticks $5)
	n=$(grep -c '^f[0-9]*\.txt$' $W/$1-$2-ls.txt)
	if [ "$n" -ge "$NFILES" ]; then
		echo "BENCH ${1}_${2}_ls_s $(secs $((t1 - t0))) s"
		echo "BENCH ${1}_${2}_cpu_us $(cpu_us $c0 $c1) us"
	else
		echo "FAIL: $1: ls -R through $3 listed $n files in $(secs $((t1 - t0))) s"
	fi
	timeout 30 fusermount -u "$4" 2>/dev/null || timeout 30 umount "$4"
}

# fuse_ls NAME PID: time `ls -R` of the whole device through jmtpfs (libmtp,
# uncached: GetObjectInfo and a one-object GetObjectPropList per object)
# and through go-mtpfs (its own stack: GetObjectInfo per object).
fuse_ls() {
	modprobe fuse 2>/dev/null
	mkdir -p $W/j
	if timeout 60 jmtpfs $W/j > $W/$1-jmtpfs.txt 2>&1; then
		ls_time $1 jmtpfs jmtpfs $W/j $2
	else
		echo "FAIL: $1: jmtpfs did not mount"; tail -n 3 $W/$1-jmtpfs.txt
	fi
	if gomtpfs_up $W/$1-gomtpfs.txt; then
		ls_time $1 gomtpfs go-mtpfs $W/g $2
	else
		echo "FAIL: $1: go-mtpfs did not mount"; tail -n 3 $W/$1-gomtpfs.txt
	fi
	gomtpfs_down
}

populate() {
	mkdir -p "$1/many"
	(cd "$1/many" && i=0 && while [ $i -lt "$NFILES" ]; do
		echo $i > f$i.txt
		i=$((i + 1))
	done)
}

# near_bound: the libmtp-pattern bound, now (BENCH near_sync16k_*).
near_bound() {
	SS_ONLY_SYNC=1 SS_PREFIX=near_ sh "$SRC/tests/bench/b-sourcesink.sh" 2>&1 |
		grep '^BENCH\|FATAL'
}

# ffs_bound HOST [OUT_KIB IN_KIB]: the ffs-file bound, now (BENCH
# near_ffsfile_*): SIZE bytes sent into ffsfile, which writes them to the
# storage's file system, and got back from that file, with the mtp
# plugin's request sizes or those given (BENCH near_ffsfileOUT_IN_*).
# HOST is usbsync's pattern: "" for 16 KiB transfers from the start
# (near_ffsfile*), mtp for libmtp's own (BENCH near_ffslibmtp_*: a first
# transfer of one packet, then 16 KiB, and mtp-tools' progress line
# written after each; usbsync.c).
FFS_DIR=/dev/ffs-bench
FFS_ID=1d6b:0105
ffs_bound() {
	local fp n=0 out in name=near_ffsfile host=$1

	[ "$host" != mtp ] || name=near_ffslibmtp
	name=$name${2:+$2_$3}
	shift
	cfs_gadget -p ffsfile gffs 1d6b 0105 ffs.bench || return 1
	mkdir -p $FFS_DIR
	timeout 10 mount -t functionfs bench $FFS_DIR || return 1
	timeout 300 "$B/ffsfile" $FFS_DIR $SIZE /srv/mtpb/ffsfile.bin "$@" > $W/ffsfile.txt 2>&1 &
	fp=$!
	while ! grep -q ready $W/ffsfile.txt && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	dev_pin $(pgrep -n -x ffsfile)
	# The host tool's CPU time is the shell's children's (kids_ticks),
	# taken right around it; ffsfile reports its own (cpu_ms out|in).
	if cfs_bind gffs && wait_usb $FFS_ID 15 && mon_start && k0=$(kids_ticks) &&
		out=$(profiled $name-send $HOSTPIN timeout 120 "$B/usbsync" $FFS_ID ${host}out $SIZE 16384 $W/big.bin 2> $W/usbsync.txt) &&
		k1=$(kids_ticks) && mon_stop ${name}_send o && mon_start && k2=$(kids_ticks) &&
		in=$(profiled $name-get $HOSTPIN timeout 120 "$B/usbsync" $FFS_ID ${host}in $SIZE 16384 $W/back.bin 2> $W/usbsync.txt) &&
		k3=$(kids_ticks) && mon_stop ${name}_get i && wait $fp && cmp -s $W/big.bin $W/back.bin; then
		echo "BENCH ${name}_out_mbps $out MB/s"
		echo "BENCH ${name}_in_mbps $in MB/s"
		sed -n 's/^cpu_ms out \([0-9]*\)$/BENCH '${name}'_send_dev_cpu_ms \1 ms/p
			s/^cpu_ms in \([0-9]*\)$/BENCH '${name}'_get_dev_cpu_ms \1 ms/p' $W/ffsfile.txt
		cpu_ms ${name}_send_host $k0 $k1
		cpu_ms ${name}_get_host $k2 $k3
	else
		mon_stop ${name}_failed i > /dev/null
		echo "FAIL: ffs-file bound $host $*: $(cat $W/ffsfile.txt; tail -c 300 $W/usbsync.txt)"
	fi
	kill $fp 2>/dev/null
	wait $fp 2>/dev/null
	cfs_unbind gffs
	timeout 10 umount $FFS_DIR
	cfs_teardown gffs
	rm -f /srv/mtpb/ffsfile.bin $W/back.bin
}

# xfer_build NAME DIR: tiny and xfer with DIR's worker and mtp.so.
xfer_build() {
	local b0=$B
	B=$2
	if mtp_up storage0_path=/srv/mtpb storage0_description=Bench; then
		dev_pin $MTP_WPID
		tiny $1 && xfer $1 /srv/mtpb $MTP_WPID
		TINY_SEND_NS= TINY_GET_NS=
		[ "$1" != mtp ] || [ "$round" != 0 ] || strace_xfer
	else
		echo "FAIL: the mtp gadget of $2 did not come up"
	fi
	mtp_down
	B=$b0
}

# strace_xfer: one more send and get with strace -c -f on the worker.
strace_xfer() {
	[ -n "${MTP_BENCH_STRACE:-}" ] || return 0
	for d in send get; do
		rm -f /srv/mtpb/big.bin $W/back.bin
		# The get's file is sent first (the send's st.txt does not exist
		# yet: sed complained of it).
		if [ $d = get ]; then
			timeout 60 mtp-sendfile $W/big.bin / > $W/st.txt 2>&1
			id=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $W/st.txt)
		fi
		timeout 60 strace -c -f -p $MTP_WPID -o /mnt/out/b-mtp/mtp-strace-$d.txt &
		sp=$!
		sleep 1
		if [ $d = send ]; then
			timeout 300 mtp-sendfile $W/big.bin / > $W/st.txt 2>&1
		else
			timeout 300 mtp-getfile "$id" $W/back.bin > /dev/null 2>&1
		fi
		kill -INT $sp
		wait $sp
		timeout 60 mtp-delfile -n "$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' $W/st.txt)" > /dev/null 2>&1
	done
	rm -f /srv/mtpb/big.bin $W/back.bin
}

# umtprd as docs/ffs-programs.md sets it up for libmtp's hosts: with
# inotify on, umtprd 1.3.10 writes an ObjectAdded event for its own
# SendObject's file to the interrupt endpoint, which mtp-tools never read,
# and holds its command loop meanwhile: the send then took until libmtp's
# time-out (20 to 60 s), the send figure measured that stall and not the
# transfer, and the get after it sometimes failed.
umtprd_up() {
	mkdir -p /etc/umtprd $UFFS
	cat > /etc/umtprd/umtprd.conf <<CONF
loop_on_disconnect 1
storage "$1" "shared folder" "rw"
manufacturer "Viveris Technologies"
product "umtprd"
serial "01234567"
firmware_version "Rev A"
interface "MTP"
usb_vendor_id  0x1D6B
usb_product_id 0x0100
usb_class 0x6
usb_subclass 0x1
usb_protocol 0x1
usb_dev_version 0x3008
usb_functionfs_mode 0x1
usb_dev_path   "$UFFS/ep0"
usb_epin_path  "$UFFS/ep1"
usb_epout_path "$UFFS/ep2"
usb_epint_path "$UFFS/ep3"
usb_max_packet_size 0x200
no_inotify 0x1
CONF
	cfs_gadget -p umtprd -s 01234567 gumtp 1d6b 0100 ffs.umtp || return 1
	timeout 10 mount -t functionfs umtp $UFFS || return 1
	umtprd > $W/umtprd.log 2>&1 &
	UPID=$!
	local n=0
	while [ ! -e $UFFS/ep1 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	[ -e $UFFS/ep1 ] || { echo "FAIL: umtprd did not write its descriptors"; return 1; }
	cfs_bind gumtp || return 1
	wait_usb 1d6b:0100 15
}

umtprd_down() {
	[ -n "$UPID" ] && kill -TERM $UPID 2>/dev/null
	sleep 0.5
	[ -n "$UPID" ] && kill -KILL $UPID 2>/dev/null
	UPID=
	cfs_unbind gumtp
	timeout 10 umount $UFFS 2>/dev/null
	cfs_teardown gumtp
	return 0
}

[ -n "${MTP_BENCH_LIB:-}" ] && return 0
gd_modules
mkdir -p $W /srv/mtpb /srv/umtpb
timeout 30 head -c $SIZE /dev/urandom > $W/big.bin

if [ -z "${MTP_BENCH_LIST_ONLY:-}" ]; then
	echo "== gadgetd mtp: 50 MB send/get"
	# The bound taken apart from the transfers (b-sourcesink) swings
	# with the machine's load, which can change several-fold within a
	# run on a shared machine: measured on both sides of them, its
	# mean compares like with like.
	near_bound
	round=0
	while [ $round -lt "${MTP_BENCH_ROUNDS:-1}" ]; do
		ffs_bound ""
		ffs_bound mtp
		for s in ${MTP_BENCH_FFS_SHAPES:-}; do ffs_bound "" ${s%:*} ${s#*:}; done
		xfer_build mtp $B
		for v in ${MTP_BENCH_XFER_BASES:-}; do xfer_build mtp${v%%=*} ${v#*=}; done
		round=$((round + 1))
	done
	ffs_bound ""
	ffs_bound mtp
	if [ -n "${MTP_BENCH_PERF:-}" ]; then
		PROFILE=1
		ffs_bound mtp | sed 's/^BENCH near_/BENCH perf_/'
		xfer_build perf $B
		PROFILE=
		cat /mnt/out/b-mtp/perf-*.txt
	fi
	near_bound

	[ -z "${MTP_BENCH_XFER_ONLY:-}" ] || exit 0
	echo "== umtprd: 50 MB send/get"
	if umtprd_up /srv/umtpb; then
		xfer umtprd /srv/umtpb $UPID
	else
		echo "FAIL: umtprd gadget did not come up"; tail -n 20 $W/umtprd.log
	fi
	umtprd_down
fi

echo "== $NFILES files"
echo "BENCH mtp_bench_files $NFILES files"
populate /srv/mtpb
populate /srv/umtpb
# walk NAME [MTP_OPTION...]: the mtp function up with these options, each
# client's walk of the tree timed (BENCH NAME_*), the function down; 1
# when it did not come up.
walk() {
	local name=$1

	shift
	if ! mtp_up storage0_path=/srv/mtpb storage0_description=Bench "$@"; then
		echo "FAIL: $name: the mtp gadget did not come up ($*)"
		mtp_down
		return 1
	fi
	list $name $MTP_WPID
	trace $name
	trace $name gomtpfs
	fuse_ls $name $MTP_WPID
	mtp_down
}
walk mtp || die "mtp gadget did not come up"
# The mtp option object_prop_lists=false: DeviceInfo without
# GetObjectPropList and GetObjectPropsSupported, one transaction an object
# in libmtp's walk, and no whole-device list (docs/mtp-clients.md).
walk mtpnpl object_prop_lists=false
if [ -n "${MTP_BENCH_BASE:-}" ]; then
	B0=$B
	B=$MTP_BENCH_BASE
	walk mtpbase
	B=$B0
fi
if umtprd_up /srv/umtpb; then
	list umtprd $UPID
	trace umtprd
	trace umtprd gomtpfs
	fuse_ls umtprd $UPID
fi
umtprd_down
cp $W/*.txt $W/umtprd.log /mnt/out/ 2>/dev/null
exit 0
