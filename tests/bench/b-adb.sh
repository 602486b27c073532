# adb push and pull of 64 MiB through the adb plugin with Debian's adb 29,
# from and to tmpfs. Prints BENCH lines (MB/s, best of 3 runs).
#
# The gadget is composed by hand (ConfigFS + FunctionFS + gadgetd-worker
# behind tests/loopback/ffs_worker.py), auth off.
. "$SRC/tests/loopback/lib.sh"

W=/run/b-adb
G=/sys/kernel/config/usb_gadget/badb
FFS=/run/ffs-badb
SERIAL=GADGETD-BENCH
export HOME=$W/home
rm -rf "$W"
mkdir -p "$W" "$HOME"

cleanup() {
	timeout 10 adb kill-server >/dev/null 2>&1
	pkill -KILL -f "gadgetd-worker.*$FFS" 2>/dev/null
	echo "" > $G/UDC 2>/dev/null
	umount $FFS 2>/dev/null
	rm -f $G/configs/c.1/ffs.adb
	rmdir $G/configs/c.1 $G/functions/ffs.adb $G/strings/0x409 $G 2>/dev/null
	rm -rf "$W" /dev/shm/b-adb.*
}
trap cleanup EXIT

gd_modules
mkdir -p $G/strings/0x409 $G/configs/c.1 $G/functions/ffs.adb || die "configfs"
echo 0x18d1 > $G/idVendor
echo 0x4ee7 > $G/idProduct
echo $SERIAL > $G/strings/0x409/serialnumber
ln -s $G/functions/ffs.adb $G/configs/c.1/
mkdir -p $FFS
mount -t functionfs -o no_disconnect=1 adb $FFS || die "mount functionfs"
timeout 20 python3 "$SRC/tests/loopback/ffs_worker.py" start "$W/ctl" -- \
	"$B/gadgetd-worker" -P "$B/plugins/adb.so" -i adb -d $FFS -o auth=off \
	>/dev/null 2>"$W/worker.log" || die "adb worker did not start"
echo dummy_udc.0 > $G/UDC || die "bind"
timeout 30 adb start-server >/dev/null 2>&1
timeout 30 adb wait-for-device || die "adb does not see the device"

head -c 67108864 /dev/urandom > /dev/shm/b-adb.src
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
mbps() { awk -v ms="$1" 'BEGIN { printf "%.1f", 67108864 / 1e6 / (ms / 1000) }'; }
best_push=999999 best_pull=999999
for i in 1 2 3; do
	t=$(date +%s%N)
	timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >/dev/null || die "push"
	d=$(ms $t)
	[ $d -lt $best_push ] && best_push=$d
	t=$(date +%s%N)
	timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >/dev/null || die "pull"
	d=$(ms $t)
	[ $d -lt $best_pull ] && best_pull=$d
	cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.back || die "pulled file differs"
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
done
echo "BENCH adb_push_mbps $(mbps $best_push) MB/s"
echo "BENCH adb_pull_mbps $(mbps $best_pull) MB/s"
