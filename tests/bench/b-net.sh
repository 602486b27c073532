# TCP throughput over the USB network link with iperf3, for ncm, ecm and
# rndis, each set brought up by gadgetd from the installed profile (the
# board 10.77.0.1, the host's side in its own network namespace with the
# lease from gadgetd's dnsmasq, so the traffic crosses dummy_hcd). 5 s
# each way. Run it with b-sourcesink (make bench BENCH=b-net,b-sourcesink)
# to read it next to the SourceSink bound of the same VM run.
# Prints BENCH net_FN_{out,in}_mbps (MB/s; out: host -> board), and for
# each the busiest vCPU's busy share and its softirq part while iperf3
# ran, net_FN_{out,in}_vcpu_pct: both stacks share the guest, and one
# vCPU running nearly all the softirq work is what bounds the rate
# (docs/benchmarks.md, "USB networking").
# Then adb over TCP next to adb over USB, in the same run and through the
# same adb function (set ncm,adb of the installed profile, auth on, the
# host's key in its keys file): push and pull of 64 MiB between tmpfs on
# both ends, best of 2, as adb reports it: BENCH adb_tcp_{push,pull}_mbps
# (TCP over ncm) and adb_usb_{push,pull}_mbps (adb's own USB transport).
# Beside adb over TCP, in each round (ADB_TCP_BENCH_ROUNDS, 2), on that
# same link: iperf3 again (net_ncmadb_{out,in}_mbps), iperf3 with files
# at both ends as adb has them (64 MiB read from the same tmpfs file and
# written to one, -n 64M -F: net_ncmadb_file{out,in}_mbps), then adb 29's
# pattern between two small programs (tests/bench/adbtcp.c: a 24-byte
# header and 1 MiB of payload each written alone, then the wait for the
# 24-byte OKAY; the same files), best of 2: adbtcp_{out,in}_mbps, and
# with adb's client-server hop through TCP over the loopback on the
# host, adbtcphop_{out,in}_mbps. That is the bound of any device under
# adb 29 over TCP: what adb loses against it is the device's or adb's own
# server, what the bound loses against iperf3 is adb 29's pattern.
# Last in each round, Debian's adb 29 itself against the least daemon
# (tests/bench/adbmin.c on the board, port 5557: only what any adb daemon
# must do for the bytes; the same files), best of 2 as adb reports it:
# adbmin_tcp_{push,pull}_mbps; then the ceiling, adbmin -n (no work for
# the bytes at all; port 5558): adbnull_tcp_{push,pull}_mbps, the most
# any daemon can give adb 29 over this link, its own client and server
# included. Beside the least daemon's push, in the same round (the two
# in turn, the order alternating by round), adb 29's push to adbmin -s
# (port 5559), the least daemon with the push's DATA spliced from the
# socket through a pipe into the file (one copy fewer; issue 39: is that
# copy what keeps a push below the link?): adbmins_tcp_push_mbps.
# Then Debian's adb 34 (1:34.0.5, bookworm-backports, chrooted in
# build/adbd/root as t-adb34 runs it, its server on port 5041 in the
# host's namespace, with no /dev/bus/usb so that it leaves the USB link
# to adb 29's server) on the same link, the same 64 MiB best of 2 as adb
# reports it, pushed with -Z (adb 34 compresses a push by default, and
# the no-work daemon offers no compression; random bytes gain nothing):
# adb34_tcp_{push,pull}_mbps against gadgetd's adb, adb34null_tcp_*
# against adbmin -n. adb 34.0.5 offers delayed_ack only with
# ADB_DELAYED_ACK=1 in its server's environment (its CNXN has no
# delayed_ack otherwise: one WRTE in flight, as with adb 29), so a second
# adb 34 server (port 5042) runs with it: adb34da_tcp_{push,pull}_mbps
# against gadgetd's adb, which answers it (adbmin does not offer it).
# Once, after the rounds, the plugin's log lines for its TCP peers' CNXN
# and, from `strace` of each adb 34 server over one push of 16 MiB, how
# many WRTEs it had sent that the device had not yet acknowledged with an
# OKAY, at each WRTE it sent:
# adb34[da]_tcp_push_wrte_inflight_{median,max}.
# ratios.py takes the mean of the rounds.
# ADB_TCP_BENCH_BASES="NAME=DIR ..." also pushes and pulls over TCP, in
# each round with each DIR/plugins/adb.so (a build of another commit) in
# the worker, right after this build in odd rounds and right before it in
# even ones: adbNAME_tcp_{push,pull}_mbps, builds compared side by side
# in one boot (ratios.py compares NAME=base with this build).
# ADB_TCP_BENCH_STRACE=1 prints `strace -c -f` of the worker over one
# more push over TCP with this build's plugin and each base's.
. "$SRC/tests/loopback/lib.sh"
BOARD=10.77.0.1
NS=benchnet
export UDHCPC_OUT=/run/udhcpc.env
gd_install
export HOME=/run/b-net-home
mkdir -p "$HOME/.android"
timeout 60 adb keygen "$HOME/.android/adbkey" >/dev/null 2>&1 || die "adb keygen"
cat "$HOME/.android/adbkey.pub" >> /etc/gadgetd/adb_keys
ip link set lo up
timeout 10 ip netns add $NS || die "ip netns add"
ip -n $NS link set lo up
gd_start
timeout 10 iperf3 -s -D || die "iperf3 -s"


