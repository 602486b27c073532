# TCP throughput over the USB network link with iperf3, for ncm, ecm and
# rndis, each set brought up by gadgetd from the installed profile (the
# board 10.77.0.1, the host's side in its own network namespace with the
# lease from gadgetd's dnsmasq, so the traffic crosses dummy_hcd). 5 s
# each way. Run it with b-sourcesink (make bench BENCH=b-net,b-sourcesink)
# to read it next to the SourceSink bound of the same VM run.
# Prints BENCH net_FN_{out,in}_mbps (MB/s; out: host -> board).
. "$SRC/tests/loopback/lib.sh"
BOARD=10.77.0.1
NS=benchnet
export UDHCPC_OUT=/run/udhcpc.env
gd_install
ip link set lo up
timeout 10 ip netns add $NS || die "ip netns add"
ip -n $NS link set lo up
gd_start
timeout 10 iperf3 -s -D || die "iperf3 -s"

# The host side's interface: the one with the function's host_addr.
host_if() {
	local d n=0
	while [ $n -lt 150 ]; do
		for d in /sys/class/net/*; do
			[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
		done
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}

# iperf3 -J's received rate in MB/s.
rate() { jq '.end.sum_received.bits_per_second / 8000000 | . * 10 | round / 10'; }

for fn in ncm ecm rndis; do
	case $fn in
	ncm) set=ncm mac=02:00:00:00:00:04 ;;
	ecm) set=acm,ecm mac=02:00:00:00:00:02 ;;
	rndis) set=rndis,adb mac=02:00:00:00:00:06 ;;
	esac
	gd_switch "$set" >/dev/null
	hif=$(host_if $mac) || die "$fn: no host-side interface"
	ip link set "$hif" netns $NS && ip -n $NS link set "$hif" up || die "$fn: netns"
	ip netns exec $NS timeout 15 busybox udhcpc -i "$hif" -n -q -t 10 -T 1 \
		-s "$SRC/tests/loopback/udhcpc.sh" >/dev/null 2>&1 || die "$fn: no lease"
	out=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -J | rate) || die "$fn: iperf3 out"
	in=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t 5 -R -J | rate) || die "$fn: iperf3 in"
	echo "BENCH net_${fn}_out_mbps $out MB/s"
	echo "BENCH net_${fn}_in_mbps $in MB/s"
done
pkill -x iperf3
