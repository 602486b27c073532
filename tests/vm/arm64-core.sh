# The loopback suite's core on the arm64 bed (check-arm64.sh), one boot:
# switch acm,ecm with bytes both ways over ACM, then ncm (cdc_ncm binds);
# adb shell and a push/pull round trip; mtp-sendfile and mtp-getfile
# round trips; the accessory handshake to 18d1:2d01; files over 4 GiB
# (sparse) and dates after 2038 through adb sync and MTP; then the unit
# tests qemu-user cannot run. gadgetd and its plugins are the ARCH build
# (arm64, or armhf: 32-bit on the 64-bit kernel), the host side is
# Debian's arm64 adb, mtp-tools, libmtp and python3-usb. Runs in the guest.
. "$SRC/tests/loopback/lib.sh"

ARCH=${ARCH:-arm64}
export HOME=/run/arm64-home
mkdir -p "$HOME"
say "arm64 guest: $(uname -m), kernel $(uname -r), gadgetd for $ARCH"
check "the guest is aarch64" [ "$(uname -m)" = aarch64 ]
gd_install
# ELF class and e_machine of the installed binaries: 2 and 0xb7 is
# EM_AARCH64, 1 and 0x28 EM_ARM.
case $ARCH in
arm64) elf="02 b700" ;;
armhf) elf="01 2800" ;;
*) die "ARCH $ARCH: arm64 or armhf" ;;
esac
for f in /usr/sbin/gadgetd /usr/bin/gadgetctl /usr/libexec/gadgetd/gadgetd-worker; do
	check "$f is an $ARCH ELF" [ "$(od -An -tx1 -j4 -N1 "$f" | tr -d ' ') $(od -An -tx1 -j18 -N2 "$f" | tr -d ' ')" = "$elf" ]
done
gd_example lab
# Android's MTP extension: GetPartialObject64, SendPartialObject and
# TruncateObject carry 64-bit offsets (the big-file checks below).
sed -i 's/^\( *\)storage0_create = true;/&\n\1android_extension = true;/' /etc/gadgetd/profiles/lab.conf
check "the lab profile turns android_extension on" grep -q 'android_extension = true;' /etc/gadgetd/profiles/lab.conf
# An emulated arm64 CPU on a shared machine: a worker may need more than
# the shipped 5 s to be ready.
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
check "adb shell answers" [ "$(timeout -k 5 60 adb shell uname -m </dev/null)" = "$(uname -m)" ]
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

say "files over 4 GiB, dates after 2038 ($ARCH)"
# 5 GiB + 4 KiB, sparse: a random MiB at the start and 4 KiB at the end.
BIG=$((5 * 1024 * 1024 * 1024 + 4096))
MT=2208988800 # 2040-01-01 00:00:00 UTC
head -c 4096 /dev/urandom > tail.bin
mk_big() {
	rm -f "$1"
	truncate -s $((BIG - 4096)) "$1" &&
		dd if=tail.bin of="$1" bs=4096 seek=$(((BIG - 4096) / 4096)) conv=notrunc status=none &&
		head -c 1048576 /dev/urandom | dd of="$1" conv=notrunc status=none &&
		touch -d @$MT "$1"
}
# block_is FILE OFFSET EXPECTED: FILE's 4 KiB at OFFSET are EXPECTED's.
block_is() {
	dd if="$1" bs=4096 skip=$(($2 / 4096)) count=1 status=none | cmp - "$3"
}
check "a sparse $BIG-byte file for adb" mk_big /run/adb-big.bin
check "adb sync: STA2, LST2, LIS2 give the 64-bit size and the 2040 mtime, RCV2 streams it" \
	timeout 120 python3 "$SRC/tests/loopback/adb_wire.py" bigfile $VID:010b /run/adb-big.bin $BIG $MT
check "a sparse $BIG-byte file in the MTP storage" mk_big /srv/mtp/big.bin
chown --reference=/srv/mtp /srv/mtp/big.bin
M="timeout 120 python3 $SRC/tests/loopback/mtp_host.py"
$M find big.bin > find.txt 2>&1
cat find.txt
ID=$(sed -n 's/^id \([0-9]*\) .*/\1/p' find.txt)
check "libmtp lists big.bin with its size, $BIG, and mtime $MT" \
	grep -qx "id $ID size $BIG mtime $MT" find.txt
$M getpart "$ID" $((BIG - 4096)) 4096 part.bin
check "GetPartialObject64 at 5 GiB reads the board's last 4 KiB" cmp part.bin tail.bin
head -c 4096 /dev/urandom > patch.bin
$M sendpart "$ID" $((BIG - 8192)) patch.bin
check "SendPartialObject at 5 GiB wrote there" block_is /srv/mtp/big.bin $((BIG - 8192)) patch.bin
check "and left the size as it was" [ "$(stat -c %s /srv/mtp/big.bin)" = $BIG ]
$M truncate "$ID" $((6 * 1024 * 1024 * 1024))
check "TruncateObject to 6 GiB" [ "$(stat -c %s /srv/mtp/big.bin)" = $((6 * 1024 * 1024 * 1024)) ]
check "the 4 KiB at 5 GiB are still the old last ones" block_is /srv/mtp/big.bin $((BIG - 4096)) tail.bin
rm -f /srv/mtp/big.bin /run/adb-big.bin

say "accessory handshake"
H="python3 $SRC/tests/loopback/aoa_host.py"
check "gadgetctl switch mtp,adb,aoa" gd_switch mtp,adb,aoa
check "host sees $VID:010d" wait_usb $VID:010d 30
check "the AOA handshake" timeout 90 $H handshake $VID:010d
check "the gadget re-enumerates as 18d1:2d01" wait_usb 18d1:2d01 30
gd_stop

# The unit tests qemu-user cannot run (ARM_UNIT_TESTS, a comma list
# from check-arm64.sh: seccomp filters, openat2-confined MTP storages,
# on armhf test_composer's readdir), on this kernel. Built with UBSan
# only, like check-cross, which runs the others.
say "unit tests on the arm64 kernel ($ARCH)"
# unit_test NAME: runs it from this tree, its log (each line stamped with
# the guest's uptime, read by the shell: no process per line) in the
# output folder; the last lines on a failure.
unit_test() {
	(cd "$SRC" && { timeout -k 5 300 "$UNIT/$1" 2>&1; echo "exit $?"; }) |
		while IFS= read -r l; do read -r up idle </proc/uptime; echo "$up $l"; done > "/mnt/out/$1.log"
	grep -q ' exit 0$' "/mnt/out/$1.log" && return 0
	tail -n 30 "/mnt/out/$1.log"
	return 1
}
for t in $(echo "${ARM_UNIT_TESTS:-}" | tr , ' '); do
	t0=$(date +%s)
	check "$t ($ARCH)" unit_test "$t"
	echo "$t: $(($(date +%s) - t0)) s"
done
finish
