# What limits TCP over NCM on the bed (issue 24; docs/benchmarks.md).
# Not a b-* bench: one guest with b-net's setup (2 vCPUs, the host's
# side of the link in its own namespace), then iperf3 over ncm, ecm and
# rndis with the guest's CPU time (/proc/stat, all vCPUs and each),
# /proc/softirqs, packet counts, backlog drops and UDP receive-buffer
# errors taken around each run; MTU 576, UDP and qmult 20 too. No perf
# profile: `perf record -a` hung this TCG guest. Prints "PROBE case rate
# busy% ..." lines; PROBE_REPS (2) rounds of ncm and ecm each way. Run
# from the tree:
#   make -s install-files DESTDIR=$PWD/build/probe-stage PREFIX=/usr SYSCONFDIR=/etc
#   GADGETD_VM_SMP=2 /work/vmslot tests/vm/run.sh BED build/probe 1500 \
#     "SRC=$PWD B=$PWD/build GD_STAGE=$PWD/build/probe-stage sh $PWD/tests/bench/probe-net.sh"
. "$SRC/tests/loopback/lib.sh"
BOARD=10.77.0.1
NS=probenet
export UDHCPC_OUT=/run/udhcpc.env
T=${PROBE_SECS:-5}
gd_install
ip link set lo up
timeout 10 ip netns add $NS || die "ip netns add"
ip -n $NS link set lo up
gd_start
timeout 10 iperf3 -s -D || die "iperf3 -s"


# up SET MAC: the set switched to, its host side in $NS with a lease.
up() {
	gd_switch "$1" >/dev/null
	HIF=$(netif_by_mac "$2") || die "$1: no host-side interface"
	ip link set "$HIF" netns $NS && ip -n $NS link set "$HIF" up || die "$1: netns"
	ip netns exec $NS timeout 15 busybox udhcpc -i "$HIF" -n -q -t 10 -T 1 \
		-s "$SRC/tests/loopback/udhcpc.sh" >/dev/null 2>&1 || die "$1: no lease"
	BIF=$(cat /sys/kernel/config/usb_gadget/gadgetd/functions/*."${1##*,}"*/ifname 2>/dev/null | head -n1)
}

# The cpu lines of /proc/stat (all vCPUs, then each) as user+nice,
# system, idle+iowait, irq+softirq (USER_HZ ticks), on one line.
cpu() { awk '/^cpu/ { printf "%d %d %d %d ", $2 + $3, $4, $5 + $6, $7 + $8 }' /proc/stat; }
# share BEFORE AFTER: the busy share and its parts between two cpu
# lines, for all vCPUs and then each ("cpu0 busy% softirq%").
share() {
	echo "$1 | $2" | awk '{
		n = (NF - 1) / 2
		for (c = 0; c < n / 4; c++) {
			us = $(n + 2 + 4 * c) - $(1 + 4 * c); sy = $(n + 3 + 4 * c) - $(2 + 4 * c)
			id = $(n + 4 + 4 * c) - $(3 + 4 * c); si = $(n + 5 + 4 * c) - $(4 + 4 * c)
			t = us + sy + id + si
			if (t == 0) t = 1
			if (c == 0)
				printf "busy %3.0f%% (user %2.0f sys %2.0f irq+softirq %2.0f)", 100 * (t - id) / t, 100 * us / t, 100 * sy / t, 100 * si / t
			else
				printf " cpu%d %.0f/%.0f", c - 1, 100 * (t - id) / t, 100 * si / t
		}
	}'
}
# TIMER NET_TX NET_RX TASKLET HRTIMER softirqs, summed over the vCPUs.
sirq() { awk '$1 ~ /^(TIMER|NET_TX|NET_RX|TASKLET|HRTIMER):$/ { s = 0; for (i = 2; i <= NF; i++) s += $i; printf "%d ", s }' /proc/softirqs; }
# Drops in the backlog (softnet_stat's second column, all vCPUs, both
# namespaces share it) and UDP receive-buffer errors on each side.
drops() {
	local b=0 h x y z
	while read -r x y z; do b=$((b + 0x$y)); done < /proc/net/softnet_stat
	h=$(awk '/^Udp:/ { if (k) { print $6; exit } k = 1 }' /proc/net/snmp)
	echo "${b:-0} ${h:-0} $(ip netns exec $NS awk '/^Udp:/ { if (k) { print $6; exit } k = 1 }' /proc/net/snmp)"
}
pkts() { ip -n $NS -s link show dev "$HIF" | awk '/RX:/ { getline; rx = $2 } /TX:/ { getline; tx = $2 } END { print rx, tx }'; }

