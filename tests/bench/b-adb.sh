# adb push and pull of 64 MiB through the adb plugin with Debian's adb 29,
# from and to tmpfs. Prints BENCH lines (MB/s, best of 3 runs, or of
# ADB_XFER_ROUNDS):
#   adb_push_mbps, adb_pull_mbps: the transfer as adb itself reports it
#     ("67108864 bytes in 1.234s"), which is what a user sees;
#   adb_push_wall_mbps, adb_pull_wall_mbps: the whole adb command, which
#     also starts the adb client and connects to its server;
#   adb_tiny_pull_ms: that fixed cost, the wall time of pulling 1 byte.
# ratios.py compares the first two with adb 29's own bound (adb1m_* of
# b-sourcesink.sh), and with the same adb 29 commands against two
# daemons of tests/bench/adbmin.c, each a gadget of its own, taken in
# turns with gadgetd's in each of the 3 rounds (best of 3, as adb
# reports them):
#   adbmin_{push,pull}_mbps: the least daemon, which does only what any
#     adb daemon must for the bytes (the same files written and read,
#     one blocking call at a time);
#   adbnull_{push,pull}_mbps: the ceiling (adbmin -n), no work for the
#     bytes at all: the most any daemon can give adb 29's own pattern,
#     its client, server and their hop included. What adb 29 puts on the bus, from usbmon during one
# more push and pull: adb29_{push,pull}_payload_bytes_median, the median
# length of the payload transfers (headers and ZLPs left out).
# ADB_BENCH_BASES="NAME=DIR ...": in each round, DIR's gadgetd-worker and
# DIR/plugins/adb.so (a build of another commit) on a gadget of its own,
# bound in turns with this build's, the same push and pull:
# adbNAME_{push,pull}_mbps (ratios.py compares NAME=base with this
# build). The bases go after this build in odd rounds and before it in
# even ones, so that a machine speeding up or slowing down during a round
# favours neither. ADB_BENCH_XFER_ONLY=1 stops after the rounds and the
# optional traces (no usbmon, adbhost, bounds or sendrecv_v2).
# adb_worker_anon_{start,busy,idle}_kib: the worker's anonymous memory
# once adb is connected, just after a push, and 11 s later (spare read
# buffers unmapped).
# ADB_BENCH_STRACE=1 also prints `strace -c -f` of the worker over one
# more push and one more pull (in b-adb.log), ADB_BENCH_STRACE_TT=1 a
# timed strace of its AIO and file writes over one more push
# (strace-tt-push.txt); ADB_BENCH_PERF=1 a `perf
# record -a` profile of the whole guest over one more of each (the 40
# busiest process, object and symbol triples).
# Then the same file size through tests/bench/adbhost.c, a raw-ADB host in
# C with sendrecv_v2 (no compression), best of 3, MB/s of file bytes:
#   adbhost_{push,pull}_mbps: delayed_ack on, the device's 2 MiB window
#     filled without waiting for each OKAY; ratios.py compares it with
#     the bulk bound (bulk1m_* of b-sourcesink.sh);
#   adbhost_classic_{push,pull}_mbps: without delayed_ack, one WRTE in
#     flight as with adb 29.
# Before and after each round of delayed_ack runs (ADB_BENCH_ROUNDS, 2;
# the adb gadget unbound meanwhile), two bounds of the same host pattern
# as bulk1m (synchronous 1 MiB transfers, 64 MiB each way):
#   near_bulk1m_{in,out}_mbps: SourceSink's bulk bound (b-sourcesink.sh)
#     taken there, which the delayed_ack target is measured against;
#   adbffs_{in,out}_mbps: tests/bench/ffsfile.c with the adb plugin's
#     request sizes (8 reads of 128 KiB queued, 256 KiB writes) moving
#     the bytes between f_fs and a tmpfs file: what they cost any
#     FunctionFS responder that stores them, ADB or not, with a host
#     that waits for each transfer (adbhost keeps 2 MiB in flight, so
#     this is a reference, not its bound), and adbffs_{send,get}_dev_cpu_ms
#     the CPU that took ffsfile.
# Then sendrecv_v2's compressions through tests/loopback/adb_wire.py (a
# raw-ADB host on pyusb): push and pull of 16 MiB of text and of random
# data with each compression (best of 2, MB/s of file bytes, the host's
# Python compression included, which caps these figures):
#   adb_v2_{push,pull}_{none,brotli,lz4,zstd}_{text,random}_mbps
#
# The gadget is composed by hand (ConfigFS + FunctionFS + gadgetd-worker
# behind tests/loopback/ffs_worker.py), with auth on and a key made by
# `adb keygen` that adb 29 and adbhost both sign with.
. "$SRC/tests/loopback/lib.sh"

