# adb with 1, 4 and 16 concurrent streams (issue 39), Debian's adb 29 as
# the host, through the adb plugin composed by hand as in b-adb.sh (auth
# on, a key from `adb keygen`). For each N, 256 MiB in all
# (ADBS_BENCH_MIB), 256/N MiB a stream but at least 28 (ADBS_BENCH_MIN_MIB,
# below), from and to tmpfs, three phases
# one after the other, every stream's client started at once:
#   push: N `adb push`;
#   pull: N `adb pull` of what the pushes left;
#   mix (N = 4 and 16): stream i pushes when i % 3 is 0, pulls when 1 and
#     runs `adb shell -T cat FILE` (shell v2, stdout to a file) when 2:
#     pushes, pulls and shells at once (N = 4: 2, 1, 1; N = 16: 6, 5, 5).
# Every copy is compared with its source. While they run, the copies'
# sizes are sampled every 50 ms, and the figures are taken over
# the window in which all N streams were running (each copy begun and
# none complete): N adb clients started together on the bed's two vCPUs
# begin their transfers seconds apart, and over the whole span a stream
# that runs alone for a while would count as faster (with 4 MiB a
# stream, 16 streams each ran 1.1 to 1.7 MB/s by adb's own times, while
# the span from the first start to the last end gave 10.3 MB/s in all,
# 2026-12-06). Prints BENCH lines:
#   adbs{N}_{push,pull,mix}_agg_mbps: the bytes all streams moved in the
#     window over its length;
#   adbs{N}_{push,pull,mix}_fair: the slowest stream's rate in the window
#     over the fastest's (1 is fair; ratios.py wants >= 0.8);
#   adbs{N}_{push,pull,mix}_jain: Jain's index of the same rates (1 is
#     fair, 1/N is one stream taking all);
#   adbs{N}_{push,pull,mix}_window_s: the window's length, beside the
#     whole phase's (the log has each stream's own times);
#   adbs{N}_{push,pull,mix}_{worker,server}_cpu_ms: the CPU time (user +
#     system) the adb worker and the host's adb server took in the phase:
#     where the work goes as N grows.
# A phase with fewer than 3 samples in its window fails the bench.
# ratios.py compares the aggregates at 4 and 16 with the one stream's.
. "$SRC/tests/loopback/lib.sh"

W=/run/b-adbs
FFS=/run/ffs-badbs
SERIAL=GADGETD-BENCH
MIB=${ADBS_BENCH_MIB:-256}
adb_key_home "$W" || die "adb keygen failed"

cleanup() {
	timeout 10 adb kill-server >/dev/null 2>&1
	pkill -KILL -f "gadgetd-worker.*$FFS" 2>/dev/null
	cfs_unbind badbs
	umount $FFS 2>/dev/null
	cfs_teardown badbs
	rm -rf "$W" /dev/shm/b-adbs.*
}
trap cleanup EXIT

gd_modules
adb_by_hand badbs $SERIAL adbs $FFS "$W"

# cpu_ms PID: its user + system CPU time so far, ms.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d", ($12 + $13) * 1000 / hz }' "/proc/$1/stat" ||
		die "no /proc/$1/stat"
}
WPID=$(pgrep -f "gadgetd-worker.*$FFS" | head -n 1)
SPID=$(pgrep -f "adb.*fork-server" | head -n 1)
[ -n "$WPID" ] && [ -n "$SPID" ] || die "no adb worker ($WPID) or adb server ($SPID)"

