# Debian's adb 34 (1:34.0.5, bookworm-backports) as the host, against
# gadgetd's adb from make install and its unit (the product as shipped),
# for what the machine's adb 29 cannot do:
# - compression, on by default in adb 34: a compressible and an
#   incompressible file pushed and pulled (sha256 both ways), and usbmon
#   counts the bytes on the bus: the compressible file's push and pull
#   must move under a quarter of its size, where `push -Z` (compression
#   off) moves at least all of it (the measure's own control). adb 34
#   compresses a pull only when told (-z, $ADB_COMPRESSION): pull -z
#   any must move under a quarter. Each of brotli, lz4 and zstd asked
#   for with -z, push and pull: under a quarter on the bus, sha256;
# - `adb push --sync` of a tree: adb 34 lstats every remote path (LST2)
#   and skips a regular file whose size and mtime are the local ones, so
#   it works only if the device keeps the mtime of a push's DONE: the
#   first push sends all, the second nothing, a changed file alone after
#   it; `push -n` (sendrecv_v2_dry_run_send) stores nothing;
# - the basics: devices, `adb features`, the v2 shell protocol (exit
#   codes, stdout and stderr apart, stdin to its end: close-stdin), ls;
# - `adb reverse tcp:0`: adb prints the port the device's listener got
#   (adbd sends it after its OKAY) and the list names it.
# mDNS: Debian's adb 34 has no mDNS backend. Its packaging leaves out
# transport_mdns.cpp, the openscreen discovery and the mdnsresponder
# client (debian/system/libadb.mk) and links a stub whose mdns_check()
# and mdns_list_discovered_services() return "" (the binary has no
# "mdns daemon version" string; ldd shows no dns_sd). `adb mdns check`
# prints an empty line and `adb mdns services` lists nothing on any
# network, so it cannot see gadgetd's _adb._tcp over the USB link (t-net
# proves that announcement with avahi-browse). The check below asserts
# that limit, and fails once a Debian adb has a backend: then this test
# must browse the link with it.
# adb 34 is the system's own where its adb is 34 (Debian 13's), else
# it runs chrooted in build/adbd/root (tests/vm/mkadbd.sh; make check
# makes it), so that bookworm's machine keeps its own adb 29.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

KEYS=/etc/gadgetd/adb_keys_34
SERIAL=ADB34T
DEV=/run/adb34-dev
# The host's side: files in $W, which adb sees as $HW (/w in the chroot).
if timeout 30 adb version 2>/dev/null | grep -q '^Version 34\.'; then
	R=
	W=/run/adb34-w
	HW=$W
else
	R=$B/adbd/root
	[ -x "$R/usr/lib/android-sdk/platform-tools/adb" ] ||
		die "no adb 34 in $R (make check and make bench make it: tests/vm/mkadbd.sh)"
	W=$R/w
	HW=/w
fi

gd_install
rm -rf "$W" "$DEV" "$KEYS"
mkdir -p "$W/home/.android" "$DEV"
cat > /etc/gadgetd/profiles/adb34.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "adb 34 test"; serial = "$SERIAL"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb"; user = "root";
         options: { auth = "on"; keys = "$KEYS"; model = "adb34"; }; };
};
sets = ( { functions = [ "adb" ]; product_id = 0x01f4; } );
default = "adb";
P

# a34 ARGS...: Debian's adb 34 (chrooted in R when R is set), its
# server on its own port.
a34() {
	ANDROID_ADB_SERVER_PORT=5041 HOME=$HW/home timeout "${TMO:-60}" ${R:+chroot "$R"} adb "$@"
}
cleanup() {
	usbmon_stop
	a34 kill-server >/dev/null 2>&1
	[ -z "$R" ] || umount "$R/dev" "$R/sys" "$R/proc" 2>/dev/null
	rm -rf "$W" "$DEV"
}
trap cleanup EXIT
[ -z "$R" ] || { mount --bind /dev "$R/dev" && mount --bind /sys "$R/sys" && mount -t proc proc "$R/proc"; } ||
	die "cannot mount /dev, /sys and /proc in $R"

a34 version | tee "$W/version.txt" | sed 's/^/   /'
check "it is adb 34.0.5" grep -q "^Version 34\.0\.5" "$W/version.txt"
a34 keygen $HW/home/.android/adbkey >/dev/null 2>&1
install -m 0640 "$W/home/.android/adbkey.pub" "$KEYS" || die "no adb 34 key"

gd_start adb34
check "host sees the adb set" wait_usb 1d6b:01f4 20
a34 start-server >/dev/null 2>&1
# a34_state STATE: `adb devices` lists the gadget in STATE within 20 s.
a34_state() {
	local n=100
	while [ $n -gt 0 ]; do
		a34 devices 2>/dev/null | grep -q "^$SERIAL[[:space:]]*$1\$" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	a34 devices
	return 1
}
check "adb devices: $SERIAL device (its key in the keys file)" a34_state device

