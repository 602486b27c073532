# The loopback suite's core on the arm64 bed (check-arm64.sh), one boot:
# switch acm,ecm with bytes both ways over ACM, then ncm (cdc_ncm binds);
# adb shell and a push/pull round trip; mtp-sendfile and mtp-getfile
# round trips; the accessory handshake to 18d1:2d01. gadgetd and its
# plugins are the arm64 build, the host side is Debian's arm64 adb,
# mtp-tools and python3-usb. Runs in the guest.
. "$SRC/tests/loopback/lib.sh"

export HOME=/run/arm64-home
mkdir -p "$HOME"
say "arm64 guest: $(uname -m), kernel $(uname -r)"
check "the guest is aarch64" [ "$(uname -m)" = aarch64 ]
gd_install
# e_machine of the installed gadgetd: 0xb7 is EM_AARCH64.
check "the installed gadgetd is an arm64 ELF" \
	[ "$(od -An -tx1 -j18 -N2 /usr/sbin/gadgetd | tr -d ' ')" = b700 ]
# An emulated arm64 CPU on a shared machine: a worker may need more than
# the shipped 5 s to be ready.
gd_example lab
gd_config ready_timeout 30000
gd_start lab
VID=1d6b

say "switch acm,ecm; bytes over ACM"
check "gadgetctl switch acm,ecm" gd_switch acm,ecm
check "host sees $VID:0105" wait_usb $VID:0105 30
n=0; while [ ! -e /dev/ttyACM0 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done
check "host has /dev/ttyACM0, gadget /dev/ttyGS0" test -e /dev/ttyACM0 -a -e /dev/ttyGS0
stty -F /dev/ttyGS0 raw -echo clocal 2>/dev/null
stty -F /dev/ttyACM0 raw -echo clocal 2>/dev/null
check "bytes host->gadget arrive intact" serial_send /dev/ttyACM0 /dev/ttyGS0 4096 host-to-gadget 20
check "bytes gadget->host arrive intact" serial_send /dev/ttyGS0 /dev/ttyACM0 2048 gadget-to-host 20

say "switch ncm"
check "gadgetctl switch ncm" gd_switch ncm
check "host sees $VID:0107" wait_usb $VID:0107 30
ncm_bound() {
	n=0
	while [ $n -lt 100 ]; do
		for d in /sys/class/net/*; do
			[ "$(cat "$d/address" 2>/dev/null)" = "02:00:00:00:00:04" ] &&
				readlink "$d/device/driver" | grep -q cdc_ncm && return 0
		done
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
check "the host's interface is bound to cdc_ncm" ncm_bound

say "adb (auth off in lab): shell, push, pull"
check "gadgetctl switch mtp,adb" gd_switch mtp,adb
check "host sees $VID:010b" wait_usb $VID:010b 30
timeout 60 adb start-server >/dev/null 2>&1
check "adb wait-for-device" timeout 90 adb wait-for-device
check "adb shell answers" [ "$(timeout -k 5 60 adb shell uname -m </dev/null)" = aarch64 ]
head -c 1048576 /dev/urandom > push.bin
check "adb push 1 MiB" sh -c "timeout 300 adb push push.bin /run/pushed.bin >/dev/null"
check "pushed bytes arrived" cmp push.bin /run/pushed.bin
check "adb pull it back" sh -c "timeout 300 adb pull /run/pushed.bin pulled.bin >/dev/null"
check "pulled bytes are the same" cmp push.bin pulled.bin
timeout 10 adb kill-server >/dev/null 2>&1

say "MTP: mtp-sendfile, mtp-getfile"
head -c 524288 /dev/urandom > mtp.bin
timeout 300 mtp-sendfile mtp.bin / > send.txt 2>&1
cat send.txt
ID=$(sed -n 's/^New file ID: \([0-9]*\).*/\1/p' send.txt | tail -n 1)
check "mtp-sendfile gave a file ID ($ID)" test -n "$ID"
check "the file is in the storage" cmp mtp.bin /srv/mtp/mtp.bin
timeout 300 mtp-getfile "$ID" back.bin > get.txt 2>&1
cat get.txt
check "mtp-getfile bytes are the same" cmp mtp.bin back.bin

say "accessory handshake"
H="python3 $SRC/tests/loopback/aoa_host.py"
check "gadgetctl switch mtp,adb,aoa" gd_switch mtp,adb,aoa
check "host sees $VID:010d" wait_usb $VID:010d 30
check "the AOA handshake" timeout 90 $H handshake $VID:010d
check "the gadget re-enumerates as 18d1:2d01" wait_usb 18d1:2d01 30
finish
