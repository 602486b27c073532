#!/bin/sh
# gadgetctl check refuses what gadgetd refuses at load without a board to
# ask: two network functions of one set whose subnets overlap, named by
# file and line (exit 5); the same functions in two sets pass.
# Usage: ctlcheck.sh GADGETCTL
set -u
ctl=${1:?usage: ctlcheck.sh GADGETCTL}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile() {
	cat > "$tmp/p.conf" <<END
gadget: { vendor_id = 1; product_id = 2;
  strings: { manufacturer = "m"; product = "p"; serial = "s"; }; };
functions: {
  ncm: { type = "ncm"; address = "10.12.0.1/24"; };
  rndis: { type = "rndis"; address = "10.12.0.9/24"; };
};
sets = ( $1 );
END
}
bad=0
profile '{ functions = [ "ncm", "rndis" ]; }'
"$ctl" check "$tmp/p.conf" > "$tmp/out" 2>&1
rc=$?
want="$tmp/p.conf:5: functions.rndis.address: 10.12.0.9/24 overlaps functions.ncm.address (10.12.0.1/24), in set 1 with it"
if [ $rc != 5 ] || ! grep -qxF "$want" "$tmp/out"; then
	echo "ctlcheck: a clash in one set: exit $rc, output:"; cat "$tmp/out"
	echo "ctlcheck: wanted exit 5 and: $want"
	bad=1
fi
profile '{ functions = [ "ncm" ]; }, { functions = [ "rndis" ]; product_id = 3; }'
if ! "$ctl" check "$tmp/p.conf" > "$tmp/out" 2>&1; then
	echo "ctlcheck: the same subnet in two sets refused:"; cat "$tmp/out"
	bad=1
fi
[ $bad = 0 ] && echo "ctlcheck: gadgetctl check refuses a subnet clash within a set, not across sets"
exit $bad
