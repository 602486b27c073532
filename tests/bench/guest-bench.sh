#!/bin/sh
# Runs every benchmark in one guest boot, so their ratios compare like with
# like. Each b-*.sh prints "BENCH name value unit" lines.
: "${SRC:?}" "${B:?}"
export SRC B
cd /mnt/out || exit 1
# The ceiling runs first and last: the ratios use the mean of both, so a
# drift in the machine's load during the run shows and averages out.
# BENCH_ONLY=b-switch,b-mtp (make bench BENCH=...) runs only those, still
# between the two ceilings.
ceiling=$SRC/tests/bench/b-ceiling.sh
benches=$(ls "$SRC"/tests/bench/b-*.sh | grep -v b-ceiling.sh)
if [ -n "${BENCH_ONLY:-}" ]; then
	want=" $(echo "$BENCH_ONLY" | tr ',' ' ') "
	sel=""
	for b in $benches; do
		case "$want" in *" $(basename "$b" .sh) "*) sel="$sel $b" ;; esac
	done
	[ -n "$sel" ] || { echo "FATAL: BENCH_ONLY=$BENCH_ONLY names no tests/bench/b-*.sh"; exit 1; }
	benches=$sel
fi
for b in "$ceiling" $benches "$ceiling"; do
	name=$(basename "$b" .sh)
	[ -e "/mnt/out/$name.log" ] && name=$name-2
	echo "## $name"
	mkdir -p "/mnt/out/$name"
	# A benchmark that stops early says so: its figures would only be
	# missing from the ratios.
	{ (cd "/mnt/out/$name" && GD_LOG=/mnt/out/$name/gadgetd.log timeout 900 sh "$b") 2>&1
		echo "BENCH-EXIT $?"; } | tee "/mnt/out/$name.log" | grep '^BENCH \|FATAL\|FAIL'
	rc=$(sed -n 's/^BENCH-EXIT //p' "/mnt/out/$name.log")
	[ "$rc" = 0 ] || echo "FAIL: $name exited ${rc:-?} (build/bench/$name.log)"
	# Leave nothing behind for the next benchmark.
	pkill -TERM gadgetd 2>/dev/null; pkill -TERM umtprd 2>/dev/null
	sleep 1
	for g in /sys/kernel/config/usb_gadget/*; do
		[ -d "$g" ] || continue
		echo "" > "$g/UDC" 2>/dev/null
	done
	# Nor the installed configuration and state: the next one installs
	# anew (b-hid's profile choice made b-net start on kvm.conf).
	rm -rf /etc/gadgetd /var/lib/gadgetd
done
exit 0
