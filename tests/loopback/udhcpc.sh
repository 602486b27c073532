#!/bin/sh
# busybox udhcpc's script for t-net.sh: applies the lease to the
# interface, as a host's DHCP client would, and records the options the
# board handed out (router, dns) in $UDHCPC_OUT. A router or DNS server
# would be applied too, so the test sees whether they were offered.
: "${UDHCPC_OUT:=/run/udhcpc.env}"
case $1 in
deconfig)
	ip -4 addr flush dev "$interface" ;;
bound | renew)
	ip -4 addr flush dev "$interface"
	ip addr add "$ip/${mask:-24}" dev "$interface"
	[ -n "${router:-}" ] && ip route add default via "${router%% *}" dev "$interface"
	{ echo "ip=$ip"; echo "mask=${mask:-}"; echo "router=${router:-}"; echo "dns=${dns:-}"; } > "$UDHCPC_OUT" ;;
esac
exit 0
