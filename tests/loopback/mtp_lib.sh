# Shell helpers for the MTP loopback test and benchmark, sourced in the
# guest after lib.sh: compose a gadget by hand with one FunctionFS
# instance served by gadgetd-worker + mtp.so (the way t-ffs-echo.sh
# does), and tear it down again.
#
#   mtp_up OPTS...   compose, start the worker with -o OPTS, bind, wait
#   mtp_down         stop the worker, unbind, remove the gadget
#   mtp_cmd ARGS...  gadgetctl-style command to the plugin (rc text)
#   mtp_file_id NAME LISTING   the File ID mtp-files gave NAME
#   mtp_temps DIR    how many upload temporary files DIR holds
#   mtp_avail DIR    the bytes free on DIR's file system
#   mtp_finish       check the worker survived and answers, mtp_down, finish
#   mtp_pattern WORD BYTES FILE  FILE made of numbered WORDs (never a valid
#                    container header, so what a cancelled host still
#                    sends is dropped as garbage)

# MTP_PLUGIN=ptp serves the ptp plugin (the same code, PTP's flavour).
MTP_PLUGIN=${MTP_PLUGIN:-mtp}
MTP_PY=/usr/bin/python3
MTP_T=$SRC/tests/loopback
MTP_FFS=/run/ffs-mtp
MTP_CTL=/run/ffs-mtp.ctl
MTP_WLOG=${MTP_WLOG:-/mnt/out/mtp-worker.log}
MTP_ID=1209:0002
MTP_WPID=

mtp_compose() {
	cfs_gadget -m gadgetd -p "gadgetd MTP" -s MTP00001 -c mtp -o 0xcd \
		gmtp 1209 0002 ffs.mtp || return 1
	mkdir -p $MTP_FFS
	timeout 10 mount -t functionfs -o no_disconnect=1 mtp $MTP_FFS
}

# mtp_up KEY=VALUE...: the options of the plugin.
mtp_up() {
	mtp_compose || { echo "compose failed"; return 1; }
	set -f
	opts=""
	for o in "$@"; do opts="$opts -o $o"; done
	out=$(timeout 30 $MTP_PY "$MTP_T/ffs_worker.py" start "$MTP_CTL" --timeout 20 -- \
		"$B/gadgetd-worker" -P "$B/plugins/$MTP_PLUGIN.so" -i $MTP_PLUGIN -d "$MTP_FFS" \
		${MTP_WFLAGS:-} $opts 2>>"$MTP_WLOG")
	rc=$?
	set +f
	[ $rc = 0 ] || { echo "worker did not get READY: $out"; tail -n 20 "$MTP_WLOG"; return 1; }
	set -- $out
	MTP_WPID=$2
	cfs_bind gmtp || return 1
	wait_usb $MTP_ID 15
}

mtp_cmd() {
	timeout 10 $MTP_PY "$MTP_T/ffs_worker.py" cmd "$MTP_CTL" "$@"
}

mtp_down() {
	[ -n "$MTP_WPID" ] && kill -TERM "$MTP_WPID" 2>/dev/null
	local n=0
	while [ -n "$MTP_WPID" ] && kill -0 "$MTP_WPID" 2>/dev/null && [ $n -lt 30 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -n "$MTP_WPID" ] && kill -KILL "$MTP_WPID" 2>/dev/null
	MTP_WPID=
	cfs_unbind gmtp
	timeout 10 umount $MTP_FFS 2>/dev/null
	cfs_teardown gmtp
	return 0
}

mtp_file_id() {
	grep -B1 "Filename: $1\$" "$2" | sed -n 's/^File ID: \([0-9]*\).*/\1/p' | head -n1
}

mtp_temps() {
	ls -A "$1" | grep -c '^\.gadgetd-mtp-'
}

mtp_avail() {
	stat -f -c '%a %S' "$1" | awk '{ print $1 * $2 }'
}

mtp_pattern() {
	awk -v w="$1" 'BEGIN { for (;;) printf "%s-%07d\n", w, n++ }' 2>/dev/null |
		head -c "$2" > "$3"
}

# mtp_finish: the worker survived the test and answers; stop it, finish.
mtp_finish() {
	say "the worker survived it all"
	STATS=$(mtp_cmd stats)
	echo "stats: $STATS"
	check "stats command answers" test "${STATS%% *}" = 0
	check "worker still running" kill -0 "$MTP_WPID"
	mtp_down
	finish
}
