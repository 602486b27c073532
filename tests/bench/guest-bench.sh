#!/bin/sh
# Runs every benchmark in one guest boot, so their ratios compare like with
# like. Each b-*.sh prints "BENCH name value unit" lines.
: "${SRC:?}" "${B:?}"
export SRC B
cd /mnt/out || exit 1
# The ceiling runs first and last: the ratios use the mean of both, so a
# drift in the machine's load during the run shows and averages out.
ceiling=$SRC/tests/bench/b-ceiling.sh
for b in "$ceiling" $(ls "$SRC"/tests/bench/b-*.sh | grep -v b-ceiling.sh) "$ceiling"; do
	name=$(basename "$b" .sh)
	[ -e "/mnt/out/$name.log" ] && name=$name-2
	echo "## $name"
	mkdir -p "/mnt/out/$name"
	(cd "/mnt/out/$name" && GD_LOG=/mnt/out/$name/gadgetd.log timeout 900 sh "$b") 2>&1 | tee "/mnt/out/$name.log" | grep '^BENCH\|FATAL\|FAIL'
	# Leave nothing behind for the next benchmark.
	pkill -TERM gadgetd 2>/dev/null; pkill -TERM umtprd 2>/dev/null
	sleep 1
	for g in /sys/kernel/config/usb_gadget/*; do
		[ -d "$g" ] || continue
		echo "" > "$g/UDC" 2>/dev/null
	done
done
exit 0
