#!/bin/sh
# How the mtp plugin's costs grow with the store (issue 39): a storage of
# N empty files, 250 to a folder, all folders at its root, for each N of
# MTP_SCALE_SIZES (1 000, 10 000 and 100 000), and an empty one first as
# the base. For each, a fresh worker (gadgetd-worker + mtp.so, the
# gadget composed by hand as b-mtp.sh does), then:
#   BENCH mtp_scale_N_connect_ms: a first connect (tests/bench/mtp_scale.py,
#     pyusb): OpenSession sent to the answer of GetObjectHandles of the
#     storage's root, libmtp's first question about objects
#   BENCH mtp_scale_N_proplist_ms: in the same session, GetObjectPropList of
#     the whole device (what libmtp asks when it opens a device cached),
#     sent to its response read: the worker's whole-device list and the
#     bus, without libmtp
#   BENCH mtp_scale_N_list_ms: mtp-folders, timed as b-mtp.sh's list()
#     times it: libmtp's start-up, its open and that same list
#   BENCH mtp_scale_N_files_ms: mtp-files (b-mtp.sh's list(): a walk, two
#     transactions an object), for N up to MTP_SCALE_FILES_MAX (1 000; the
#     walk's cost an object is b-mtp's mtp_files_obj_ms at 10 000 files,
#     and 10 000 here took 369 s on a loaded machine, 100 000 would take
#     an hour: past guest-bench.sh's 900 s)
#   BENCH mtp_scale_N_rss_kib / _anon_kib: the worker's RSS and anonymous
#     memory (smaps_rollup) after those listings, transparent huge pages
#     set to madvise for the time of the bench (see below)
#   BENCH mtp_scale_N_bytes_per_object: the anonymous memory less the
#     empty store's, in bytes per object (files and folders)
#   BENCH mtp_scale_N_marginal_bytes_per_object: the anonymous memory less
#     the last smaller size's, in bytes per object added
# ratios.py turns the times into cost per object between sizes.
# MTP_SCALE_BASES="NAME=DIR ..." also measures DIR/gadgetd-worker and
# DIR/plugins/mtp.so (builds of other commits) at each size, right after
# this build, as mtpNAME_scale_N_*. Where the memory lies (heap, other
# anonymous mappings, files) goes to b-scale-mtp.log.
# Runs in the guest (see run-bench.sh); needs SRC and B.
MTP_BENCH_LIB=1
. "$SRC/tests/bench/b-mtp.sh"
SIZES=${MTP_SCALE_SIZES:-1000 10000 100000}
FILES_MAX=${MTP_SCALE_FILES_MAX:-1000}
PER_DIR=250
S=/srv/mtpscale

# populate N: the store holds N files (adds what is missing; one python3,
# not N shell commands).
populate_to() {
	python3 - "$S" "$1" "$PER_DIR" <<'EOF' || return 1
import os, sys
root, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // per))
    if i % per == 0:
        os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "IMG_%08d.jpg" % i)
    if not os.path.exists(p):
        os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644))
EOF
}

