#!/bin/sh
# make check-cross-selftest (part of make unit): check-cross.sh against
# fake unit tests, with make, the cross tools and qemu-user faked on PATH,
# so it needs no cross toolchain (CROSS_HOST=1: no build root either). A
# test that fails once and would pass when run again must count as
# failed, run once, and fail the run; a run of passing tests must pass.
#   tests/vm/check-cross-selftest.sh
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0

mkdir -p "$tmp/bin"
for t in make aarch64-linux-gnu-gcc aarch64-linux-gnu-pkg-config; do
	printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/$t"
done
# qemu-user: runs the (host) test itself.
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/qemu-aarch64-static"
chmod +x "$tmp/bin"/*

# fake_tests DIR NAME...: test_ok passes; test_flaky fails on its first
# run and passes after; each run is logged in DIR/runs.
fake_tests() {
	d=$1
	shift
	mkdir -p "$d/cross-arm64/unit"
	for n in "$@"; do
		case $n in
		test_ok) body='exit 0' ;;
		test_flaky) body='[ -e "$0.ran" ] && exit 0; : >"$0.ran"; echo "[  FAILED  ] test_timing"; exit 1' ;;
		esac
		printf '#!/bin/sh\necho %s >>%s/runs\n%s\n' "$n" "$d" "$body" >"$d/cross-arm64/unit/$n"
		chmod +x "$d/cross-arm64/unit/$n"
	done
}

# expect WHAT RC DIR: check-cross.sh on DIR must exit RC.
expect() {
	PATH=$tmp/bin:$PATH CROSS_HOST=1 CROSS_SKIP= "$src/tests/vm/check-cross.sh" "$3" arm64 >"$3/out" 2>&1
	rc=$?
	if [ "$rc" = "$2" ]; then
		echo "ok: $1 (exit $rc)"
	else
		echo "FAIL: $1: exit $rc, expected $2"
		cat "$3/out"
		bad=1
	fi
}

fake_tests "$tmp/pass" test_ok
expect "passing tests pass" 0 "$tmp/pass"

fake_tests "$tmp/flaky" test_ok test_flaky
expect "a test that fails once fails the run" 1 "$tmp/flaky"
runs=$(grep -c test_flaky "$tmp/flaky/runs")
if [ "$runs" = 1 ]; then
	echo "ok: the failing test ran once"
else
	echo "FAIL: the failing test ran $runs times"
	bad=1
fi
if grep -q '^check-cross: 1 passed, 1 failed$' "$tmp/flaky/out"; then
	echo "ok: its summary counts it once: 1 passed, 1 failed"
else
	echo "FAIL: the summary does not say 1 passed, 1 failed:"
	cat "$tmp/flaky/out"
	bad=1
fi
exit $bad
