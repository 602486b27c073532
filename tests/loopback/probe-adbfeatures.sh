#!/bin/sh
# What each adb daemon answers, side by side: gadgetd's adb (the plugin
# behind gadgetd-worker, auth off) and Debian's adbd 34.0.5 (chrooted in
# build/adbd/root, its gadget composed as adbd-usb-gadget does, as
# tests/bench/b-adbd.sh runs it), both asked by Debian's adb 34.0.5 from
# the same root. One line per command and daemon:
#   PROBE PEER | COMMAND | exit CODE | the first lines of its output
# in /mnt/out/probe.txt; docs/adb-features.md is written from it.
# adbd's `tcpip`, `reconnect` and `reboot` come last: each may take its
# USB link away. Outside make check (like probe-adbpush.sh); run it with
#   tests/loopback/run-suite.sh build/vm build/probe probe-adbfeatures.sh
# after `make adbd-root` (PROBE_PEERS=adbd in GADGETD_TEST_ENV: one of
# them).
# bed: light - the two daemons composed by hand one after the other,
#   as b-adbd runs them
. "$SRC/tests/loopback/lib.sh"

R=$B/adbd/root
FFSD=/dev/usb-ffs/adb
FFSG=/run/ffs-probe
W=$R/w
OUT=/mnt/out/probe.txt
[ -x "$R/usr/lib/android-sdk/platform-tools/adbd" ] &&
	[ -x "$R/usr/lib/android-sdk/platform-tools/adb" ] ||
	die "no adbd or adb in $R (make adbd-root)"
rm -rf "$W"
mkdir -p "$W/home/.android" "$W/tree"
: > "$OUT"
a34() {
	ANDROID_ADB_SERVER_PORT=5042 HOME=/w/home timeout "${TMO:-15}" chroot "$R" adb "$@"
}
ADBD_PID=
cleanup() {
	a34 kill-server >/dev/null 2>&1
	[ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
	pkill -KILL -f "gadgetd-worker.*$FFSG" 2>/dev/null
	cfs_unbind padbd; cfs_unbind pgadb
	umount -R "$R/dev" 2>/dev/null
	umount "$R/sys" "$R/proc" 2>/dev/null
	umount "$R$FFSD" $FFSD $FFSG 2>/dev/null
	cfs_teardown padbd; cfs_teardown pgadb
}
trap cleanup EXIT

gd_modules
mkdir -p /dev/pts
mountpoint -q /dev/pts || mount -t devpts devpts /dev/pts
for m in proc sys; do mount --bind "/$m" "$R/$m" || die "bind /$m"; done
mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" || die "bind /dev"
head -c 100000 /dev/urandom > "$W/f"
for i in 1 2 3; do echo "file $i" > "$W/tree/g$i"; done
a34 start-server >/dev/null 2>&1

# p PEER DESC ADB-ARGS...: one line for adb 34's answer.
p() {
	local peer=$1 desc=$2 rc out
	shift 2
	out=$(a34 "$@" < /dev/null 2>&1)
	rc=$?
	out=$(printf '%s\n' "$out" | tr -d '\r' | sed 's/\x1b\[K//g; s/.*\r//' | grep -v '^$' |
		head -n 3 | cut -c1-160 | tr '\n' '~')
	echo "PROBE $peer | $desc | exit $rc | $out" | tee -a "$OUT"
}
# revive PEER: adbd exits to be restarted by init (root, tcpip, usb...):
# start it again, as init would, and say so.
adbd_start() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		chroot "$R" /usr/lib/android-sdk/platform-tools/adbd >>/mnt/out/adbd.log 2>&1 &
	ADBD_PID=$!
	local n=0
	while [ ! -e $FFSD/ep1 ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e $FFSD/ep1 ] || { echo "adbd wrote no descriptors in 60 s"; return 1; }
	cfs_bind padbd
}
revive() {
	sleep 1
	[ "$1" = adbd ] && ! kill -0 "$ADBD_PID" 2>/dev/null || return 0
	echo "PROBE adbd | (adbd exited: started again, as init would) | - | $(tail -n 2 /mnt/out/adbd.log | tr '\n' '~')" | tee -a "$OUT"
	cfs_unbind padbd
	adbd_start
	a34 wait-for-device >/dev/null 2>&1
}
# jobs PEER: the commands, the ones that may cut the link last.
jobs() {
	local x=$1 d=/dev/shm/probe-$1
	rm -rf $d; mkdir -p $d
	a34 devices >/dev/null 2>&1
	echo "PROBE $x | features | - | $(a34 features 2>&1 | tr '\n' ',')" | tee -a "$OUT"
	echo "PROBE $x | host-features | - | $(a34 host-features 2>&1 | tr '\n' ',')" | tee -a "$OUT"
	p $x get-state get-state
	p $x "devices -l" devices -l
	p $x "shell 'exit 3'" shell 'exit 3'
	p $x "shell (v2) stderr" shell 'echo err >&2'
	echo "PROBE $x | printf a\\\\nb\\\\n | shell wc -l | exit - | $(printf 'a\nb\n' | a34 shell wc -l 2>&1)" | tee -a "$OUT"
	p $x "shell -t tty (pty)" shell -t -t tty
	p $x "shell -T tty (no pty)" shell -T tty
	p $x "shell -x (v1, no v2)" shell -x 'exit 4'
	p $x "exec-out" exec-out 'echo hi'
	p $x "ls (ls_v2)" ls /dev/shm
	p $x "push" push /w/f $d/f
	p $x "pull" pull $d/f /w/f.back
	for z in brotli lz4 zstd; do
		p $x "push -z $z" push -z $z /w/f $d/f.$z
		p $x "pull -z $z" pull -z $z $d/f.$z /w/f.$z
	done
	p $x "push -n (dry run)" push -n /w/f $d/dry
	p $x "push --sync (first)" push --sync /w/tree $d/
	p $x "push --sync (again)" push --sync /w/tree $d/
	p $x "pull -a (times kept)" pull -a $d/f /w/f.a
	p $x "forward tcp:7400 tcp:7401" forward tcp:7400 tcp:7401
	p $x "forward --list" forward --list
	p $x "forward --remove-all" forward --remove-all
	p $x "reverse tcp:7300 tcp:7301" reverse tcp:7300 tcp:7301
	p $x "reverse --list" reverse --list
	p $x "reverse --remove-all" reverse --remove-all
	p $x "root" root
	revive $x
	a34 wait-for-device >/dev/null 2>&1
	p $x "unroot" unroot
	revive $x
	a34 wait-for-device >/dev/null 2>&1
	p $x remount remount
	revive $x
	p $x disable-verity disable-verity
	revive $x
	p $x enable-verity enable-verity
	revive $x
	TMO=5 p $x "jdwp (5 s)" jdwp
	TMO=5 p $x "track-jdwp (5 s)" track-jdwp
	TMO=5 p $x "track-app (5 s)" track-app
	p $x "logcat -d" logcat -d
	p $x "install (cmd/abb_exec)" install /w/f
	p $x "shell cmd" shell cmd
	p $x "sideload" sideload /w/f
	p $x "backup" backup -all
	p $x "get-devpath" get-devpath
	p $x "mdns check" mdns check
	p $x "mdns services" mdns services
	p $x "tcpip 5555" tcpip 5555
	revive $x
	sleep 3
	p $x "get-state after tcpip" get-state
	p $x usb usb
	revive $x
	sleep 3
	a34 wait-for-device >/dev/null 2>&1
	p $x "get-state after usb" get-state
	p $x "reconnect device" reconnect device
	revive $x
	sleep 3
	a34 wait-for-device >/dev/null 2>&1
	p $x "get-state after reconnect" get-state
	p $x "reboot" reboot
	sleep 3
	p $x "get-state after reboot" get-state
}

