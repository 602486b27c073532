#!/bin/sh
# Android Open Accessory throughput through gadgetd's accessory plugin:
# a pyusb host (tests/loopback/aoa_host.py) against a board application
# on the plugin's socket. Prints
#   BENCH accessory_host_to_board / accessory_board_to_host  MB/s
#   BENCH accessory_echo_roundtrip                            MB/s
# Runs in the guest (see run-bench.sh); needs SRC and B.
. "$SRC/tests/loopback/lib.sh"
H="python3 $SRC/tests/loopback/aoa_host.py"
SOCK=/run/gadgetd/accessory/accessory.sock
SIZE=${ACCESSORY_BENCH_BYTES:-33554432}

# run APP_MODE HOST_COMMAND BYTES [ARGS]: the board application in
# APP_MODE and the host (claiming 18d1:2d00 as soon as it appears) are
# started, then the handshake from acm,aoa switches; back to acm,aoa at
# the end.
run() {
	wait_usb 1d6b:0110 20 || die "no 1d6b:0110"
	timeout 300 $H app $SOCK header.txt "$1" "$3" > "app-$1.log" 2>&1 &
	timeout 300 $H "$2" 18d1:2d00 "$3" --wait 60 $4 > "host-$2.log" 2>&1 &
	host=$!
	timeout 30 $H handshake 1d6b:0110 > /dev/null || die "handshake"
	wait $host
	grep '^BENCH\|aoa_host' "host-$2.log"
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = 18d1:2d00 ] &&
			echo 0 > "$d/authorized"
	done
	wait_usb 1d6b:0110 20 || die "no revert"
}

gd_install
mkdir -p /etc/gadgetd/profiles
$H profile > /etc/gadgetd/profiles/aoatest.conf
gd_start aoatest
run sink send "$SIZE"
run source recv "$SIZE"
run echo exchange $((SIZE / 4)) --bench
gd_stop
