# adb push and pull of 64 MiB through the adb plugin with Debian's adb 29,
# from and to tmpfs. Prints BENCH lines (MB/s, best of 3 runs):
#   adb_push_mbps, adb_pull_mbps: the transfer as adb itself reports it
#     ("67108864 bytes in 1.234s"), which is what a user sees;
#   adb_push_wall_mbps, adb_pull_wall_mbps: the whole adb command, which
#     also starts the adb client and connects to its server;
#   adb_tiny_pull_ms: that fixed cost, the wall time of pulling 1 byte.
# Then sendrecv_v2, which adb 29 lacks, through tests/loopback/adb_wire.py
# (a raw-ADB host on pyusb, delayed_ack on): push and pull of 16 MiB of
# text and of random data with each compression (best of 2, MB/s of file
# bytes, the host's Python compression included):
#   adb_v2_{push,pull}_{none,brotli,lz4,zstd}_{text,random}_mbps
#
# The gadget is composed by hand (ConfigFS + FunctionFS + gadgetd-worker
# behind tests/loopback/ffs_worker.py), auth off.
. "$SRC/tests/loopback/lib.sh"

W=/run/b-adb
FFS=/run/ffs-badb
SERIAL=GADGETD-BENCH
export HOME=$W/home
rm -rf "$W"
mkdir -p "$W" "$HOME"

cleanup() {
	timeout 10 adb kill-server >/dev/null 2>&1
	pkill -KILL -f "gadgetd-worker.*$FFS" 2>/dev/null
	cfs_unbind badb
	umount $FFS 2>/dev/null
	cfs_teardown badb
	rm -rf "$W" /dev/shm/b-adb.*
}
trap cleanup EXIT

gd_modules
cfs_gadget -s $SERIAL badb 18d1 4ee7 ffs.adb || die "configfs"
mkdir -p $FFS
mount -t functionfs -o no_disconnect=1 adb $FFS || die "mount functionfs"
timeout 20 python3 "$SRC/tests/loopback/ffs_worker.py" start "$W/ctl" -- \
	"$B/gadgetd-worker" -P "$B/plugins/adb.so" -i adb -d $FFS -o auth=off \
	>/dev/null 2>"$W/worker.log" || die "adb worker did not start"
cfs_bind badb || die "bind"
timeout 30 adb start-server >/dev/null 2>&1
timeout 30 adb wait-for-device || die "adb does not see the device"

head -c 67108864 /dev/urandom > /dev/shm/b-adb.src
echo x > /dev/shm/b-adb.tiny
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
mbps() { awk -v ms="$1" 'BEGIN { printf "%.1f", 67108864 / 1e6 / (ms / 1000) }'; }
# "... 67108864 bytes in 1.234s)" -> milliseconds
adb_ms() { sed -n 's/.*(67108864 bytes in \([0-9.]*\)s).*/\1/p' "$1" | awk '{ printf "%d", $1 * 1000 }'; }
best() { [ -n "$2" ] && [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }
bp=999999 bl=999999 wp=999999 wl=999999 tiny=999999
for i in 1 2 3; do
	t=$(date +%s%N)
	timeout 120 adb push /dev/shm/b-adb.src /dev/shm/b-adb.dev >$W/push.txt 2>&1 || die "push: $(cat $W/push.txt)"
	wp=$(best $wp $(ms $t))
	bp=$(best $bp "$(adb_ms $W/push.txt)")
	t=$(date +%s%N)
	timeout 120 adb pull /dev/shm/b-adb.dev /dev/shm/b-adb.back >$W/pull.txt 2>&1 || die "pull: $(cat $W/pull.txt)"
	wl=$(best $wl $(ms $t))
	bl=$(best $bl "$(adb_ms $W/pull.txt)")
	cmp -s /dev/shm/b-adb.src /dev/shm/b-adb.back || die "pulled file differs"
	rm -f /dev/shm/b-adb.dev /dev/shm/b-adb.back
	t=$(date +%s%N)
	timeout 60 adb pull /dev/shm/b-adb.tiny /dev/shm/b-adb.tback >/dev/null 2>&1 || die "tiny pull"
	tiny=$(best $tiny $(ms $t))
done
[ $bp -lt 999999 ] && [ $bl -lt 999999 ] || die "adb did not report its transfer times: $(cat $W/push.txt $W/pull.txt)"
echo "BENCH adb_push_mbps $(mbps $bp) MB/s"
echo "BENCH adb_pull_mbps $(mbps $bl) MB/s"
echo "BENCH adb_push_wall_mbps $(mbps $wp) MB/s"
echo "BENCH adb_pull_wall_mbps $(mbps $wl) MB/s"
echo "BENCH adb_tiny_pull_ms $tiny ms"

timeout 30 adb kill-server >/dev/null 2>&1
mkdir -p /dev/shm/b-adb.v2
timeout 600 python3 "$SRC/tests/loopback/adb_wire.py" bench 18d1:4ee7 /dev/shm/b-adb.v2 16 ||
	die "sendrecv_v2 bench failed"
