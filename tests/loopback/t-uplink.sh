# The board's uplink shared with the PC (a network function's uplink =,
# profiles/examples/uplink.conf), with three network namespaces: "pc",
# the host side of the USB link (its interface moved there, so that its
# traffic crosses USB); the board, the root namespace where gadgetd runs
# from its unit; and "internet", behind a veth pair whose board end is
# the uplink eth0. The internet has a DNS server (dnsmasq) that the
# board's /etc/resolv.conf names, knowing www.example.test, and an
# address 203.0.113.10 routed by the board; it has no route back to the
# PC's subnet, so an answer reaching the PC proves the masquerade.
# gadgetd starts on set ecm before eth0 is there: the share fails, named
# in status and the journal, with no table and no forwarding left. Set
# ncm does not share: its lease has no router and no DNS, and the PC
# reaches nothing beyond the board. Set ecm, eth0 there, shares: the
# PC's lease carries the board as router and DNS, the PC pings
# 203.0.113.10 and opens a TCP connection there, and resolves
# www.example.test through the board; the internet cannot reach
# the PC even with a route to it, nor query the board's resolver, which
# listens on the link only; status says the share is on; the table
# inet gadgetd is there and eth0's and the link's IPv4 forwarding are on.
# A switch to ncm leaves nothing of the table or the forwarding;
# `gadgetctl off` and `systemctl stop` take the share away; a gadgetd killed with -9 leaves its table,
# which the next one (systemd's restart) removes before it shares again.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

BOARD=10.78.0.1
HOST=10.78.0.2
PC=pc
NET=internet
FAR=203.0.113.10
export UDHCPC_OUT=/run/udhcpc.env

gd_install
# The internet: the board's eth0 (198.51.100.2) to its inet0
# (198.51.100.1), a far address on its lo, and a DNS server there.
internet_up() {
	ip netns add $NET && ip -n $NET link set lo up &&
		ip link add eth0 type veth peer name inet0 netns $NET &&
		ip addr add 198.51.100.2/24 dev eth0 && ip link set eth0 up &&
		ip -n $NET addr add 198.51.100.1/24 dev inet0 && ip -n $NET link set inet0 up &&
		ip -n $NET addr add $FAR/32 dev lo &&
		ip route add default via 198.51.100.1 dev eth0 || return 1
	ip netns exec $NET dnsmasq --conf-file=/dev/null --no-resolv --no-hosts \
		--listen-address=198.51.100.1 --bind-interfaces --user=root \
		--host-record=www.example.test,$FAR --pid-file=/run/inet-dnsmasq.pid || return 1
	# The board's own resolver: the internet's.
	rm -f /etc/resolv.conf && echo "nameserver 198.51.100.1" > /etc/resolv.conf
}
ip netns add $PC && ip -n $PC link set lo up || die "ip netns add $PC"
# gadgetd starts on set ecm before the board has eth0.
gd_start uplink

# The host side's interface (MAC $1) into netns pc, and a lease.
pc_lease() {
	local hif
	hif=$(netif_by_mac "$1") || { echo "no host-side interface $1"; return 1; }
	ip link set "$hif" netns $PC && ip -n $PC link set "$hif" up || return 1
	rm -f "$UDHCPC_OUT"
	ip netns exec $PC timeout 15 busybox udhcpc -i "$hif" -n -q -t 10 -T 1 \
		-s "$SRC/tests/loopback/udhcpc.sh" >>/mnt/out/udhcpc.log 2>&1 || return 1
	cat "$UDHCPC_OUT"
	grep -qx "ip=$HOST" "$UDHCPC_OUT"
}