# stream I KIND SIZE: one stream in the background; $W/st.I gets
# "KIND SIZE EXIT START_NS END_NS ADB_SECONDS" (ADB_SECONDS 0 for a shell).
stream() {
	(
		s=$(date +%s%N)
		case $2 in
		push) timeout 300 adb push /dev/shm/b-adbs.src.$1 /dev/shm/b-adbs.dev.$1 ;;
		pull) timeout 300 adb pull /dev/shm/b-adbs.dev.$1 /dev/shm/b-adbs.back.$1 ;;
		shell) timeout 300 adb shell -T cat /dev/shm/b-adbs.dev.$1 > /dev/shm/b-adbs.back.$1 ;;
		esac > "$W/out.$1" 2>&1
		rc=$?
		e=$(date +%s%N)
		secs=$(sed -n 's/.*([0-9]* bytes in \([0-9.]*\)s).*/\1/p' "$W/out.$1")
		echo "$2 $3 $rc $s $e ${secs:-0}" > "$W/st.$1"
	) &
	pids="$pids $!"
}
# sample DESTS...: until $W/sampling goes, every 50 ms, a line of the
# time and each file's size, from one Python process (a stat process a
# sample took 0.3 to 0.7 s on the loaded bed); "ready" in
# $W/sampler.ready once it runs.
sample() {
	python3 -c '
import os, sys, time
out = open(sys.argv[1], "w")
open(sys.argv[2], "w").write("ready")
while os.path.exists(sys.argv[3]):
    out.write("%.3f %s\n" % (time.monotonic(), " ".join(str(os.stat(f).st_size) for f in sys.argv[4:])))
    time.sleep(0.05)
' "$W/samples" "$W/sampler.ready" "$W/sampling" "$@"
}
# phase N NAME KINDS...: the streams (kind of stream i = KINDS[i % count]),
# all at once, their copies' sizes sampled; then the checks and the
# BENCH lines.
phase() {
	n=$1 name=$2
	shift 2
	pids= i=0 dests=
	rm -f "$W"/st.*
	while [ $i -lt "$n" ]; do
		eval "kind=\${$((i % $# + 1))}"
		if [ "$kind" = push ]; then d=/dev/shm/b-adbs.dev.$i; else d=/dev/shm/b-adbs.back.$i; fi
		[ "$kind" = push ] || [ -e /dev/shm/b-adbs.dev.$i ] || die "no device file for stream $i"
		: > "$d"
		dests="$dests $d"
		i=$((i + 1))
	done
	touch "$W/sampling"
	# shellcheck disable=SC2086
	sample $dests &
	sp=$!
	n0=0
	until [ -e "$W/sampler.ready" ]; do
		n0=$((n0 + 1))
		[ $n0 -lt 300 ] || die "the sampler did not start"
		sleep 0.1
	done
	rm -f "$W/sampler.ready"
	wc0=$(cpu_ms "$WPID") sc0=$(cpu_ms "$SPID")
	i=0
	while [ $i -lt "$n" ]; do
		eval "kind=\${$((i % $# + 1))}"
		stream $i "$kind" $SIZE
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	wait $pids
	wc1=$(cpu_ms "$WPID") sc1=$(cpu_ms "$SPID")
	rm -f "$W/sampling"
	wait $sp
	echo "BENCH adbs${n}_${name}_worker_cpu_ms $((wc1 - wc0)) ms"
	echo "BENCH adbs${n}_${name}_server_cpu_ms $((sc1 - sc0)) ms"
	i=0
	while [ $i -lt "$n" ]; do
		[ -s "$W/st.$i" ] || die "adbs$n $name: stream $i left no record"
		read -r kind sz rc s e secs < "$W/st.$i"
		[ "$rc" = 0 ] || die "adbs$n $name: stream $i ($kind) exited $rc: $(cat "$W/out.$i")"
		if [ "$kind" = push ]; then a=/dev/shm/b-adbs.src.$i b=/dev/shm/b-adbs.dev.$i
		else a=/dev/shm/b-adbs.src.$i b=/dev/shm/b-adbs.back.$i; fi
		cmp -s "$a" "$b" || die "adbs$n $name: stream $i ($kind): the copy differs"
		echo "adbs$n $name: stream $i $kind $sz bytes, the command $(( (e - s) / 1000000 )) ms, adb's own ${secs} s"
		i=$((i + 1))
	done
	cp "$W/samples" "samples-$n-$name.txt"
	# The window: the samples in which every stream had begun and none
	# had ended (0 < size < SIZE for all).
	awk -v n="$n" -v p="$name" -v size="$SIZE" '
		NF == n + 1 { all = 1; for (i = 2; i <= NF; i++) if ($i <= 0 || $i >= size) all = 0
		  if (NR == 1) t0 = $1; tl = $1
		  if (!all) next
		  k++; t[k] = $1; for (i = 2; i <= NF; i++) b[k, i] = $i }
		END { if (k < 3) { printf "adbs%d %s: %d samples with all %d streams running\n", n, p, k, n > "/dev/stderr"; exit 1 }
		  dt = t[k] - t[1]
		  for (i = 2; i <= n + 1; i++) { r = (b[k, i] - b[1, i]) / 1e6 / dt; tot += r; sq += r * r
		    if (i == 2 || r < lo) lo = r; if (i == 2 || r > hi) hi = r }
		  if (hi <= 0) exit 1
		  printf "BENCH adbs%d_%s_agg_mbps %.1f MB/s\n", n, p, tot
		  printf "BENCH adbs%d_%s_fair %.2f slowest/fastest\n", n, p, lo / hi
		  printf "BENCH adbs%d_%s_jain %.2f\n", n, p, tot * tot / (n * sq)
		  printf "BENCH adbs%d_%s_window_s %.1f s (all running, of %.1f s)\n", n, p, dt, tl - t0 }' "$W/samples" ||
		die "adbs$n $name: no window in which all $n streams ran (samples-$n-$name.txt)"
}
# At least MIN_MIB a stream (ADBS_BENCH_MIN_MIB, 28): on an idle bed, 16
# streams of 16 MiB gave no window in the mix, the last client beginning
# 2.8 s after the first and the first stream (a shell) done at 2.4 s
# (2026-12-07, a whole make bench). 16 x 28 MiB three times over (the
# sources, the device's copies, the pulled ones) is 1.3 GiB, within the
# guest's /dev/shm (half its 3 GiB).
MIN_MIB=${ADBS_BENCH_MIN_MIB:-28}
for n in 1 4 16; do
	SIZE=$((MIB * 1048576 / n))
	[ $SIZE -ge $((MIN_MIB * 1048576)) ] || SIZE=$((MIN_MIB * 1048576))
	i=0
	while [ $i -lt $n ]; do
		head -c $SIZE /dev/urandom > /dev/shm/b-adbs.src.$i
		i=$((i + 1))
	done
	phase $n push push
	phase $n pull pull
	rm -f /dev/shm/b-adbs.back.*
	[ $n = 1 ] || phase $n mix push pull shell
	rm -f /dev/shm/b-adbs.*
done