say "features and the v2 shell protocol"
a34 features > "$W/features.txt" 2>&1
echo "   features: $(cat "$W/features.txt")"
has_features() {
	local f
	for f in shell_v2 stat_v2 ls_v2 sendrecv_v2 sendrecv_v2_brotli sendrecv_v2_lz4 \
		sendrecv_v2_zstd sendrecv_v2_dry_run_send fixed_push_mkdir; do
		tr ',' '\n' < "$W/features.txt" | grep -qx "$f" || { echo "   no $f"; return 1; }
	done
}
check "adb features lists shell_v2, stat_v2, ls_v2 and sendrecv_v2 with its codecs" has_features
check_exit 7 "adb shell 'exit 7' exits 7" a34 shell 'exit 7'
a34 shell 'echo out; echo err >&2' > "$W/out.txt" 2> "$W/err.txt"
check "stdout and stderr arrive apart" sh -c \
	"[ \"\$(cat '$W/out.txt')\" = out ] && [ \"\$(cat '$W/err.txt')\" = err ]"
# wc ends only at its input's end: adb 34 must send close-stdin (v2 id 4)
# after the piped lines, and the device must close the shell's stdin.
check "stdin reaches the shell to its end (wc -l counts 3)" \
	[ "$(printf 'a\nb\nc\n' | a34 shell 'wc -l')" = 3 ]
check "the exit code of a piped shell (exit 5)" sh -c \
	"echo x | ANDROID_ADB_SERVER_PORT=5041 HOME=$HW/home timeout 60 ${R:+chroot '$R'} adb shell 'cat >/dev/null; exit 5'; [ \$? = 5 ]"

say "compression (usbmon counts the bytes on the bus)"
usbmon_on
SIZE=8388608
yes "gadgetd adb 34 compressible line of text" 2>/dev/null | head -c $SIZE > "$W/comp"
head -c $SIZE /dev/urandom > "$W/rand"
# bus_bytes DIR CMD...: run CMD under usbmon; print the payload bytes of
# bulk transfers in DIR (o: submitted OUT, what the host sent; i:
# completed IN, what the device sent).
bus_bytes() {
	local dir=$1
	shift
	usbmon_start "$W/mon.txt"
	sleep 0.2
	"$@" > "$W/cmd.txt" 2>&1
	local rc=$?
	sleep 0.2
	usbmon_stop
	# Not a number when CMD failed: the check comparing it fails too.
	[ $rc = 0 ] || { cat "$W/cmd.txt" >&2; echo "failed"; return 1; }
	awk -v d="$dir" '(d == "o" && $3 == "S" && $4 ~ /^Bo:/) ||
		(d == "i" && $3 == "C" && $4 ~ /^Bi:/) { n += $6 } END { print n + 0 }' "$W/mon.txt"
}
sha() { sha256sum < "$1" | cut -d' ' -f1; }
# under NAME BYTES LIMIT, at_least NAME BYTES LIMIT: BYTES on the bus
# (bus_bytes) against LIMIT.
# Nothing on the bus is usbmon seeing nothing, not compression.
under() { echo "   $1: $2 bytes on the bus for $SIZE"; [ "$2" -gt 0 ] && [ "$2" -lt "$3" ]; }
at_least() { echo "   $1: $2 bytes on the bus for $SIZE"; [ "$2" -ge "$3" ]; }

n=$(bus_bytes o a34 push $HW/comp $DEV/comp)
check "push of a compressible file, compressed by default (under 1/4 of it on the bus)" \
	under "push comp" "$n" $((SIZE / 4))
check "its sha256 on the device" [ "$(sha "$W/comp")" = "$(sha $DEV/comp)" ]
# adb 34 asks for compression on a pull only when told (-z, or
# $ADB_COMPRESSION): its plain pull moved all 8 MiB (2026-12-06).
n=$(bus_bytes i a34 pull $DEV/comp $HW/comp.back)
echo "   pull comp, no -z: $n bytes on the bus for $SIZE"
check "pull of it: its sha256 pulled back" [ "$(sha "$W/comp")" = "$(sha "$W/comp.back")" ]
rm -f "$W/comp.back"
n=$(bus_bytes i a34 pull -z any $DEV/comp $HW/comp.back)
check "pull -z any of it, compressed (under 1/4 of it on the bus)" \
	under "pull -z any comp" "$n" $((SIZE / 4))