no_table() { ! nft list ruleset | grep -q "table inet gadgetd"; }
has_table() { nft list table inet gadgetd > /run/table.txt && grep -q masquerade /run/table.txt; }
# The board's interface of the bound set's network function.
link_if() { cat /sys/kernel/config/usb_gadget/gadgetd/functions/*."$1"/ifname 2>/dev/null; }
fwd() { cat "/proc/sys/net/ipv4/conf/$1/forwarding"; }
shared() { gd_status '.uplink_sharing | length == 1 and .[0].state == "on" and .[0].uplink == "eth0"'; }
# A TCP connection from the PC to a server in the internet.
tcp_far() {
	ip netns exec $NET timeout 10 busybox nc -l -p 8080 -e echo hello >/dev/null 2>&1 &
	sleep 0.5
	[ "$(ip netns exec $PC timeout 5 busybox nc $FAR 8080 </dev/null)" = hello ]
}
no_ping_far() { ! ip netns exec $PC ping -c 1 -W 2 $FAR; }
resolves() {
	local dns
	dns=$(sed -n 's/^dns=//p' "$UDHCPC_OUT")
	[ "$dns" = "$BOARD" ] || { echo "the lease's DNS: \"$dns\""; return 1; }
	ip netns exec $PC timeout 10 busybox nslookup www.example.test "$dns" > /run/ns.txt 2>&1
	cat /run/ns.txt
	grep -q "Address.*$FAR" /run/ns.txt
}
# The internet, given a route to the PC's subnet, cannot open a way in.
no_way_in() {
	ip -n $NET route add 10.78.0.0/24 via 198.51.100.2 || return 1
	! ip netns exec $NET ping -c 2 -W 2 $HOST
	local r=$?
	ip -n $NET route del 10.78.0.0/24 via 198.51.100.2
	return $r
}
# The board's resolver answers on the link only: every socket on port 53
# in the board's namespace is the link's (10.78.0.1, or IPv6 on usb0),
# and a query from the internet to the board's eth0 gets no answer.
dns_link_only() {
	local socks
	socks=$(ss -Hlun 'sport = :53' | awk '{ print $4 }')
	echo "port 53 on the board: $socks"
	[ -n "$socks" ] && ! echo "$socks" | grep -v -e '^10\.78\.0\.1[:%]' -e "%$LINK:" &&
		! ip netns exec $NET timeout 10 busybox nslookup www.example.test 198.51.100.2
}
gone() { no_table && [ "$(fwd eth0)" = 0 ]; }

failed_share() {
	gd_status '.uplink_sharing | length == 1 and .[0].state == "failed" and
		.[0].why == "no such uplink interface eth0"'
}
journal_says() { gd_log | grep -q "function ecm: not sharing the uplink with the host: no such uplink interface eth0"; }
say "set ecm with no eth0 yet: the share fails and leaves nothing"
check "status: ecm's share failed, no such uplink interface eth0" within_s 10 failed_share
check "the journal says why" journal_says
check "no table inet gadgetd" no_table
check "the link's IPv4 forwarding stays off" [ "$(fwd "$(link_if ecm)")" = 0 ]

check "the internet namespace behind eth0, with a DNS server" internet_up
check "eth0's IPv4 forwarding is off" [ "$(fwd eth0)" = 0 ]

say "set ncm: the same link without sharing"
gd_switch ncm
check "ncm: no table inet gadgetd, eth0's forwarding off" within_s 10 gone
check "ncm: status shows no share" gd_status '.uplink_sharing | length == 0'
check "ncm: the PC gets $HOST" pc_lease 02:00:00:00:01:04
check "ncm: the lease has no router and no DNS" grep -qx "router=" "$UDHCPC_OUT"
check "ncm: ... and no DNS" grep -qx "dns=" "$UDHCPC_OUT"
check "ncm: the PC has no default route" [ -z "$(ip -n $PC route show default)" ]
check "ncm: the PC cannot reach $FAR" no_ping_far

say "set ecm: sharing eth0"
gd_switch ecm
check "status: ecm shares eth0, on" within_s 10 shared
check "ecm: the PC gets $HOST with the board as router and DNS" pc_lease 02:00:00:00:01:02
check "ecm: the lease's router is the board" grep -qx "router=$BOARD" "$UDHCPC_OUT"
check "ecm: the PC's default route is the board" ip -n $PC route show default
check "ecm: the table inet gadgetd masquerades" has_table
cat /run/table.txt
LINK=$(link_if ecm)
check "ecm: IPv4 forwarding on for eth0 and $LINK" [ "$(fwd eth0)$(fwd "$LINK")" = 11 ]
check "ecm: the PC pings $FAR in the internet" ip netns exec $PC ping -c 2 -W 3 $FAR
check "ecm: the PC opens a TCP connection to $FAR:8080" tcp_far
check "ecm: the PC resolves www.example.test through the board" resolves
check "ecm: the internet cannot reach the PC" no_way_in
check "ecm: the board's resolver serves the link only" dns_link_only

say "a switch away: ncm"
gd_switch ncm
check "ncm: no table inet gadgetd, eth0's forwarding off again" within_s 10 gone
check "ncm: status shows no share" gd_status '.uplink_sharing | length == 0'

say "back to ecm, then off"
gd_switch ecm
check "ecm again: shared" within_s 10 shared
check "ecm again: the table is back" within_s 10 has_table
timeout 30 gadgetctl off || fail "gadgetctl off"
check "off: no table, eth0's forwarding off again" within_s 10 gone

say "a gadgetd killed with -9 leaves its table: the next one removes it"
gd_switch ecm
check "ecm: the table is there" within_s 10 has_table
OLD=$(systemctl show -p MainPID --value gadgetd.service)
kill -9 "$OLD"
restarted() {
	local pid
	pid=$(systemctl show -p MainPID --value gadgetd.service)
	[ -n "$pid" ] && [ "$pid" != 0 ] && [ "$pid" != "$OLD" ] &&
		gd_log | grep -q "removed nftables table inet gadgetd, left by an earlier gadgetd"
}
check "the next gadgetd removed the leftover table" within_s 30 restarted
check "... and shares again from a table of its own" within_s 20 shared
timeout 60 systemctl stop gadgetd.service
check "systemctl stop: no table, eth0's forwarding off again" gone
kill "$(cat /run/inet-dnsmasq.pid)" 2>/dev/null
finish