# run NAME IPERF3-ARGS...: one iperf3 from the host's side, the rate
# (receiver's, MB/s) and the guest's CPU share while it ran.
run() {
	local name=$1 c0 c1 s0 s1 p0 p1 d0 d1 j
	shift
	c0=$(cpu); s0=$(sirq); p0=$(pkts); d0=$(drops)
	j=$(ip netns exec $NS timeout 60 iperf3 -c $BOARD -t "$T" -J "$@") || { echo "PROBE $name iperf3 failed"; return 0; }
	c1=$(cpu); s1=$(sirq); p1=$(pkts); d1=$(drops)
	echo "$j" > "/mnt/out/$name.json"
	rate=$(echo "$j" | jq 'if .end.sum_received then .end.sum_received.bits_per_second else .end.sum.bits_per_second end | . / 8000000 | . * 10 | round / 10')
	lost=$(echo "$j" | jq -r '.end.sum.lost_percent // empty')
	echo "PROBE $(printf '%-22s %6.1f MB/s' "$name" "$rate")  $(share "$c0" "$c1")${lost:+  lost $lost%}"
	echo "$s0 $p0 $s1 $p1" | awk -v n="$name" '{
		printf "PROBE   %s: host side rx %d tx %d packets; softirqs TIMER %d NET_TX %d NET_RX %d TASKLET %d HRTIMER %d\n",
			n, $13 - $6, $14 - $7, $8 - $1, $9 - $2, $10 - $3, $11 - $4, $12 - $5 }'
	echo "$d0 $d1" | awk -v n="$name" '{ printf "PROBE   %s: backlog drops %d, UDP rcvbuf errors board %d host %d\n", n, $4 - $1, $5 - $2, $6 - $3 }'
}

REPS=${PROBE_REPS:-2}
# series FN: REPS rounds of TCP each way, UDP out (and in, over ncm),
# then TCP out at MTU 576 on both ends.
series() {
	local r=1
	while [ $r -le "$REPS" ]; do
		run "$1"_out
		run "$1"_in -R
		r=$((r + 1))
	done
	run "$1"_out_udp -u -b 0 -l 1400
	if [ "$1" = ncm ]; then run ncm_in_udp -R -u -b 0 -l 1400; fi
	ip link set "$BIF" mtu 576 && ip netns exec $NS ip link set "$HIF" mtu 576 && run "$1"_out_mtu576
	ip link set "$BIF" mtu 1500; ip netns exec $NS ip link set "$HIF" mtu 1500
}

say "ncm"
up ncm 02:00:00:00:00:04
grep -c ^processor /proc/cpuinfo | sed 's/^/PROBE vcpus /'
echo "PROBE f_ncm attrs: $(ls /sys/kernel/config/usb_gadget/gadgetd/functions/ncm.*/ | tr '\n' ' ')"
K=/sys/class/net/$HIF/cdc_ncm
for k in rx_max tx_max tx_timer_usecs min_tx_pkt ndp_to_end dwNtbInMaxSize dwNtbOutMaxSize; do
	echo "PROBE cdc_ncm $k=$(ip netns exec $NS cat "$K/$k" 2>/dev/null)"
done
echo "PROBE mtu board $(cat /sys/class/net/$BIF/mtu) host $(ip netns exec $NS cat /sys/class/net/$HIF/mtu) qmult $(cat /sys/kernel/config/usb_gadget/gadgetd/functions/ncm.*/qmult)"
idle0=$(cpu); sleep 3; idle1=$(cpu)
echo "PROBE idle 3 s: $(share "$idle0" "$idle1")"
series ncm

say "ecm"
up acm,ecm 02:00:00:00:00:02
series ecm
say "rndis"
up rndis,adb 02:00:00:00:00:06
run rndis_out
run rndis_in -R

# qmult 20 (u_ether's requests in flight: 2 x qmult at high speed).
sed -i "s/\(ncm: { type = \"ncm\";\)/\1 qmult = 20;/" /etc/gadgetd/profiles/android.conf
gd_switch acm >/dev/null
timeout 30 gadgetctl reload >/dev/null || die "gadgetctl reload"
up ncm 02:00:00:00:00:04
echo "PROBE qmult $(cat /sys/kernel/config/usb_gadget/gadgetd/functions/ncm.*/qmult)"
run ncm_out_qmult20
run ncm_in_qmult20 -R
sed -i "s/ qmult = 20;//" /etc/gadgetd/profiles/android.conf
gd_switch acm >/dev/null
timeout 30 gadgetctl reload >/dev/null || die "gadgetctl reload"
gd_stop
