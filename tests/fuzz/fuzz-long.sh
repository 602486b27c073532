#!/bin/sh
# Runs each fuzz target under libFuzzer for a time budget and prints a
# table of executions and crashes per target.
#
#   tests/fuzz/fuzz-long.sh SECONDS BUILD_DIR TARGET...
#
# FUZZ_JOBS targets run at a time (default 1). libFuzzer runs one target on
# one thread, so with one job per idle CPU each target still has a CPU of
# its own for SECONDS; the cpu_s column shows whether it had.
#
# Each target starts from a copy of its seed corpus (tests/fuzz/corpus/NAME
# or tests/fuzz/corpus_NAME) in BUILD_DIR/long/TARGET/corpus, so the seeds
# in git stay as they are; inputs that crash, hang or leak land in
# BUILD_DIR/long/TARGET/ as crash-*, timeout-*, leak-* or oom-*. A target
# stops at its first crash. One bad target (no corpus, no figures, a crash)
# is reported in the table and the loop goes on to the next one. Exits 1
# when any target crashed or gave no figures.
set -u

secs=$1
bin=$2
out=$2/long
shift 2
table=$out/table.txt
fail=0

# The value of libFuzzer's final "stat::NAME:" line in LOG, or "?". A
# forked child that ran libFuzzer's exit handlers prints the lines too, so
# take the parent's: the one after its "Done N runs" line, else the last.
stat_of() {
	v=$(awk -v k="stat::$1:" '
		/^Done [0-9]+ runs/ { done = 1; next }
		$1 == k { last = $2; if (done && parent == "") parent = $2 }
		END { print (parent != "" ? parent : last) }' "$2")
	case $v in
	'' | *[!0-9]*) echo '?' ;;
	*) echo "$v" ;;
	esac
}

# User and system time of this shell's waited-for children, in ticks.
cpu_ticks() {
	awk '{ print $16 + $17 }' /proc/$$/stat
}

fmt='%-18s %6s %10s %8s %6s %9s %7s %s\n'

# run_one TARGET: fuzz it and write its row to $out/TARGET.row; exits 1
# when it crashed or gave no figures. Run as its own process
# (FUZZ_LONG_ONE=1), so that its CPU time is its own children's alone.
run_one() {
	t=$1
	n=${t#fuzz_}
	seeds=tests/fuzz/corpus/$n
	[ -d "$seeds" ] || seeds=tests/fuzz/corpus_$n
	if [ ! -d "$seeds" ] || [ ! -x "$bin/$t" ]; then
		echo "fuzz-long: no corpus or no binary for $t" >&2
		printf "$fmt" "$t" - ? ? - ? ? "no corpus or binary" >"$out/$t.row"
		return 1
	fi
	dir=$out/$t
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	cp "$seeds"/* "$dir/corpus/"
	echo "== $t: $secs s from $(ls "$dir/corpus" | wc -l) seeds"
	start=$(date +%s)
	cpu0=$(cpu_ticks)
	"$bin/$t" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1
	rc=$?
	cpu=$((($(cpu_ticks) - cpu0) / $(getconf CLK_TCK)))
	took=$(($(date +%s) - start))
	execs=$(stat_of number_of_executed_units "$dir/log")
	rate=$(stat_of average_exec_per_sec "$dir/log")
	nstat=$(grep -c '^stat::number_of_executed_units:' "$dir/log")
	if [ "$nstat" -gt 1 ]; then
		# Not fatal, but a child ran libFuzzer's handlers: say so.
		echo "fuzz-long: $t: $nstat stat blocks in its log (a forked child printed libFuzzer's stats)" >&2
	fi
	art=$(ls -d "$dir"/crash-* "$dir"/timeout-* "$dir"/leak-* \
		"$dir"/oom-* 2>/dev/null | head -n 1)
	crashes=$(cd "$dir" && ls -d crash-* timeout-* leak-* oom-* 2>/dev/null | wc -l)
	bad=0
	if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then
		# Died without an artifact (e.g. killed): still a failure.
		crashes=1
		art="exit $rc: $dir/log"
	elif [ "$execs" = '?' ] && [ "$crashes" = 0 ]; then
		art="no figures in $dir/log"
		bad=1
	fi
	[ "$crashes" = 0 ] || { bad=1; grep -m 3 -E 'ERROR|SUMMARY' "$dir/log"; }
	per_cpu=?
	[ "$execs" != '?' ] && [ "$cpu" -gt 0 ] && per_cpu=$((execs / cpu))
	printf "$fmt" "$t" "$took" "$execs" "$rate" "$cpu" "$per_cpu" \
		"$crashes" "$art" >"$out/$t.row"
	return $bad
}

if [ "${FUZZ_LONG_ONE:-}" = 1 ]; then
	run_one "$1"
	exit $?
fi

mkdir -p "$out"
jobs=${FUZZ_JOBS:-1}
case $jobs in
'' | *[!0-9]* | 0) echo "fuzz-long: FUZZ_JOBS must be a number of 1 or more, not '$jobs'" >&2; exit 2 ;;
esac
targets=$*
for t in $targets; do
	rm -f "$out/$t.row" "$out/$t.bad"
done
# Batches of FUZZ_JOBS: every target takes SECONDS (or less, at a
# crash), so batches keep the CPUs about as busy as a queue would.
set -- "$@" --
while [ "$1" != -- ]; do
	i=0
	while [ "$1" != -- ] && [ $i -lt "$jobs" ]; do
		(FUZZ_LONG_ONE=1 sh "$0" "$secs" "$bin" "$1" || : >"$out/$1.bad") &
		shift
		i=$((i + 1))
	done
	wait
done
# CPU seconds too: on a shared machine exec/s says more about the load
# than about the target, execs per CPU second less so.
printf "$fmt" target seconds execs exec/s cpu_s execs/cpu crashes artifact >"$table"
for t in $targets; do
	if [ -f "$out/$t.row" ]; then
		cat "$out/$t.row" >>"$table"
	else
		printf "$fmt" "$t" - ? ? - ? ? "no row: the run of it was lost" >>"$table"
		fail=1
	fi
	[ ! -f "$out/$t.bad" ] || fail=1
done
echo
cat "$table"
exit $fail
