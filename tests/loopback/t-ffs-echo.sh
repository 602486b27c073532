#!/bin/sh
# The FunctionFS runtime on its own: a gadget composed by hand in ConfigFS
# with one FFS instance served by gadgetd-worker + the echo plugin, driven
# from the host side with pyusb. Covers: bind only after READY, control
# requests and stalls, MS OS descriptors, 8 MiB echo with throughput,
# commands over fd 3, kill -9 and restart under no_disconnect=1, SIGTERM,
# gadgetd hanging up, and SuperSpeed descriptors. Runs in the guest (see
# run-suite.sh); needs SRC and B.
# bed: light - the FunctionFS runtime alone, composed by hand (no gadgetd)
. "$SRC/tests/loopback/lib.sh"

PY=/usr/bin/python3
T=$SRC/tests/loopback
W=$B/gadgetd-worker
SO=$B/plugins/echo.so
FFS=/run/ffs-echo
CTL=/run/ffs-echo.ctl
WLOG=/mnt/out/worker.log
GD_LOG=$WLOG
ID=1209:0001
MSOS=0xcd
WPID= DPID=

# start_worker: run the worker behind ffs_worker.py, wait for READY.
start_worker() {
	out=$(timeout 30 $PY "$T/ffs_worker.py" start "$CTL" --timeout 20 -- \
		"$W" -P "$SO" -i echo -d "$FFS" -v 2>>"$WLOG") || return $?
	set -- $out
	[ "$1" = READY ] || return 1
	WPID=$2 DPID=$3
	echo "worker pid $WPID, stand-in gadgetd pid $DPID"
}

# gone PID [SECS]: the process exits (or is a zombie) within SECS.
gone() {
	local st n=$((${2:-5} * 10))
	while [ $n -gt 0 ]; do
		st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

bind() { cfs_bind g1; }
unbind() { cfs_unbind g1; }
bound() { cfs_bound g1; }
# host_echo ARGS...: echo_host.py's own exit status (a pipe into tee
# would give tee's under dash, which has no pipefail); its output is
# shown and kept in host.log.
host_echo() {
	timeout 180 $PY "$T/echo_host.py" "$ID" "$@" >/mnt/out/host.last 2>&1
	he_rc=$?
	cat /mnt/out/host.last
	cat /mnt/out/host.last >>/mnt/out/host.log
	return $he_rc
}
stat_field() { echo "$STATS" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

compose() {
	cfs_gadget -m gadgetd -p "ffs echo" -s ECHO0001 -c echo -o $MSOS \
		g1 1209 0001 ffs.echo || return 1
	mkdir -p $FFS
	timeout 10 mount -t functionfs -o no_disconnect=1 echo $FFS
}

: > "$WLOG"
gd_modules
say "compose g1 with ffs.echo"
check "compose the gadget and mount functionfs" compose
check_exit 1 "UDC bind is refused before the worker is READY" bind

say "start the worker"
check "worker sends READY" start_worker
[ -n "$WPID" ] || die "the worker did not start"
check "bind dummy_udc.0 after READY" bind
check "host sees $ID" wait_usb $ID
check "echo 8 MiB, control requests, MS OS descriptors" host_echo --mib 8 --msos $MSOS
STATS=$(timeout 10 $PY "$T/ffs_worker.py" cmd "$CTL" stats)
echo "stats: $STATS"
check "stats command answers rc 0" test "${STATS%% *}" = 0
check "stats: bytes in == bytes out" test "$(stat_field in)" = "$(stat_field out)"
check "stats: at least 8 MiB echoed" test "$(stat_field out)" -ge 8388608
check "stats: the host's lone ZLP was seen" test "$(stat_field zlp)" -ge 1
REPLY=$(timeout 10 $PY "$T/ffs_worker.py" cmd "$CTL" frobnicate)
check "unknown command: rc -EINVAL and a usage text" test "$REPLY" = "-22 usage: stats"
check "HOST 1 was reported to gadgetd" grep -q "HOST 1" "$CTL.log"

say "kill -9 the worker; no_disconnect=1 keeps the gadget"
kill -9 "$WPID"
check "worker is gone" gone "$WPID"
sleep 0.5
check "the gadget is still bound to the UDC" bound
check "the host still sees $ID" wait_usb $ID 2
# Debian 6.1's f_fs deadlocks when ep0 of a deactivated instance is
# reopened while the gadget is bound (ffs_ep0_open holds ffs->mutex and
# ffs_closed() unbinds the gadget, whose functionfs_unbind() takes it
# again). The worker refuses to open ep0 then; a restart is: unbind,
# start the worker, bind after READY.
check_exit 3 "a worker refuses to start while the gadget is bound (WORKER_EXIT_BOUND)" start_worker
check "it says to unbind first" grep -q "unbind it before starting a worker" "$WLOG"
check "the gadget is still bound after the refusal" bound
check "unbind before the restart" unbind
check "restarted worker sends READY" start_worker
check "bind again after READY" bind
check "host sees $ID again" wait_usb $ID
check "echo works after the restart" host_echo --mib 8 --no-control

say "SIGTERM stops the worker cleanly"
kill -TERM "$WPID"
check "worker exits on SIGTERM" gone "$WPID"
check "worker logged its stop" grep -q "Terminated: stopping" "$WLOG"

say "gadgetd hanging up makes the worker exit"
check "unbind before the restart" unbind
check "worker starts again" start_worker
check "bind again after READY" bind
check "host sees $ID again" wait_usb $ID
kill -9 "$DPID"
check "worker exits when fd 3 hangs up" gone "$WPID"
check "worker said why" grep -q "gadgetd closed fd 3" "$WLOG"

say "SuperSpeed"
unbind
timeout 10 rmmod dummy_hcd
timeout 30 modprobe dummy_hcd is_super_speed=1 || die "modprobe dummy_hcd is_super_speed=1"
check "worker starts for SuperSpeed" start_worker
check "bind at SuperSpeed" bind
check "host sees $ID at SuperSpeed" wait_usb $ID
check "echo at SuperSpeed (maxpacket 1024)" host_echo --mib 8 --no-control
check "SuperSpeed maxpacket is 1024" grep -q "maxpacket 1024" /mnt/out/host.last
kill -TERM "$WPID"
gone "$WPID"
unbind
timeout 10 umount $FFS
check "the gadget is removed" cfs_teardown g1
finish