# iperf3 -J's received rate in MB/s.
rate() { jq '.end.sum_received.bits_per_second / 8000000 | . * 10 | round / 10'; }
# Each vCPU's busy and softirq ticks (/proc/stat cpuN lines).
vcpus() { awk '/^cpu[0-9]/ { printf "%d %d %d ", $2 + $3 + $4 + $7 + $8, $5 + $6, $8 }' /proc/stat; }
# busiest BEFORE AFTER: "busy% (softirq N%)" of the busiest vCPU.
busiest() {
	echo "$1 | $2" | awk '{
		n = (NF - 1) / 2
		for (i = 1; i <= n; i += 3) {
			b = $(n + 1 + i) - $i; id = $(n + 2 + i) - $(i + 1); si = $(n + 3 + i) - $(i + 2)
			t = b + id
			if (t > 0 && b / t >= best) { best = b / t; bs = si / t }
		}
		printf "%.0f %% (softirq %.0f %%)", 100 * best, 100 * bs }'
}

for fn in ncm ecm rndis; do
	case $fn in
	ncm) set=ncm mac=02:00:00:00:00:04 ;;
	ecm) set=acm,ecm mac=02:00:00:00:00:02 ;;
	rndis) set=rndis,adb mac=02:00:00:00:00:06 ;;
	esac
	gd_switch "$set"
	hif=$(netif_by_mac $mac) || die "$fn: no host-side interface"
	ip link set "$hif" netns $NS && ip -n $NS link set "$hif" up || die "$fn: netns"
	ip netns exec $NS timeout 15 busybox udhcpc -i "$hif" -n -q -t 10 -T 1 \
		-s "$SRC/tests/loopback/udhcpc.sh" >/dev/null 2>&1 || die "$fn: no lease"
	c0=$(vcpus)
	out=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -J | rate) || die "$fn: iperf3 out"
	c1=$(vcpus)
	in=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -R -J | rate) || die "$fn: iperf3 in"
	c2=$(vcpus)
	echo "BENCH net_${fn}_out_mbps $out MB/s"
	echo "BENCH net_${fn}_in_mbps $in MB/s"
	echo "BENCH net_${fn}_out_vcpu_pct $(busiest "$c0" "$c1")"
	echo "BENCH net_${fn}_in_vcpu_pct $(busiest "$c1" "$c2")"
done

