#!/bin/sh
# make bench: all benchmarks in one VM run, then the ratios.
# GADGETD_BENCH_ENV: VAR=VALUE words the guest sees, e.g.
# "BENCH_ONLY=b-switch MTP_BENCH_LIST_ONLY=1".
# The bench's VM has two vCPUs (GADGETD_VM_SMP), as every bench figure
# in docs/benchmarks.md was measured with: the host tool and gadgetd's
# worker each get one.
set -u
export GADGETD_VM_SMP=${GADGETD_VM_SMP:-2}
bed=${1:?usage: run-bench.sh BEDDIR OUTDIR}
out=${2:?usage: run-bench.sh BEDDIR OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
echo "bench: booting the test bed; every benchmark runs in this one VM" >&2
"$src/tests/vm/run.sh" "$bed" "$out" 3000 "SRC=$src B=$src/build ${GADGETD_BENCH_ENV:-} sh $here/guest-bench.sh" |
	tr -d '\r' | grep '^BENCH\|^##\|FATAL\|FAIL' | tee "$out/bench.txt"
# A run of every benchmark (no BENCH_ONLY) must give every figure.
case " ${GADGETD_BENCH_ENV:-} " in
*" BENCH_ONLY="*) whole= ;;
*) whole=--whole ;;
esac
python3 "$here/ratios.py" $whole "$out/bench.txt" || exit 1
# A benchmark that failed fails make bench, after the ratios of the rest.
if grep -q 'FATAL\|FAIL' "$out/bench.txt"; then
	echo "bench: failed:" >&2
	grep 'FATAL\|FAIL' "$out/bench.txt" >&2
	exit 1
fi
