#!/bin/sh
# Android Open Accessory throughput through gadgetd's accessory plugin:
# a pyusb host (tests/loopback/aoa_host.py) against a board application
# on the plugin's socket. Prints
#   BENCH accessory_host_to_board / accessory_board_to_host  MB/s
#   BENCH accessory_echo_roundtrip                            MB/s
# Runs in the guest (see run-bench.sh); needs SRC and B.
. "$SRC/tests/loopback/lib.sh"
H="python3 $SRC/tests/loopback/aoa_host.py"
SOCK=/run/gadgetd/accessory.sock
SIZE=${ACCESSORY_BENCH_BYTES:-33554432}

# accessory MODE: handshake from acm,aoa and wait for 18d1:2d00 with a
# board application in MODE already waiting.
accessory() {
	wait_usb 1d6b:0110 20 || die "no 1d6b:0110"
	timeout 300 $H app $SOCK header.txt "$@" > app.log 2>&1 &
	timeout 30 $H handshake 1d6b:0110 > /dev/null || die "handshake"
	wait_usb 18d1:2d00 20 || die "no 18d1:2d00"
}

# Back to acm,aoa: the host lets go, the plugin reverts.
leave() {
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

accessory sink "$SIZE"
timeout 300 $H send 18d1:2d00 "$SIZE" | grep '^BENCH\|aoa_host'
leave
accessory source "$SIZE"
timeout 300 $H recv 18d1:2d00 "$SIZE" | grep '^BENCH\|aoa_host'
leave
accessory echo
timeout 300 $H exchange 18d1:2d00 $((SIZE / 4)) --bench | grep '^BENCH\|aoa_host'
leave
gd_stop