W=/run/b-adb
FFS=/run/ffs-badb
FFB=/run/ffs-badbffs
SERIAL=GADGETD-BENCH
for t in adbhost adbmin ffsfile; do
	[ -x "$B/$t" ] || die "$B/$t missing (make bench builds it)"
done
adb_key_home "$W" || die "adb keygen failed"

cleanup() {
	timeout 10 adb kill-server >/dev/null 2>&1
	usbmon_stop
	pkill -KILL -f "gadgetd-worker.*$FFS" 2>/dev/null
	cfs_unbind badb
	umount $FFS 2>/dev/null
	cfs_teardown badb
	pkill -KILL -x ffsfile 2>/dev/null
	pkill -KILL -x adbmin 2>/dev/null
	for g in gmin gnull; do
		cfs_unbind $g 2>/dev/null
		umount /run/ffs-b$g 2>/dev/null
		cfs_teardown $g
	done
	cfs_unbind gffs 2>/dev/null
	umount $FFB 2>/dev/null
	cfs_teardown gffs
	for v in ${ADB_BENCH_BASES:-}; do
		pkill -KILL -f "gadgetd-worker.*/run/ffs-bb${v%%=*}" 2>/dev/null
		cfs_unbind "gb${v%%=*}" 2>/dev/null
		umount "/run/ffs-bb${v%%=*}" 2>/dev/null
		cfs_teardown "gb${v%%=*}"
	done
	rm -rf "$W" /dev/shm/b-adb.*
}
trap cleanup EXIT

gd_modules
adb_by_hand badb $SERIAL adb $FFS "$W"
wpid=$(pgrep -f "gadgetd-worker.*$FFS" | head -n 1)
[ -n "$wpid" ] || die "no adb worker"
echo "BENCH adb_worker_anon_start_kib $(smaps Anonymous "$wpid") KiB"

