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
# same link: iperf3 again (net_ncmadb_{out,in}_mbps), then adb 29's
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
# included.
# ratios.py takes the mean of the rounds.
# ADB_TCP_BENCH_BASES="NAME=DIR ..." also pushes and pulls over TCP, in
# each round right after this build, with each DIR/plugins/adb.so (a
# build of another commit) in the worker: adbNAME_tcp_{push,pull}_mbps,
# builds compared side by side in one boot (ratios.py compares
# NAME=base with this build).
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
trap 'kill $bound_pid $min_pid 2>/dev/null' EXIT
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
round=0
while [ $round -lt "${ADB_TCP_BENCH_ROUNDS:-2}" ]; do
	round=$((round + 1))
	out=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -J | rate) || die "ncm,adb: iperf3 out"
	in=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -R -J | rate) || die "ncm,adb: iperf3 in"
	echo "BENCH net_ncmadb_out_mbps $out MB/s"
	echo "BENCH net_ncmadb_in_mbps $in MB/s"
	echo "BENCH adb_tcp_push_mbps $(adb_xfer $BOARD:5555 push) MB/s"
	echo "BENCH adb_tcp_pull_mbps $(adb_xfer $BOARD:5555 pull) MB/s"
	echo "BENCH adbtcphop_out_mbps $(bound hoppush) MB/s"
	echo "BENCH adbtcphop_in_mbps $(bound hoppull) MB/s"
	echo "BENCH adbtcp_out_mbps $(bound push) MB/s"
	echo "BENCH adbtcp_in_mbps $(bound pull) MB/s"
	wait_adb $BOARD:5557 || die "adb connect $BOARD:5557 (adbmin)"
	echo "BENCH adbmin_tcp_push_mbps $(adb_xfer $BOARD:5557 push) MB/s"
	echo "BENCH adbmin_tcp_pull_mbps $(adb_xfer $BOARD:5557 pull) MB/s"
	wait_adb $BOARD:5558 || die "adb connect $BOARD:5558 (adbmin -n)"
	echo "BENCH adbnull_tcp_push_mbps $(adb_xfer $BOARD:5558 push null) MB/s"
	echo "BENCH adbnull_tcp_pull_mbps $(adb_xfer $BOARD:5558 pull null) MB/s"
	[ -n "${ADB_TCP_BENCH_BASES:-}" ] || continue
	for v in $ADB_TCP_BENCH_BASES; do
		[ -f "${v#*=}/plugins/adb.so" ] || die "no ${v#*=}/plugins/adb.so"
		ncmadb_up "${v#*=}/plugins/adb.so"
		echo "BENCH adb${v%%=*}_tcp_push_mbps $(adb_xfer $BOARD:5555 push) MB/s"
		echo "BENCH adb${v%%=*}_tcp_pull_mbps $(adb_xfer $BOARD:5555 pull) MB/s"
	done
	ncmadb_up $D/adb-this.so
done
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
rm -rf $D