# adb in the host's namespace: one server there sees the board over USB
# (not namespaced) and over TCP.
hadb() { ip netns exec $NS timeout 120 adb "$@"; }
# The figure adb prints ("... 123.4 MB/s (67108864 bytes in 0.5s)").
adb_rate() { sed -n 's/.* \([0-9.]*\) MB\/s (.*/\1/p' | tail -n 1; }
best() { printf '%s\n%s\n' "$1" "$2" | sort -g | tail -n 1; }
# adb_xfer SERIAL push|pull [null]: best of 2, MB/s; the bytes compared
# unless the daemon is adbmin -n (which stores nothing, reads nothing).
adb_xfer() {
	local a b
	if [ "$2" = push ]; then
		a=$(hadb -s "$1" push $D/src.bin $D/got.bin 2>&1 | adb_rate)
		b=$(hadb -s "$1" push $D/src.bin $D/got.bin 2>&1 | adb_rate)
		[ "${3:-}" = null ] || cmp -s $D/src.bin $D/got.bin || die "adb push over $1: bytes differ"
	else
		a=$(hadb -s "$1" pull $D/src.bin $D/pulled.bin 2>&1 | adb_rate)
		b=$(hadb -s "$1" pull $D/src.bin $D/pulled.bin 2>&1 | adb_rate)
		[ "${3:-}" = null ] || cmp -s $D/src.bin $D/pulled.bin || die "adb pull over $1: bytes differ"
	fi
	[ -n "$a" ] && [ -n "$b" ] || die "adb $2 over $1 failed"
	best "$a" "$b"
}
wait_adb() {
	local end=$(($(date +%s) + 30))
	while [ "$(date +%s)" -lt $end ]; do
		hadb devices | grep -q "^$1[[:space:]]*device\$" && return 0
		hadb connect "$1" >/dev/null 2>&1
		sleep 0.5
	done
	hadb devices
	return 1
}
PLUGIN=/usr/lib/gadgetd/adb.so
D=/run/b-net
mkdir -p $D
# iperf3 with files at both ends, as adb has: a second server that
# stores what it receives in $D/iperf-srv.bin and sends that file back.
timeout 10 iperf3 -s -p 5202 -D -F $D/iperf-srv.bin || die "iperf3 -s -p 5202 -F"
# adb 34 in its root, which sees $D as /w. Its /dev is a few nodes of its
# own: without /dev/bus/usb adb 34's server does not take the USB
# interface from adb 29's.
R=$B/adbd/root
[ -x "$R/usr/lib/android-sdk/platform-tools/adb" ] ||
	die "no adb 34 in $R (make bench makes it: tests/vm/mkadbd.sh)"
mkdir -p "$R/w" || die "$R/w"
mount --bind $D "$R/w" && mount -t tmpfs -o size=1m tmpfs "$R/dev" &&
	mount -t proc proc "$R/proc" || die "cannot mount /w, /dev and /proc in $R"
for n in null:1:3 zero:1:5 random:1:8 urandom:1:9 tty:5:0; do
	mknod -m 666 "$R/dev/${n%%:*}" c "$(echo $n | cut -d: -f2)" "${n##*:}" || die "mknod $n"
done
mkdir -p $D/home34/.android && cp "$HOME/.android/adbkey" "$HOME/.android/adbkey.pub" $D/home34/.android/ ||
	die "adb 34's key"