head -c 67108864 /dev/urandom > /dev/shm/b-adb.src
echo x > /dev/shm/b-adb.tiny
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
mbps() { awk -v ms="$1" 'BEGIN { printf "%.1f", 67108864 / 1e6 / (ms / 1000) }'; }
# "... 67108864 bytes in 1.234s)" -> milliseconds
adb_ms() { sed -n 's/.*(67108864 bytes in \([0-9.]*\)s).*/\1/p' "$1" | awk '{ printf "%d", $1 * 1000 }'; }
best() { [ -n "$2" ] && [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }
# The least daemon and the ceiling: each a gadget of its own, composed
# now, bound in turns with gadgetd's adb.
# min_up NAME SERIAL [-n]: adbmin (with -n, the ceiling) on gadget NAME.
min_up() {
	local n=0
	cfs_gadget -s "$2" "$1" 18d1 4ee7 "ffs.b$1" || die "configfs ($1)"
	mkdir -p "/run/ffs-b$1"
	timeout 10 mount -t functionfs "b$1" "/run/ffs-b$1" || die "mount functionfs ($1)"
	"$B/adbmin" ${3:-} ffs "/run/ffs-b$1" > "$W/$1.txt" 2>&1 &
	while ! grep -q ready "$W/$1.txt" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	grep -q ready "$W/$1.txt" || die "adbmin ($1) did not start: $(cat "$W/$1.txt")"
}
min_up gmin ADBMIN
min_up gnull ADBNULL -n
# Other builds' adb (ADB_BENCH_BASES): gadget gbNAME, serial ADBNAME, that
# build's worker and plugin, auth on with the same key.
for v in ${ADB_BENCH_BASES:-}; do
	bdir=${v#*=}
	[ -x "$bdir/gadgetd-worker" ] && [ -f "$bdir/plugins/adb.so" ] ||
		die "ADB_BENCH_BASES: no gadgetd-worker and plugins/adb.so in $bdir"
	cfs_gadget -s "ADB${v%%=*}" "gb${v%%=*}" 18d1 4ee7 "ffs.bb${v%%=*}" || die "configfs (${v%%=*})"
	mkdir -p "/run/ffs-bb${v%%=*}"
	timeout 10 mount -t functionfs -o no_disconnect=1 "bb${v%%=*}" "/run/ffs-bb${v%%=*}" ||
		die "mount functionfs (${v%%=*})"
	adb_worker "$bdir" "/run/ffs-bb${v%%=*}" "$W/ctl-${v%%=*}" "$W/worker-${v%%=*}.log" \
		-o auth=on -o keys="$W/adb_keys" >/dev/null || die "the ${v%%=*} worker did not start"
done
# swap FROM TO SERIAL: gadget FROM off the bus, TO on, adb sees SERIAL.
swap() {
	cfs_unbind "$1"
	wait_no_usb 18d1:4ee7 10 || die "$1 did not go"
	cfs_bind "$2" || die "bind $2"
	adb_state "$3" device 20 || die "adb does not see $3"
}
# min_round NAME SERIAL: push and pull through gadget NAME; the times
# (ms) into NAME_push and NAME_pull, the best so far.
min_round() {
	local p l
	swap badb "$1" "$2"
	timeout 120 adb -s "$2" push /dev/shm/b-adb.src /dev/shm/b-adb.dev >$W/npush.txt 2>&1 ||
		die "$1 push: $(cat $W/npush.txt)"
	timeout 120 adb -s "$2" pull /dev/shm/b-adb.src /dev/shm/b-adb.back >$W/npull.txt 2>&1 ||
		die "$1 pull: $(cat $W/npull.txt)"
	p=$(adb_ms $W/npush.txt) l=$(adb_ms $W/npull.txt)
	[ -n "$p" ] && [ -n "$l" ] || die "adb did not report $1's times: $(cat $W/npush.txt $W/npull.txt)"
	eval "$1_push=\$(best \${$1_push:-999999} $p) $1_pull=\$(best \${$1_pull:-999999} $l)"
	# The least daemon stores and reads the real files; the ceiling not.
	if [ "$1" = gmin ]; then
		cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.dev || die "$1: pushed file differs"
		cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.back || die "$1: pulled file differs"
	fi
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
	swap "$1" badb $SERIAL
}
# base_round NAME: this round's push and pull through base NAME's gadget,
# the bytes compared; the best times so far in base_NAME_{push,pull}.
base_round() {
	local p l
	swap badb "gb$1" "ADB$1"
	timeout 120 adb -s "ADB$1" push /dev/shm/b-adb.src /dev/shm/b-adb.dev >$W/npush.txt 2>&1 ||
		die "$1 push: $(cat $W/npush.txt)"
	timeout 120 adb -s "ADB$1" pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >$W/npull.txt 2>&1 ||
		die "$1 pull: $(cat $W/npull.txt)"
	cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.back || die "$1: the bytes differ"
	p=$(adb_ms $W/npush.txt) l=$(adb_ms $W/npull.txt)
	[ -n "$p" ] && [ -n "$l" ] || die "adb did not report $1's times: $(cat $W/npush.txt $W/npull.txt)"
	echo "round $i: $1 push $(mbps $p) pull $(mbps $l) MB/s" >&2
	eval "base_$1_push=\$(best \${base_$1_push:-999999} $p) base_$1_pull=\$(best \${base_$1_pull:-999999} $l)"
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
	swap "gb$1" badb $SERIAL
}
bases_round() {
	for v in ${ADB_BENCH_BASES:-}; do
		base_round "${v%%=*}"
	done
}
# A push and a pull first, not counted: round 1's first transfer was the
# slowest of its round in every run (76.8 to 80.6 MB/s where the next
# were 97 to 108, 2026-12-07), so the build measured first lost.
timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >/dev/null 2>&1 || die "warm-up push"
timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >/dev/null 2>&1 || die "warm-up pull"
rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
bp=999999 bl=999999 wp=999999 wl=999999 tiny=999999
for i in $(seq "${ADB_XFER_ROUNDS:-3}"); do
	[ $((i % 2)) = 1 ] || bases_round
	t=$(date +%s%N)
	timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >$W/push.txt 2>&1 || die "push: $(cat $W/push.txt)"
	wp=$(best $wp $(ms $t))
	bp=$(best $bp "$(adb_ms $W/push.txt)")
	t=$(date +%s%N)
	timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >$W/pull.txt 2>&1 || die "pull: $(cat $W/pull.txt)"
	wl=$(best $wl $(ms $t))
	bl=$(best $bl "$(adb_ms $W/pull.txt)")
	cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.back || die "pulled file differs"
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
	t=$(date +%s%N)
	timeout 60 adb pull /dev/shm/b-adb.tiny /dev/shm/b-adb.tback >/dev/null 2>&1 || die "tiny pull"
	tiny=$(best $tiny $(ms $t))
	echo "round $i: this build push $(mbps "$(adb_ms $W/push.txt)") pull $(mbps "$(adb_ms $W/pull.txt)") MB/s" >&2
	[ $((i % 2)) = 0 ] || bases_round
	min_round gmin ADBMIN
	min_round gnull ADBNULL
done
[ $bp -lt 999999 ] && [ $bl -lt 999999 ] || die "adb did not report its transfer times: $(cat $W/push.txt $W/pull.txt)"
echo "BENCH adb_push_mbps $(mbps $bp) MB/s"
echo "BENCH adb_pull_mbps $(mbps $bl) MB/s"
echo "BENCH adb_push_wall_mbps $(mbps $wp) MB/s"
echo "BENCH adb_pull_wall_mbps $(mbps $wl) MB/s"
echo "BENCH adb_tiny_pull_ms $tiny ms"
echo "BENCH adbmin_push_mbps $(mbps $gmin_push) MB/s"
echo "BENCH adbmin_pull_mbps $(mbps $gmin_pull) MB/s"
echo "BENCH adbnull_push_mbps $(mbps $gnull_push) MB/s"
echo "BENCH adbnull_pull_mbps $(mbps $gnull_pull) MB/s"
for v in ${ADB_BENCH_BASES:-}; do
	eval "p=\$base_${v%%=*}_push l=\$base_${v%%=*}_pull"
	echo "BENCH adb${v%%=*}_push_mbps $(mbps "$p") MB/s"
	echo "BENCH adb${v%%=*}_pull_mbps $(mbps "$l") MB/s"
done

# monitored NAME CMD...: run CMD with usbmon recording the bus, then print
# the median length of its payload transfers: bulk OUT submissions for a
# push, bulk IN completions for a pull, over 24 bytes (headers, OKAYs and
# ZLPs are not payload).
monitored() {
	name=$1
	shift
	usbmon_on
	usbmon_start "$W/mon.txt"
	"$@" >/dev/null 2>&1 || die "$name under usbmon failed"
	usbmon_stop
	awk -v d="$name" '(d == "push" && $3 == "S" && $4 ~ /^Bo:/) ||
		(d == "pull" && $3 == "C" && $4 ~ /^Bi:/) {
			if ($6 + 0 > 24) print $6 }' "$W/mon.txt" | sort -n |
		awk -v d="$name" '{ v[NR] = $1 } END {
			if (NR) printf "BENCH adb29_%s_payload_bytes_median %d bytes (%d transfers)\n", d, v[int((NR + 1) / 2)], NR }'
}
if [ "${ADB_BENCH_XFER_ONLY:-}" != 1 ]; then
	monitored push timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev
	monitored pull timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back
fi
rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back

# The worker's anonymous memory (smaps_rollup) right after the pushes and
# pulls, and once it has read nothing for 11 s (epio unmaps its spare
# read buffers 5 to 10 s after the last read).
timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >/dev/null 2>&1 || die "push (memory)"
echo "BENCH adb_worker_anon_busy_kib $(smaps Anonymous "$wpid") KiB"
sleep 11
echo "BENCH adb_worker_anon_idle_kib $(smaps Anonymous "$wpid") KiB"
rm -f /dev/shm/b-adb.dev

if [ "${ADB_BENCH_STRACE:-}" = 1 ]; then
	for what in push pull; do
		timeout 120 strace -c -f -p "$wpid" -o "$W/strace.txt" &
		st=$!
		sleep 1
		if [ $what = push ]; then
			timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >/dev/null 2>&1
		else
			timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >/dev/null 2>&1
		fi
		kill -INT $st
		wait $st
		echo "strace -c of the worker, adb 29 $what of 64 MiB:"
		cat "$W/strace.txt"
	done
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
fi

# ADB_BENCH_STRACE_TT=1: the worker's AIO, file writes and waits, each
# timed (strace -tt -T), over one more push, into strace-tt-push.txt of
# the bench's output (build/bench/b-adb/): when the file writes come,
# how long they take, and what the bus did meanwhile.
# With ADB_BENCH_BASES, each base's worker too (strace-tt-push-NAME.txt).
# strace_tt FFSDIR SERIAL FILE: the trace of FFSDIR's worker over a push.
strace_tt() {
	local wpid st
	wpid=$(pgrep -f "gadgetd-worker.*$1" | head -n 1)
	[ -n "$wpid" ] || die "no worker on $1 to strace"
	timeout 120 strace -f -tt -T -e trace=writev,write,io_submit,io_getevents,epoll_wait,read \
		-p "$wpid" -o "$3" &
	st=$!
	sleep 1
	timeout 120 adb -s "$2" push /dev/shm/b-adb.src /dev/shm/b-adb.dev >/dev/null 2>&1
	kill -INT $st
	wait $st
	rm -f /dev/shm/b-adb.dev
}
if [ "${ADB_BENCH_STRACE_TT:-}" = 1 ]; then
	strace_tt "$FFS" $SERIAL "$PWD/strace-tt-push.txt"
	for v in ${ADB_BENCH_BASES:-}; do
		swap badb "gb${v%%=*}" "ADB${v%%=*}"
		strace_tt "/run/ffs-bb${v%%=*}" "ADB${v%%=*}" "$PWD/strace-tt-push-${v%%=*}.txt"
		swap "gb${v%%=*}" badb $SERIAL
	done
fi

if [ "${ADB_BENCH_PERF:-}" = 1 ]; then
	for what in push pull; do
		if [ $what = push ]; then
			set -- adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev
		else
			set -- adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back
		fi
		timeout 300 perf record -q -e cpu-clock -a -o "$W/perf.data" -- \
			timeout 120 "$@" >/dev/null 2>&1 || die "adb $what under perf failed"
		echo "perf record -a over adb 29's $what of 64 MiB:"
		perf report -i "$W/perf.data" --sort comm,dso,sym --stdio 2>/dev/null |
			grep -v '^#' | grep . | head -n 40
	done
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back "$W/perf.data"
fi

[ "${ADB_BENCH_XFER_ONLY:-}" != 1 ] || exit 0
timeout 30 adb kill-server >/dev/null 2>&1
# adbhost: push then pull, with delayed_ack and without.
hostbench() {
	out=$(timeout 300 "$B/adbhost" -k "$HOME/.android/adbkey" -r 3 "$@" \
		18d1:4ee7 /dev/shm/b-adb.host 64 2>"$W/adbhost.err") ||
		die "adbhost $*: $(cat "$W/adbhost.err")"
	echo "$out" | grep -q '^push [0-9]' && echo "$out" | grep -q '^pull [0-9]' ||
		die "adbhost $* printed no rates: $out"
	rm -f /dev/shm/b-adb.host
}
# near_bounds: the adb gadget off the bus, the SourceSink bulk bound and
# the ffs-file run taken now, then the adb gadget back.
near_bounds() {
	local fp n=0 bout bin

	cfs_unbind badb
	wait_no_usb 18d1:4ee7 10 || die "the adb gadget did not go"
	SS_ONLY_BULK=1 SS_PREFIX=near_ sh "$SRC/tests/bench/b-sourcesink.sh" 2>&1 |
		grep '^BENCH\|FATAL'
	cfs_gadget -p ffsfile gffs 1d6b 0105 ffs.badbffs || die "configfs (ffs-file run)"
	mkdir -p $FFB
	timeout 10 mount -t functionfs badbffs $FFB || die "mount functionfs (ffs-file run)"
	timeout 300 "$B/ffsfile" $FFB 67108864 /dev/shm/b-adb.ffs 128 256 > $W/ffsfile.txt 2>&1 &
	fp=$!
	while ! grep -q ready $W/ffsfile.txt && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	cfs_bind gffs && wait_usb 1d6b:0105 15 || die "ffs-file run: bind"
	bout=$(timeout 120 "$B/usbsync" 1d6b:0105 out 67108864 1048576 /dev/shm/b-adb.src) ||
		die "ffs-file run: usbsync out"
	bin=$(timeout 120 "$B/usbsync" 1d6b:0105 in 67108864 1048576 /dev/shm/b-adb.ffsback) ||
		die "ffs-file run: usbsync in"
	wait $fp || die "ffsfile: $(cat $W/ffsfile.txt)"
	cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.ffsback || die "ffs-file run: the bytes differ"
	echo "BENCH adbffs_out_mbps $bout MB/s"
	echo "BENCH adbffs_in_mbps $bin MB/s"
	sed -n 's/^cpu_ms out \([0-9]*\)$/BENCH adbffs_send_dev_cpu_ms \1 ms/p
		s/^cpu_ms in \([0-9]*\)$/BENCH adbffs_get_dev_cpu_ms \1 ms/p' $W/ffsfile.txt
	rm -f /dev/shm/b-adb.ffs /dev/shm/b-adb.ffsback
	cfs_unbind gffs
	timeout 10 umount $FFB
	cfs_teardown gffs
	cfs_bind badb && wait_usb 18d1:4ee7 20 || die "the adb gadget did not come back"
}
[ -x "$B/ffsfile" ] || die "$B/ffsfile missing (make bench builds it)"
# The bed's speed moves by a fifth within a minute: the delayed_ack runs
# and the bounds take turns, ADB_BENCH_ROUNDS times (2), and ratios.py
# takes the means.
near_bounds
for round in $(seq "${ADB_BENCH_ROUNDS:-2}"); do
	hostbench
	echo "BENCH adbhost_push_mbps $(echo "$out" | awk '$1 == "push" { print $2 }') MB/s"
	echo "BENCH adbhost_pull_mbps $(echo "$out" | awk '$1 == "pull" { print $2 }') MB/s"
	near_bounds
done
hostbench -c
echo "BENCH adbhost_classic_push_mbps $(echo "$out" | awk '$1 == "push" { print $2 }') MB/s"
echo "BENCH adbhost_classic_pull_mbps $(echo "$out" | awk '$1 == "pull" { print $2 }') MB/s"

mkdir -p /dev/shm/b-adb.v2
timeout 600 python3 "$SRC/tests/loopback/adb_wire.py" --key "$HOME/.android/adbkey" \
	bench 18d1:4ee7 /dev/shm/b-adb.v2 16 ||
	die "sendrecv_v2 bench failed"