# scale NAME N: one size's figures with $B's worker, as BENCH NAME_N_*
# (NAME_ANON0: the empty store's anonymous memory, set by scale NAME 0;
# NAME_ANONP and NAME_NP the last size's).
scale() {
	local p=$1 n=$2 folders=$(((${2} + PER_DIR - 1) / PER_DIR)) t0 t1 anon a0 ap np

	mtp_up storage0_path=$S storage0_description=Scale ||
		{ echo "FAIL: $p $n: the mtp gadget did not come up"; mtp_down; return 1; }
	timeout 600 python3 "$SRC/tests/bench/mtp_scale.py" $MTP_ID > $W/$p-$n.txt 2>&1
	cat $W/$p-$n.txt | sed "s/^/$p $n: /"
	get() { sed -n "s/^$1 //p" $W/$p-$n.txt; }
	[ "$(get handles)" = "$folders" ] ||
		{ echo "FAIL: $p $n: GetObjectHandles gave '$(get handles)' handles, not $folders"; mtp_down; return 1; }
	[ "$(get proplist_objs)" = $((n + folders)) ] ||
		{ echo "FAIL: $p $n: GetObjectPropList covered '$(get proplist_objs)' objects, not $((n + folders))"; mtp_down; return 1; }
	echo "BENCH ${p}_${n}_connect_ms $(get connect_ms) ms"
	echo "BENCH ${p}_${n}_proplist_ms $(get proplist_ms) ms"
	t0=$(now)
	timeout 600 mtp-folders > $W/$p-$n-folders.txt 2>&1
	t1=$(now)
	# mtp-folders prints one line per folder, its ID first.
	[ "$(grep -c '^ *[0-9][0-9]*[[:space:]]' $W/$p-$n-folders.txt)" = "$folders" ] ||
		{ echo "FAIL: $p $n: mtp-folders did not list the $folders folders"; tail -n 3 $W/$p-$n-folders.txt; mtp_down; return 1; }
	echo "BENCH ${p}_${n}_list_ms $(((t1 - t0) / 1000000)) ms"
	if [ "$n" -le "$FILES_MAX" ]; then
		t0=$(now)
		timeout 600 mtp-files > $W/$p-$n-files.txt 2>&1
		t1=$(now)
		[ "$(grep -c '^File ID:' $W/$p-$n-files.txt)" = "$n" ] ||
			{ echo "FAIL: $p $n: mtp-files listed $(grep -c '^File ID:' $W/$p-$n-files.txt) files"; mtp_down; return 1; }
		echo "BENCH ${p}_${n}_files_ms $(((t1 - t0) / 1000000)) ms"
	fi
	echo "BENCH ${p}_${n}_rss_kib $(smaps Rss $MTP_WPID) KiB"
	anon=$(smaps Anonymous $MTP_WPID)
	echo "BENCH ${p}_${n}_anon_kib $anon KiB"
	grep -E '^(Rss|Pss|Private_Dirty|Anonymous|AnonHugePages):' /proc/$MTP_WPID/smaps_rollup | sed "s/^/$p $n: /"
	# The RSS by mapping: the heap, other anonymous memory, the files.
	awk -v pre="$p $n: rss kB" '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 ~ /^\[heap\]$/ ? "heap" : $6 == "" ? "anon" : $6 ~ /^\[/ ? $6 : "files" }
		$1 == "Rss:" { rss[name] += $2 }
		END { for (k in rss) printf "%s %s %d\n", pre, k, rss[k] }' /proc/$MTP_WPID/smaps
	if [ "$n" = 0 ]; then
		eval "${p}_ANON0=$anon ${p}_ANONP=$anon ${p}_NP=0"
	else
		eval "a0=\$${p}_ANON0 ap=\$${p}_ANONP np=\$${p}_NP"
		if [ "$anon" -lt "$a0" ] || [ "$anon" -lt "$ap" ]; then
			echo "FAIL: $p $n: anonymous memory $anon KiB, below a smaller store's ($a0, $ap)"
		else
			echo "BENCH ${p}_${n}_bytes_per_object $(((anon - a0) * 1024 / (n + folders))) B"
			echo "BENCH ${p}_${n}_marginal_bytes_per_object $(((anon - ap) * 1024 / (n + folders - np))) B"
		fi
		eval "${p}_ANONP=$anon ${p}_NP=$((n + folders))"
	fi
	mtp_down
}

gd_modules
mkdir -p $W $S
# A tmpfs of its own: files made in the guest's overlay cost more, and
# 100 000 empty files take about 100 MB of the guest's 3 GiB here.
mountpoint -q $S || timeout 10 mount -t tmpfs -o mode=0755 scale $S || die "no tmpfs on $S"
# scale_all N: this build's figures, then each other build's.
scale_all() {
	local b0=$B v rc=0

	scale mtp_scale $1 || return 1
	for v in ${MTP_SCALE_BASES:-}; do
		B=${v#*=}
		scale mtp${v%%=*}_scale $1 || rc=1
		B=$b0
	done
	return $rc
}
# Transparent huge pages off but where asked for (madvise), for the
# time of the bench: with them always on, the kernel may back a 2 MiB
# stretch of the worker's anonymous memory (a thread's malloc arena, a
# big mapped block) with one huge page, and the figure jumps by 2 MiB
# at random (2026-12-06: 2 424 KiB for the empty store in one boot, 388
# in three others). The figures count the pages the worker touches.
THP=/sys/kernel/mm/transparent_hugepage/enabled
THP0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $THP 2>/dev/null)
[ -z "$THP0" ] || echo madvise > $THP || die "cannot set $THP"
echo "transparent huge pages: $THP0, madvise for the bench"
scale_all 0 || die "the empty store"
for n in $SIZES; do
	t0=$(now)
	populate_to $n || die "could not make $n files"
	echo "$n: made in $(secs $(($(now) - t0))) s"
	scale_all $n || exit 1
done
umount $S
[ -z "$THP0" ] || echo "$THP0" > $THP
exit 0