# a34run PORT DELAYED_ACK ARGS...: adb 34 with its server on PORT, and
# ADB_DELAYED_ACK (0 or 1) for a server it starts.
a34run() {
	local port=$1 da=$2
	shift 2
	ip netns exec $NS env ANDROID_ADB_SERVER_PORT=$port ADB_DELAYED_ACK=$da HOME=/w/home34 \
		timeout 120 chroot "$R" adb "$@"
}
a34() { a34run 5041 0 "$@"; }
a34da() { a34run 5042 1 "$@"; }
a34_cleanup() {
	a34 kill-server >/dev/null 2>&1
	a34da kill-server >/dev/null 2>&1
	umount "$R/w" "$R/dev" "$R/proc" 2>/dev/null
}
a34 version | grep -q '^Version 34\.' || die "adb in $R is not adb 34: $(a34 version)"
cp $PLUGIN $D/adb-this.so || die "$PLUGIN"
# ncmadb_up SO: the set ncm,adb with SO as the adb plugin (a worker
# started anew), its host side in the namespace with a lease, adb on it
# over USB ($usb) and over TCP.
ncmadb_up() {
	# The switch takes the link down under the old TCP connection, whose
	# end the host would not hear of: adb would still list it as a
	# device, and fail the next push on it.
	hadb disconnect $BOARD:5555 >/dev/null 2>&1
	hadb disconnect $BOARD:5557 >/dev/null 2>&1
	hadb disconnect $BOARD:5558 >/dev/null 2>&1
	hadb disconnect $BOARD:5559 >/dev/null 2>&1
	a34 disconnect >/dev/null 2>&1
	a34da disconnect >/dev/null 2>&1
	if ! cmp -s "$1" $PLUGIN; then
		# A new file: the running worker keeps the one it mapped.
		cp "$1" $PLUGIN.new && chmod 644 $PLUGIN.new &&
			mv $PLUGIN.new $PLUGIN || die "cp $1"
		gd_switch ncm
	fi
	# A loaded machine has made a new worker miss gadgetd's 5 s for
	# its ready: once more before giving up.
	timeout 60 gadgetctl switch ncm,adb || gd_switch ncm,adb
	hif=$(netif_by_mac 02:00:00:00:00:04) || die "ncm,adb: no host-side interface"
	ip link set "$hif" netns $NS && ip -n $NS link set "$hif" up || die "ncm,adb: netns"
	ip netns exec $NS timeout 15 busybox udhcpc -i "$hif" -n -q -t 10 -T 1 \
		-s "$SRC/tests/loopback/udhcpc.sh" >/dev/null 2>&1 || die "ncm,adb: no lease"
	usb=$(hadb devices | awk 'NR > 1 && $1 !~ /:/ && $2 == "device" { print $1; exit }')
	[ -n "$usb" ] || { sleep 3; usb=$(hadb devices | awk 'NR > 1 && $1 !~ /:/ && $2 == "device" { print $1; exit }'); }
	[ -n "$usb" ] || { hadb devices; die "adb: no USB device"; }
	wait_adb $BOARD:5555 || die "adb connect $BOARD:5555"
}
ncmadb_up $D/adb-this.so
# The board's adb runs as gadgetd-adb: a folder it may write.
mkdir -p $D && chown gadgetd-adb $D || die "$D"
head -c 67108864 /dev/urandom > $D/src.bin
[ -x "$B/adbtcp" ] || die "$B/adbtcp missing (make bench builds it)"
"$B/adbtcp" serve 5556 $D/src.bin $D/bound.in &
bound_pid=$!
[ -x "$B/adbmin" ] || die "$B/adbmin missing (make bench builds it)"
"$B/adbmin" tcp 5557 >/dev/null &
min_pid=$!
"$B/adbmin" -n tcp 5558 >/dev/null &
min_pid="$min_pid $!"
"$B/adbmin" -s tcp 5559 >/dev/null &
min_pid="$min_pid $!"
trap 'kill $bound_pid $min_pid 2>/dev/null; a34_cleanup' EXIT
# bound MODE: adb 29's pattern over the same link, best of 2, MB/s.
bound() {
	local a b f=$D/src.bin
	case $1 in *pull) f=$D/bound.back ;; esac
	a=$(ip netns exec $NS timeout 120 "$B/adbtcp" "$1" $BOARD 5556 67108864 1048576 $f) || die "adbtcp $1"
	b=$(ip netns exec $NS timeout 120 "$B/adbtcp" "$1" $BOARD 5556 67108864 1048576 $f) || die "adbtcp $1"
	case $1 in
	*push) cmp -s $D/src.bin $D/bound.in || die "adbtcp $1: bytes differ" ;;
	*) cmp -s $D/src.bin $D/bound.back || die "adbtcp $1: bytes differ" ;;
	esac
	best "$a" "$b"
}
# a34_differ A34 WHAT FILE: FILE is not src.bin: what adb 34 printed,
# where the bytes differ and its server's log, to the log; then die.
a34_differ() {
	{
		echo "adb 34 ($1) $2: $3 differs from src.bin:"
		cat $D/a34-out.txt
		ls -l $D/src.bin "$3"
		cmp $D/src.bin "$3"
		echo "bytes that differ: $(cmp -l $D/src.bin "$3" 2>/dev/null | wc -l)"
		echo "adb 34's server log (last 30 lines):"
		tail -n 30 "$R"/tmp/adb.*.log
	} >&2
	die "adb 34 ($1) $2: the file differs or is missing (see above)"
}
# adb34_xfer A34 SERIAL push|pull [null]: adb_xfer with adb 34 (A34:
# a34 or a34da; push -Z), each file compared after each transfer.
adb34_xfer() {
	local a b c=$1 i
	shift
	for i in 1 2; do
		if [ "$2" = push ]; then
			$c -s "$1" push -Z /w/src.bin $D/got.bin > $D/a34-out.txt 2>&1
			echo "(adb exited $?; 124: ended by timeout)" >> $D/a34-out.txt
			[ "${3:-}" = null ] || cmp -s $D/src.bin $D/got.bin ||
				a34_differ $c "push over $1" $D/got.bin
		else
			$c -s "$1" pull $D/src.bin /w/pulled.bin > $D/a34-out.txt 2>&1
			echo "(adb exited $?; 124: ended by timeout)" >> $D/a34-out.txt
			[ "${3:-}" = null ] || cmp -s $D/src.bin $D/pulled.bin ||
				a34_differ $c "pull over $1" $D/pulled.bin
		fi
		if [ $i = 1 ]; then a=$(adb_rate < $D/a34-out.txt); else b=$(adb_rate < $D/a34-out.txt); fi
	done
	[ -n "$a" ] && [ -n "$b" ] || die "adb 34 ($c) $2 over $1 failed"
	best "$a" "$b"
}
# wait_a34 A34 SERIAL: connected and "device" within 30 s.
wait_a34() {
	local end=$(($(date +%s) + 30))
	while [ "$(date +%s)" -lt $end ]; do
		$1 devices | grep -q "^$2[[:space:]]*device\$" && return 0
		$1 connect "$2" >/dev/null 2>&1
		sleep 0.5
	done
	$1 devices
	return 1
}
# bases_tcp: each ADB_TCP_BENCH_BASES build's push and pull, then this
# build's plugin back.
bases_tcp() {
	[ -n "${ADB_TCP_BENCH_BASES:-}" ] || return 0
	for v in $ADB_TCP_BENCH_BASES; do
		[ -f "${v#*=}/plugins/adb.so" ] || die "no ${v#*=}/plugins/adb.so"
		ncmadb_up "${v#*=}/plugins/adb.so"
		echo "BENCH adb${v%%=*}_tcp_push_mbps $(adb_xfer $BOARD:5555 push) MB/s"
		echo "BENCH adb${v%%=*}_tcp_pull_mbps $(adb_xfer $BOARD:5555 pull) MB/s"
	done
	ncmadb_up $D/adb-this.so
}
# ADB34_PULL_LOOP=N: instead of the rounds, N pulls of 64 MiB by adb 34
# as shipped (and, with ADB34_PULL_MIX=1, in each also a push of adb 34,
# a push and pull of adb 34 with delayed_ack and of adb 29), each file
# checked (adb's timeout 120 s): the open stall of docs/benchmarks.md ("10:34-11:30").
# ADB34_PULL_SWITCH=1: before each, a switch to ncm and back to ncm,adb
# (a new worker and link, as ADB_TCP_BENCH_BASES has between its pulls).
# At a failure, the sockets of port 5555 on both sides (ss), the worker's
# threads, 3 s of its strace and the logs, then on to the next.
# Prints BENCH adb34_tcp_pull_loop_failures.
loop_xfer() {
	local c=$1 dir=$2 l=/w z=-Z p t rc
	[ "$c" = hadb ] && l=$D z=
	rm -f $D/pulled.bin $D/got.bin
	if [ "$dir" = pull ]; then
		$c -s $BOARD:5555 pull $D/src.bin $l/pulled.bin > $D/loop.txt 2>&1 &&
			cmp -s $D/src.bin $D/pulled.bin
	else
		$c -s $BOARD:5555 push $z $l/src.bin $D/got.bin > $D/loop.txt 2>&1 &&
			cmp -s $D/src.bin $D/got.bin
	fi && return 0
	rc=$?
	echo "FAILED: $c $dir (exit $rc): $(tail -c 200 $D/loop.txt)"
	ss -tmie state all "( sport = :5555 or dport = :5555 )" 2>&1 | grep -v TIME-WAIT
	ip netns exec $NS ss -tmie state all "( sport = :5555 or dport = :5555 )" 2>&1 | grep -v TIME-WAIT
	p=$(gadgetctl status --json 2>/dev/null | jq -r '.plugins[] | select(.name == "adb") | .pid')
	for t in /proc/$p/task/*; do echo "$t: $(cat $t/wchan 2>/dev/null)"; done
	timeout 3 strace -f -tt -p "$p" 2>&1 | tail -n 30
	{ gd_log; cat "${GD_LOG:-/dev/null}"; } 2>/dev/null | tail -n 30
	tail -n 30 "$R"/tmp/adb.*.log
	$c connect $BOARD:5555 >/dev/null 2>&1
	return 1
}
if [ -n "${ADB34_PULL_LOOP:-}" ]; then
	wait_a34 a34 $BOARD:5555 || die "adb 34: connect $BOARD:5555"
	wait_a34 a34da $BOARD:5555 || die "adb 34 (ADB_DELAYED_ACK=1): connect $BOARD:5555"
	fails=0
	for i in $(seq "$ADB34_PULL_LOOP"); do
		if [ "${ADB34_PULL_SWITCH:-}" = 1 ]; then
			gd_switch ncm
			ncmadb_up $D/adb-this.so
			wait_a34 a34 $BOARD:5555 || die "adb 34: connect $BOARD:5555 after switch $i"
			wait_a34 a34da $BOARD:5555 || die "adb 34 (ADB_DELAYED_ACK=1): connect $BOARD:5555 after switch $i"
		fi
		for x in "a34 pull" ${ADB34_PULL_MIX:+"a34 push" "a34da push" "a34da pull" "hadb push" "hadb pull"}; do
			# shellcheck disable=SC2086
			loop_xfer $x || fails=$((fails + 1))
		done
		echo "loop $i: $fails failed so far" >&2
	done
	echo "BENCH adb34_tcp_pull_loop_failures $fails transfers"
	exit 0
fi
# stored FILE SIDE: iperf3 -F wrote at least 60 MB to FILE on SIDE. Only
# the size: iperf3 3.12's file is not a copy (14:56: 64 606 648 bytes
# written, not the start of src.bin), but it stores as many bytes.
stored() {
	local n
	n=$(stat -c %s "$1") && [ "$n" -ge 60000000 ] ||
		die "iperf3 -F: the $2's file has ${n:-no} bytes, not the 64 MiB sent"
	echo "iperf3 -F wrote $n bytes on the $2"
}
round=0
while [ $round -lt "${ADB_TCP_BENCH_ROUNDS:-2}" ]; do
	round=$((round + 1))
	out=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -J | rate) || die "ncm,adb: iperf3 out"
	in=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -R -J | rate) || die "ncm,adb: iperf3 in"
	echo "BENCH net_ncmadb_out_mbps $out MB/s"
	echo "BENCH net_ncmadb_in_mbps $in MB/s"
	# The same 64 MiB as adb, read from and written to files on tmpfs.
	out=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -p 5202 -n 64M -F $D/src.bin -J | rate) ||
		die "ncm,adb: iperf3 out with files"
	stored $D/iperf-srv.bin board
	cp $D/src.bin $D/iperf-srv.bin || die "cp src.bin iperf-srv.bin"
	in=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -p 5202 -n 64M -R -F $D/iperf-got.bin -J | rate) ||
		die "ncm,adb: iperf3 in with files"
	stored $D/iperf-got.bin host
	rm -f $D/iperf-got.bin
	echo "BENCH net_ncmadb_fileout_mbps $out MB/s"
	echo "BENCH net_ncmadb_filein_mbps $in MB/s"
	[ $((round % 2)) = 1 ] || bases_tcp
	echo "BENCH adb_tcp_push_mbps $(adb_xfer $BOARD:5555 push) MB/s"
	echo "BENCH adb_tcp_pull_mbps $(adb_xfer $BOARD:5555 pull) MB/s"
	[ $((round % 2)) = 0 ] || bases_tcp
	echo "BENCH adbtcphop_out_mbps $(bound hoppush) MB/s"
	echo "BENCH adbtcphop_in_mbps $(bound hoppull) MB/s"
	echo "BENCH adbtcp_out_mbps $(bound push) MB/s"
	echo "BENCH adbtcp_in_mbps $(bound pull) MB/s"
	wait_adb $BOARD:5557 || die "adb connect $BOARD:5557 (adbmin)"
	wait_adb $BOARD:5559 || die "adb connect $BOARD:5559 (adbmin -s)"
	if [ $((round % 2)) = 1 ]; then
		echo "BENCH adbmin_tcp_push_mbps $(adb_xfer $BOARD:5557 push) MB/s"
		echo "BENCH adbmins_tcp_push_mbps $(adb_xfer $BOARD:5559 push) MB/s"
	else
		echo "BENCH adbmins_tcp_push_mbps $(adb_xfer $BOARD:5559 push) MB/s"
		echo "BENCH adbmin_tcp_push_mbps $(adb_xfer $BOARD:5557 push) MB/s"
	fi
	echo "BENCH adbmin_tcp_pull_mbps $(adb_xfer $BOARD:5557 pull) MB/s"
	wait_adb $BOARD:5558 || die "adb connect $BOARD:5558 (adbmin -n)"
	echo "BENCH adbnull_tcp_push_mbps $(adb_xfer $BOARD:5558 push null) MB/s"
	echo "BENCH adbnull_tcp_pull_mbps $(adb_xfer $BOARD:5558 pull null) MB/s"
	wait_a34 a34 $BOARD:5555 || die "adb 34: connect $BOARD:5555"
	echo "BENCH adb34_tcp_push_mbps $(adb34_xfer a34 $BOARD:5555 push) MB/s"
	echo "BENCH adb34_tcp_pull_mbps $(adb34_xfer a34 $BOARD:5555 pull) MB/s"
	wait_a34 a34da $BOARD:5555 || die "adb 34 (ADB_DELAYED_ACK=1): connect $BOARD:5555"
	echo "BENCH adb34da_tcp_push_mbps $(adb34_xfer a34da $BOARD:5555 push) MB/s"
	echo "BENCH adb34da_tcp_pull_mbps $(adb34_xfer a34da $BOARD:5555 pull) MB/s"
	# adbmin serves one connection at a time: adb 29's server lets go.
	hadb disconnect $BOARD:5558 >/dev/null 2>&1
	wait_a34 a34 $BOARD:5558 || die "adb 34: connect $BOARD:5558 (adbmin -n)"
	echo "BENCH adb34null_tcp_push_mbps $(adb34_xfer a34 $BOARD:5558 push null) MB/s"
	echo "BENCH adb34null_tcp_pull_mbps $(adb34_xfer a34 $BOARD:5558 pull null) MB/s"
	a34 disconnect $BOARD:5558 >/dev/null 2>&1
done
# adb 34 and the plugin: delayed_ack in adb 34's CNXN, and the WRTEs it
# has in flight during a push (strace of its server: a write that starts
# with a WRTE header sends one, a read of an OKAY header acknowledges one).
echo "the plugin's log of its TCP peers' CNXN (adb 29's and adb 34's; cut at 255 bytes):"
{ gd_log; cat "${GD_LOG:-/dev/null}"; } 2>/dev/null | grep 'tcp peer connected:' |
	sed 's/.*tcp peer connected: //' | sort -u | sed 's/^/  /'
head -c 16777216 $D/src.bin > $D/src16.bin
# inflight A34 PORT NAME: the WRTEs in flight during one push of 16 MiB.
inflight() {
	local spid st n
	spid=$(pgrep -n -f "tcp:$2 fork-server") || die "no adb 34 server on port $2 to strace"
	timeout 300 strace -f -xx -s 4 -e trace=write,writev,sendto,sendmsg,read,readv,recvfrom,recvmsg \
		-p "$spid" -o $D/a34-strace.txt &
	st=$!
	sleep 1
	$1 -s $BOARD:5555 push -Z /w/src16.bin $D/got16.bin >/dev/null 2>&1 || die "adb 34 ($1) push under strace"
	kill -INT $st
	wait $st
	# One line a WRTE sent: how many are unacknowledged with it.
	awk '/(write|writev|sendto|sendmsg)\(.*"\\x57\\x52\\x54\\x45/ { print ++f }
		/(read|readv|recvfrom|recvmsg)(\(| resumed>).*"\\x4f\\x4b\\x41\\x59/ { if (f > 0) f-- }' \
		$D/a34-strace.txt | sort -n > $D/a34-inflight.txt
	n=$(wc -l < $D/a34-inflight.txt)
	[ "$n" -gt 0 ] || { head -n 40 $D/a34-strace.txt; die "no WRTE in the trace of adb 34's server ($1)"; }
	echo "BENCH $3_tcp_push_wrte_inflight_median $(sed -n "$(((n + 1) / 2))p" $D/a34-inflight.txt) WRTEs ($n sent)"
	echo "BENCH $3_tcp_push_wrte_inflight_max $(tail -n 1 $D/a34-inflight.txt) WRTEs"
}
inflight a34 5041 adb34
inflight a34da 5042 adb34da
rm -f $D/src16.bin $D/got16.bin $D/a34-strace.txt $D/a34-inflight.txt
# ADB_TCP_BENCH_STRACE=1: strace -c of the worker over one more push
# over TCP, with this build's plugin and with each base's (b-net.log).
if [ "${ADB_TCP_BENCH_STRACE:-}" = 1 ]; then
	for v in this=$D/adb-this.so ${ADB_TCP_BENCH_BASES:-}; do
		so=${v#*=}
		case $so in *.so) ;; *) so=$so/plugins/adb.so ;; esac
		ncmadb_up "$so"
		wpid=$(pgrep -n -f gadgetd-worker) || die "no worker to strace"
		timeout 120 strace -c -f -p "$wpid" -o $D/strace.txt &
		st=$!
		sleep 1
		hadb -s $BOARD:5555 push $D/src.bin $D/got.bin >/dev/null 2>&1 ||
			die "adb push over TCP under strace (${v%%=*})"
		kill -INT $st
		wait $st
		echo "strace -c of the worker (${v%%=*}), adb 29 push of 64 MiB over TCP:"
		cat $D/strace.txt
	done
	ncmadb_up $D/adb-this.so
fi
kill $bound_pid $min_pid
pkill -x iperf3
echo "BENCH adb_usb_push_mbps $(adb_xfer "$usb" push) MB/s"
echo "BENCH adb_usb_pull_mbps $(adb_xfer "$usb" pull) MB/s"
hadb kill-server >/dev/null 2>&1
a34_cleanup
rm -rf $D
