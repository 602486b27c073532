# gadgetd's own memory (issue 39), from /proc/PID/smaps_rollup, which
# walks the page tables (VmRSS lags on the bed's 6.1 kernel): once
# started and idle, after 100 switches and after 1 000 switches
# (MEM_BENCH_SWITCHES), the lab profile's sets in the cycle acm,ecm ->
# adb -> acm,ecm -> ncm (kernel functions, and every other switch starts
# or reaps the worker of a FunctionFS plugin), one `gadgetctl switch`
# right after the other's answer, the host attached. A switch took 320
# ms between kernel sets and 550 ms to or from adb on a loaded machine
# (load 7.8, 2026-12-06), and the 1 000 of the cycle took 406 s (load 8
# to 13): under guest-bench.sh's 900 s. Prints BENCH lines, KiB:
#   gadgetd_mem_{idle,100,1000}_{rss,pss,uss,anon}_kib: Rss, Pss, USS
#     (Private_Clean + Private_Dirty: what ending gadgetd would give back)
#     and Anonymous (what gadgetd owns alone: heap, stacks, its data);
#     ratios.py holds anon to <= 1024 KiB;
#     (1000: MEM_BENCH_SWITCHES, the name says how many);
#   gadgetd_mem_anon_growth_kib: anon after 1 000 switches less anon
#     after 100 (0 when it shrank; the log says by how much): a leak
#     shows here;
#   gadgetd_switch_ms_mean: one switch, the command's wall time.
#
# PSS: the bench's guest runs this script with busybox's init as PID 1,
# so nothing else maps libsystemd, libusbgx or libconfig and gadgetd's PSS
# is close to its RSS. Under systemd, where libsystemd is shared with the
# rest of the system, run it on the systemd bed
# (`GADGETD_VM_PID1=systemd make bench BENCH=b-memory`): gd_start then
# starts the shipped unit and the figures are that gadgetd's. The log
# says which PID 1 it ran under. There 1 000 switches did not end
# within 900 s at load 15 (2026-12-06): MEM_BENCH_SWITCHES=300 did.
. "$SRC/tests/loopback/lib.sh"
N=${MEM_BENCH_SWITCHES:-1000}
[ "$N" -ge 100 ] || die "MEM_BENCH_SWITCHES=$N: at least 100"
# mem NAME: BENCH lines for gadgetd now, and its smaps by mapping in the log.
mem() {
	[ -r "/proc/$GD_PID/smaps_rollup" ] || die "gadgetd ($GD_PID) is gone"
	awk -v n="$1" '$1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 } $1 == "Anonymous:" { a = $2 }
		$1 == "Private_Clean:" || $1 == "Private_Dirty:" { u += $2 }
		END { if (r == "" || p == "" || a == "") exit 1
			printf "BENCH gadgetd_mem_%s_rss_kib %d KiB\n", n, r
			printf "BENCH gadgetd_mem_%s_pss_kib %d KiB\n", n, p
			printf "BENCH gadgetd_mem_%s_uss_kib %d KiB\n", n, u
			printf "BENCH gadgetd_mem_%s_anon_kib %d KiB\n", n, a }' \
		"/proc/$GD_PID/smaps_rollup" | tee "mem-$1.txt" || die "no smaps_rollup figures"
	echo "gadgetd's smaps ($1) by mapping, KiB: Rss Pss Anonymous"
	awk '/^[0-9a-f]+-[0-9a-f]+ / { name = NF >= 6 ? $6 : "[anon]" }
		$1 == "Rss:" { r[name] += $2 } $1 == "Pss:" { p[name] += $2 }
		$1 == "Anonymous:" { a[name] += $2 }
		END { for (k in r) if (r[k]) printf "  %6d %6d %6d %s\n", r[k], p[k], a[k], k }' \
		"/proc/$GD_PID/smaps" | sort -rn
}
echo "mem: PID 1 is $(cat /proc/1/comm)"
gd_install
# A worker took more than the default 5 s to say it was ready on a
# machine at load 17 (2026-12-06, switch 136 of the run under systemd):
# the switch rolls back and the bench stops. The time still counts.
gd_config ready_timeout 20000
gd_start lab
gd_switch acm,ecm
pa=$(set_pid acm,ecm)
wait_usb "1d6b:$pa" 20 || die "first set not seen"
sleep 2
mem idle
i=0 t0=$(date +%s%N)
while [ $i -lt "$N" ]; do
	case $((i % 4)) in
	0) set=adb ;;
	2) set=ncm ;;
	*) set=acm,ecm ;;
	esac
	timeout 60 gadgetctl switch $set >/dev/null || die "switch $i ($set) failed"
	i=$((i + 1))
	if [ $i = 100 ]; then
		t100=$(date +%s%N)
		sleep 2
		mem 100
		t0=$((t0 + $(date +%s%N) - t100))
	fi
done
t1=$(date +%s%N)
echo "BENCH gadgetd_switch_ms_mean $(( (t1 - t0) / N / 1000000 )) ms ($N switches)"
sleep 2
mem "$N"
awk '$2 ~ /_100_anon_kib$/ { a = $3 } $2 ~ /_'"$N"'_anon_kib$/ { b = $3 }
	END { d = b - a
		if (d < 0) print "mem: anonymous memory shrank by " -d " KiB between 100 and the last switch"
		printf "BENCH gadgetd_mem_anon_growth_kib %d KiB (100 to '"$N"' switches)\n", d < 0 ? 0 : d }' mem-100.txt "mem-$N.txt"
gd_stop