check "its sha256 pulled back" [ "$(sha "$W/comp")" = "$(sha "$W/comp.back")" ]
n=$(bus_bytes o a34 push -Z $HW/comp $DEV/compZ)
check "control: push -Z (compression off) moves all of it" at_least "push -Z comp" "$n" $SIZE
n=$(bus_bytes o a34 push $HW/rand $DEV/rand)
check "push of an incompressible file" at_least "push rand" "$n" $SIZE
check "its sha256 on the device" [ "$(sha "$W/rand")" = "$(sha $DEV/rand)" ]
check "pull of it" a34 pull $DEV/rand $HW/rand.back
check "its sha256 pulled back" [ "$(sha "$W/rand")" = "$(sha "$W/rand.back")" ]
rm -f "$W/comp.back" "$W/rand.back" $DEV/compZ $DEV/rand
SIZE=2097152
head -c $SIZE "$W/comp" > "$W/comp2"
for z in brotli lz4 zstd; do
	n=$(bus_bytes o a34 push -z $z $HW/comp2 $DEV/comp.$z)
	check "push -z $z (under 1/4 on the bus)" under "push -z $z" "$n" $((SIZE / 4))
	check "its sha256 on the device" [ "$(sha "$W/comp2")" = "$(sha $DEV/comp.$z)" ]
	n=$(bus_bytes i a34 pull -z $z $DEV/comp.$z $HW/back.$z)
	check "pull -z $z (under 1/4 on the bus)" under "pull -z $z" "$n" $((SIZE / 4))
	check "its sha256 pulled back" [ "$(sha "$W/comp2")" = "$(sha "$W/back.$z")" ]
done
rm -f $DEV/comp* "$W"/back.* "$W/comp" "$W/rand"

say "push --sync"
mkdir -p "$W/tree/sub"
for i in 1 2 3 4 5 6 7 8; do head -c $((i * 1000)) /dev/urandom > "$W/tree/f$i"; done
for i in 1 2 3 4; do echo "file $i" > "$W/tree/sub/g$i"; done
# pushed N SKIPPED: adb's summary line of the last push says so.
pushed() {
	sed 's/^/   /' "$W/push.txt"
	grep -q ": $1 files\? pushed, $2 skipped\." "$W/push.txt"
}
a34 push --sync $HW/tree $DEV/ > "$W/push.txt" 2>&1
check "the first push --sync sends all 12 files" pushed 12 0
check "they arrived" diff -r "$W/tree" $DEV/tree
check "the device kept each file's mtime from the push's DONE" sh -c \
	"[ \"\$(stat -c %Y '$W/tree/f3')\" = \"\$(stat -c %Y $DEV/tree/f3)\" ]"
a34 push --sync $HW/tree $DEV/ > "$W/push.txt" 2>&1
check "a second push --sync sends nothing" pushed 0 12
echo changed >> "$W/tree/sub/g2"
touch -d '2026-01-02 03:04:05' "$W/tree/f5"
a34 push --sync $HW/tree $DEV/ > "$W/push.txt" 2>&1
check "after two changes, push --sync sends those two" pushed 2 10
check "the tree is the same again" diff -r "$W/tree" $DEV/tree
# adb 34 refused it ("dry-run not supported by the device") while the
# plugin's banner ended in a NUL after its last feature,
# sendrecv_v2_dry_run_send.
check "push -n (dry run) of a new file" a34 push -n $HW/tree/f1 $DEV/dry
check "stores nothing" [ ! -e $DEV/dry ]
a34 ls $DEV/tree > "$W/ls.txt" 2>&1
check "adb ls lists the tree" sh -c "grep -q ' f8\$' '$W/ls.txt' && grep -q ' sub\$' '$W/ls.txt'"

say "reverse tcp:0"
# adb prints the port the device's listener got, as adbd sends it after
# its OKAY; the listener is listed under that port.
RPORT=$(a34 reverse tcp:0 tcp:7301 2>&1)
echo "   adb reverse tcp:0 tcp:7301: $RPORT"
check "adb reverse tcp:0 prints the port the device picked" sh -c "[ '$RPORT' -gt 0 ] 2>/dev/null"
a34 reverse --list > "$W/rev.txt" 2>&1
check "reverse --list shows it under that port" grep -q " tcp:$RPORT tcp:7301\$" "$W/rev.txt"
check "the device listens there" sh -c "ss -Hltn 'sport = :$RPORT' | grep -q LISTEN"
check "reverse --remove tcp:$RPORT" a34 reverse --remove "tcp:$RPORT"

say "mdns (Debian's adb 34 is built without a backend: see the header)"
a34 mdns check > "$W/mdns.txt" 2>&1
a34 mdns services >> "$W/mdns.txt" 2>&1
sed 's/^/   /' "$W/mdns.txt"
check "known limit: adb mdns check answers nothing, services lists none" \
	sh -c "! grep -q -e 'daemon version' -e '_adb' '$W/mdns.txt'"

finish