# PROBE_PEERS: "gadgetd adbd" (both, by default) or one of them.
peers=${PROBE_PEERS:-gadgetd adbd}
if [ "${peers#*gadgetd}" != "$peers" ]; then
# gadgetd's adb plugin.
cfs_gadget -m gadgetd -p "ADB device" -s PROBE-GADGETD pgadb 18d1 4ee7 ffs.gadb || die "configfs (gadgetd)"
mkdir -p $FFSG
mount -t functionfs -o no_disconnect=1 gadb $FFSG || die "mount functionfs (gadgetd)"
adb_worker "$B" $FFSG "$W/ctl" /mnt/out/worker.log -o auth=off >/dev/null ||
	die "adb worker did not start"
cfs_bind pgadb || die "bind (gadgetd)"
export ANDROID_SERIAL=PROBE-GADGETD
a34 wait-for-device
jobs gadgetd
pkill -KILL -f "gadgetd-worker.*$FFSG"
cfs_unbind pgadb
wait_no_usb 18d1:4ee7 10
umount $FFSG
cfs_teardown pgadb
fi

if [ "${peers#*adbd}" != "$peers" ]; then
# Debian's adbd.
cfs_gadget -m Debian -p "ADB device" -s PROBE-ADBD -c "ADB Configuration" \
	padbd 18d1 0100 ffs.adb || die "configfs (adbd)"
mkdir -p $FFSD
mount -t functionfs adb $FFSD || die "mount functionfs (adbd)"
# /dev was bound into the root before this mount: bind it there too.
mount --bind $FFSD "$R$FFSD" || die "bind $FFSD into $R"
: > /mnt/out/adbd.log
adbd_start || die "bind (adbd)"
export ANDROID_SERIAL=PROBE-ADBD
a34 wait-for-device
jobs adbd
fi
echo "PROBE done"
CHECKS=1
finish
