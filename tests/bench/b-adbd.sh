# gadgetd's adb against Debian's own adbd (AOSP's daemon, 34.0.5 from
# bookworm-backports, chrooted in build/adbd/root: tests/vm/mkadbd.sh),
# in the same boot, with Debian's adb 29 (this machine's) as the host.
# The two take turns, ADBD_BENCH_ROUNDS rounds (3), so that a change in
# the machine's load meets both alike: each round starts one daemon
# afresh, binds it, runs every job once, takes it down, then does the
# same for the other; the order flips each round (adbd first in odd
# rounds, gadgetd in even ones). Each figure is the best of its daemon's
# rounds, PEER adbd or gadgetd in the names:
#   peer_PEER_device_ms: from the UDC bind to `adb devices` showing the
#     device as "device" (adb's server already running; it looks for
#     USB devices once a second, so this swings by up to a second);
#   peer_PEER_bind_bus_ms: the bind on the bus (usbmon), from the hub's
#     first look at the port to the daemon's CNXN, less the host's poll
#     wait (from SET_CONFIGURATION to the host's CNXN): the enumeration
#     and the CNXN, what is left when adb's server looks at once; it
#     leaves out the `adb devices` loop after the CNXN (a new client
#     each 50 ms, 150 to 350 ms under TCG whichever daemon runs);
#   peer_PEER_cnxn_ms: within that, from the host's CNXN to the daemon's
#     on the bus (usbmon): the daemon's own share;
#   peer_PEER_{push,pull}_mbps: 64 MiB from and to tmpfs, as adb reports
#     its transfer; sha256 checked on the device's copy and on the one
#     pulled back;
#   peer_PEER_tree_{push,pull}_ms: a folder of 200 files of 4 KiB pushed,
#     then pulled, whole adb command; checked the same way;
#   peer_PEER_shell20_ms: 20 `adb shell true` one after the other;
#   peer_PEER_shell20_bus_ms: the part of it from each OPEN on the bus to
#     the daemon's exit status (usbmon; the rest is adb's client and
#     server).
# Each round's figures are in b-adbd.log too (lines "round N PEER ...").
# ADBD_BENCH_STRACE=1 also traces each daemon (with the children it
# has: gadgetd's spawner) over one more tree push and pull and five
# `adb shell true` (peer_strace below), after the rounds;
# ADBD_BENCH_STRACE_JOBS names some of them ("push pull shell"), and
# ADBD_BENCH_ROUNDS=0 leaves only the traces.
# ratios.py prints gadgetd / adbd (rates) and adbd / gadgetd (times).
#
# Each gadget is composed by hand. adbd's as Debian's adbd-usb-gadget
# composes it (VID 18d1, FunctionFS instance "adb" mounted at
# /dev/usb-ffs/adb, where adbd opens ep0..ep2, no mount options), with
# adbd chrooted and /dev (with /dev/shm and the FunctionFS mount under it),
# /proc and /sys bound into its root. gadgetd's
# as b-adb.sh runs it: gadgetd-worker with the adb plugin behind
# tests/loopback/ffs_worker.py, FunctionFS mounted no_disconnect=1 as
# gadgetd mounts it. Debian's adbd is built without adb authentication
# (it has no ro.adb.secure to turn it on), so the plugin runs with
# auth=off here: the connection takes the same steps on both.
. "$SRC/tests/loopback/lib.sh"

R=$B/adbd/root
W=/run/b-adbd
FFSD=/dev/usb-ffs/adb
FFSG=/run/ffs-badbd
[ -x "$R/usr/lib/android-sdk/platform-tools/adbd" ] ||
	die "no adbd in $R (make bench makes it: tests/vm/mkadbd.sh)"
adb_key_home "$W" || die "adb keygen failed"

ADBD_PID=
WORKER_PID=
adbd_down() {
	[ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null && wait "$ADBD_PID" 2>/dev/null
	ADBD_PID=
	cfs_unbind badbd
	umount -R "$R/dev" 2>/dev/null
	umount "$R/sys" 2>/dev/null
	umount "$R/proc" 2>/dev/null
	umount $FFSD 2>/dev/null
	cfs_teardown badbd
}
gadgetd_down() {
	[ -n "$WORKER_PID" ] && kill -KILL "$WORKER_PID" 2>/dev/null
	WORKER_PID=
	cfs_unbind bgadb
	umount $FFSG 2>/dev/null
	cfs_teardown bgadb
}
cleanup() {
	usbmon_stop
	timeout 10 adb kill-server >/dev/null 2>&1
	adbd_down
	gadgetd_down
	rm -rf "$W" /dev/shm/b-adbd.*
}
trap cleanup EXIT

gd_modules
mkdir -p /dev/pts
mountpoint -q /dev/pts || mount -t devpts devpts /dev/pts
head -c 67108864 /dev/urandom > /dev/shm/b-adbd.src
sum=$(sha256sum < /dev/shm/b-adbd.src)
mkdir -p /dev/shm/b-adbd.tree
for i in $(seq 200); do
	head -c 4096 /dev/urandom > /dev/shm/b-adbd.tree/f$i
done
# treesum DIR: one sum over the names and contents of DIR's files.
treesum() { (cd "$1" && sha256sum f*) | sha256sum; }
tsum=$(treesum /dev/shm/b-adbd.tree)

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
mbps() { awk -v ms="$1" 'BEGIN { printf "%.1f", 67108864 / 1e6 / (ms / 1000) }'; }
adb_ms() { sed -n 's/.*(67108864 bytes in \([0-9.]*\)s).*/\1/p' "$1" | awk '{ printf "%d", $1 * 1000 }'; }

# device_ms SERIAL: bind has just been done; poll `adb devices` until it
# lists SERIAL as "device", print the milliseconds since $T_BIND.
device_ms() {
	local n=0
	while ! adb devices 2>/dev/null | grep -q "^$1	device\$"; do
		n=$((n + 1))
		[ $n -lt 600 ] || die "adb devices never showed $1: $(adb devices 2>&1)"
		sleep 0.05
	done
	ms "$T_BIND"
}

# bindmon_start / bindmon_cnxn: usbmon over a bind, then three figures:
# the milliseconds from the host's CNXN (its bulk OUT submitted) to the
# daemon's CNXN (the bulk IN completed): the daemon's own share of
# "device"; the host's poll wait: from the end of the enumeration
# (SET_CONFIGURATION completed) to the host's CNXN, the time adb 29's
# server took to look for USB devices again (once a second, whatever the
# daemon); and from the first event on the bus (the hub's look at the
# port the bind connected) to the daemon's CNXN. usbmon is read from
# before the bind (usbmon_start returns with its reader open), so that
# first event is the bind's.
usbmon_on
bindmon_start() { usbmon_start "$W/bindmon.txt"; }
bindmon_cnxn() {
	usbmon_stop
	# A control transfer's setup is on its submission's line ("s 00 09"
	# is SET_CONFIGURATION); its completion has the same URB tag ($1).
	awk 'NR == 1 { f = $2 }
		$3 == "S" && $4 ~ /^Co:/ && $5 == "s" && $6 == "00" && $7 == "09" { tag = $1 }
		$3 == "C" && $4 ~ /^Co:/ && $1 == tag { c = $2; tag = "" }
		$7 == "=" && $8 == "434e584e" {
			if ($3 == "S" && $4 ~ /^Bo:/ && h == "") h = $2
			else if ($3 == "C" && $4 ~ /^Bi:/ && h != "" && d == "") d = $2 }
		END { if (h == "" || d == "" || d < h || c == "" || h < c) exit 1
			printf "%.1f %.1f %.1f\n", (d - h) / 1000, (h - c) / 1000, (d - f) / 1000 }' \
		"$W/bindmon.txt" ||
		die "no SET_CONFIGURATION, then a CNXN each way, on the bus: $(grep -c . "$W/bindmon.txt") usbmon lines"
}

# bind_figures PEER DEVICE_MS: PEER's "device", "cnxn" and "bind_bus"
# (the bind on the bus less the host's poll wait) into $W/PEER.txt.
bind_figures() {
	local f
	f=$(bindmon_cnxn) || exit 1
	echo "$f" | awk -v d="$2" '{ printf "device %s\ncnxn %s\nbind_bus %.1f\n", d, $1, $3 - $2 }' >> "$W/$1.txt"
}

# shellmon_start / shellmon_ms: usbmon over the 20 shells, then the
# milliseconds, summed over the shells, from each OPEN reaching the
# device (the host's bulk OUT completed) to the daemon's last WRTE
# before its CLSE (its bulk IN completed; the shell's exit status, which
# ends adb's client): the device's part of the 20 (the spawn, the
# command, its exit), against the rest (adb's client and server); then
# the part of it from the OPEN to the daemon's OKAY (the spawn). Dies
# unless there are 20.
shellmon_start() { usbmon_start "$W/shellmon.txt"; }
shellmon_ms() {
	usbmon_stop
	# An OUT's data is on its submission's line; its completion has the
	# same URB tag ($1).
	awk '$7 == "=" && $3 == "S" && $4 ~ /^Bo:/ && $8 == "4f50454e" { tag = $1 }
		$3 == "C" && $4 ~ /^Bo:/ && $1 == tag { o = $2; k = 0; tag = "" }
		$7 == "=" && $3 == "C" && $4 ~ /^Bi:/ && $8 == "4f4b4159" && o != "" && !k { ok += $2 - o; k = 1 }
		$7 == "=" && $3 == "C" && $4 ~ /^Bi:/ && $8 == "57525445" && o != "" { w = $2 }
		$7 == "=" && $3 == "C" && $4 ~ /^Bi:/ && $8 == "434c5345" && o != "" && w != "" { sum += w - o; n++; o = ""; w = "" }
		END { if (n != 20) exit 1; printf "%.1f %.1f\n", sum / 1000, ok / 1000 }' \
		"$W/shellmon.txt" || die "not 20 OPENs each answered by a WRTE and a CLSE on the bus: $(grep -c 4f50454e "$W/shellmon.txt") OPENs"
}

# peer_jobs PEER SERIAL: each timed job once against the bound device
# SERIAL; its figures go to $W/PEER.txt, one "JOB VALUE" line each.
peer_jobs() {
	local p=$1 bp bl tp tl sh sb t
	export ANDROID_SERIAL=$2
	timeout 120 adb push /dev/shm/b-adbd.src /dev/shm/b-adbd.dev >$W/push.txt 2>&1 ||
		die "$p push: $(cat $W/push.txt)"
	bp=$(adb_ms $W/push.txt)
	[ "$(sha256sum < /dev/shm/b-adbd.dev)" = "$sum" ] || die "$p: the pushed file differs"
	timeout 120 adb pull /dev/shm/b-adbd.dev /dev/shm/b-adbd.back >$W/pull.txt 2>&1 ||
		die "$p pull: $(cat $W/pull.txt)"
	bl=$(adb_ms $W/pull.txt)
	[ "$(sha256sum < /dev/shm/b-adbd.back)" = "$sum" ] || die "$p: the pulled file differs"
	rm -f /dev/shm/b-adbd.dev /dev/shm/b-adbd.back
	[ -n "$bp" ] && [ "$bp" -gt 0 ] && [ -n "$bl" ] && [ "$bl" -gt 0 ] ||
		die "$p: adb did not report its transfer times: $(cat $W/push.txt $W/pull.txt)"

	t=$(date +%s%N)
	timeout 120 adb push /dev/shm/b-adbd.tree /dev/shm/b-adbd.tdev >$W/push.txt 2>&1 ||
		die "$p tree push: $(cat $W/push.txt)"
	tp=$(ms "$t")
	[ "$(treesum /dev/shm/b-adbd.tdev)" = "$tsum" ] || die "$p: the pushed tree differs"
	t=$(date +%s%N)
	timeout 120 adb pull /dev/shm/b-adbd.tdev /dev/shm/b-adbd.tback >$W/pull.txt 2>&1 ||
		die "$p tree pull: $(cat $W/pull.txt)"
	tl=$(ms "$t")
	[ "$(treesum /dev/shm/b-adbd.tback)" = "$tsum" ] || die "$p: the pulled tree differs"
	rm -rf /dev/shm/b-adbd.tdev /dev/shm/b-adbd.tback

	shellmon_start
	t=$(date +%s%N)
	for _ in $(seq 20); do
		timeout 30 adb shell true || die "$p: adb shell true failed"
	done
	sh=$(ms "$t")
	sb=$(shellmon_ms)
	printf 'push %s\npull %s\ntree_push %s\ntree_pull %s\nshell20 %s\nshell20_bus %s\nshell20_okay %s\n' \
		"$bp" "$bl" "$tp" "$tl" "$sh" ${sb% *} ${sb#* } >> "$W/$p.txt"
	echo "round $round $p: \"device\" $(awk '$1 == "device" { v = $2 } END { print v }' "$W/$p.txt") ms" \
		"($(awk '$1 == "bind_bus" { v = $2 } END { print v }' "$W/$p.txt") on the bus less the host's poll wait)," \
		"push $(mbps $bp) MB/s, pull $(mbps $bl) MB/s," \
		"tree push $tp ms, tree pull $tl ms, 20 shells $sh ms (${sb% *} ms of it OPEN to the exit status on the bus, ${sb#* } OPEN to OKAY)"
	unset ANDROID_SERIAL
}

# peer_best PEER JOB: the least of PEER's rounds for JOB (a time).
peer_best() { awk -v j="$2" '$1 == j && (m == "" || $2 < m) { m = $2 } END { print m }' "$W/$1.txt"; }

# peer_report PEER: its BENCH lines, each the best of its rounds.
peer_report() {
	local p=$1 job
	for job in device bind_bus cnxn push pull tree_push tree_pull shell20 shell20_bus; do
		[ -n "$(peer_best $p $job)" ] || die "$p: no $job figure (ADBD_BENCH_ROUNDS=${ADBD_BENCH_ROUNDS:-3})"
	done
	echo "BENCH peer_${p}_device_ms $(peer_best $p device) ms"
	echo "BENCH peer_${p}_bind_bus_ms $(peer_best $p bind_bus) ms"
	echo "BENCH peer_${p}_cnxn_ms $(peer_best $p cnxn) ms"
	echo "BENCH peer_${p}_push_mbps $(mbps "$(peer_best $p push)") MB/s"
	echo "BENCH peer_${p}_pull_mbps $(mbps "$(peer_best $p pull)") MB/s"
	echo "BENCH peer_${p}_tree_push_ms $(peer_best $p tree_push) ms"
	echo "BENCH peer_${p}_tree_pull_ms $(peer_best $p tree_pull) ms"
	echo "BENCH peer_${p}_shell20_ms $(peer_best $p shell20) ms"
	echo "BENCH peer_${p}_shell20_bus_ms $(peer_best $p shell20_bus) ms"
}

# peer_strace PEER PID SERIAL: with ADBD_BENCH_STRACE=1, `strace -f -tt`
# of the device side (adbd, or the worker) over one more push and one
# more pull of the tree, in b-adbd/strace-PEER-{push,pull}.txt.
peer_strace() {
	[ "${ADBD_BENCH_STRACE:-}" = 1 ] || return 0
	local st from to pids p
	export ANDROID_SERIAL=$3
	# The daemon and its children already running (gadgetd's spawner).
	pids="-p $2"
	for p in $(pgrep -P "$2"); do pids="$pids -p $p"; done
	for what in ${ADBD_BENCH_STRACE_JOBS:-push pull shell}; do
		timeout 900 strace -f -tt $pids -o "strace-$1-$what.txt" &
		st=$!
		sleep 1
		if [ $what = shell ]; then
			for _ in 1 2 3 4 5; do
				timeout 120 adb shell true || die "$1: adb shell true under strace failed"
			done
		else
			from=/dev/shm/b-adbd.tree to=/dev/shm/b-adbd.tdev
			[ $what = push ] || from=$to to=/dev/shm/b-adbd.tback
			timeout 600 adb $what $from $to >/dev/null 2>&1 || die "$1: the tree $what under strace failed"
		fi
		kill -INT $st
		wait $st
	done
	rm -rf /dev/shm/b-adbd.tdev /dev/shm/b-adbd.tback
	unset ANDROID_SERIAL
}

# adbd_up: Debian's adbd started afresh on its gadget, bound, and seen
# by adb as "device" (the time it took goes to $W/adbd.txt).
adbd_up() {
	local n=0
	cfs_gadget -m Debian -p "ADB device" -s ADBD-BENCH -c "ADB Configuration" \
		badbd 18d1 0100 ffs.adb || die "configfs (adbd)"
	mkdir -p $FFSD
	mount -t functionfs adb $FFSD || die "mount functionfs (adbd)"
	# /dev with what is mounted under it: /dev/shm, where the files go,
	# and the FunctionFS instance.
	for m in proc sys; do
		mount --bind "/$m" "$R/$m" || die "bind /$m into $R"
	done
	mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" || die "bind /dev into $R"
	[ -e "$R$FFSD/ep0" ] || die "no $FFSD/ep0 in $R"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		chroot "$R" /usr/lib/android-sdk/platform-tools/adbd >$W/adbd.log 2>&1 &
	ADBD_PID=$!
	# adbd opens ep0 and writes its descriptors; ep1 appears then.
	while [ ! -e $FFSD/ep1 ]; do
		n=$((n + 1))
		[ $n -lt 300 ] || die "adbd wrote no descriptors: $(cat $W/adbd.log)"
		kill -0 $ADBD_PID 2>/dev/null || die "adbd exited: $(cat $W/adbd.log)"
		sleep 0.05
	done
	bindmon_start
	T_BIND=$(date +%s%N)
	cfs_bind badbd || die "bind (adbd)"
	bind_figures adbd "$(device_ms ADBD-BENCH)"
}

# gadgetd_up: the adb plugin's worker started afresh on its gadget, the
# same way.
gadgetd_up() {
	cfs_gadget -m Debian -p "ADB device" -s GADGETD-BENCH -c "ADB Configuration" \
		bgadb 18d1 4ee7 ffs.gadb || die "configfs (gadgetd)"
	mkdir -p $FFSG
	mount -t functionfs -o no_disconnect=1 gadb $FFSG || die "mount functionfs (gadgetd)"
	WORKER_PID=$(adb_worker "$B" $FFSG "$W/ctl" "$W/worker.log" -o auth=off) ||
		die "adb worker did not start: $(cat $W/worker.log)"
	bindmon_start
	T_BIND=$(date +%s%N)
	cfs_bind bgadb || die "bind (gadgetd)"
	bind_figures gadgetd "$(device_ms GADGETD-BENCH)"
}

# peer_round PEER: PEER up, its jobs, PEER down and off the bus.
peer_round() {
	if [ "$1" = adbd ]; then
		adbd_up
		peer_jobs adbd ADBD-BENCH
		adbd_down
		wait_no_usb 18d1:0100 10 || die "the adbd gadget did not go"
	else
		gadgetd_up
		peer_jobs gadgetd GADGETD-BENCH
		gadgetd_down
		wait_no_usb 18d1:4ee7 10 || die "the gadgetd gadget did not go"
	fi
}

timeout 30 adb start-server >/dev/null 2>&1 || die "adb start-server"
: > "$W/adbd.txt"
: > "$W/gadgetd.txt"
for round in $(seq "${ADBD_BENCH_ROUNDS:-3}"); do
	if [ $((round % 2)) = 1 ]; then
		peer_round adbd
		peer_round gadgetd
	else
		peer_round gadgetd
		peer_round adbd
	fi
done
# ADBD_BENCH_ROUNDS=0: no rounds and no BENCH lines, only the traces.
if [ "${ADBD_BENCH_ROUNDS:-3}" != 0 ]; then
	peer_report adbd
	peer_report gadgetd
fi

if [ "${ADBD_BENCH_STRACE:-}" = 1 ]; then
	adbd_up
	peer_strace adbd "$ADBD_PID" ADBD-BENCH
	adbd_down
	wait_no_usb 18d1:0100 10 || die "the adbd gadget did not go"
	gadgetd_up
	peer_strace gadgetd "$WORKER_PID" GADGETD-BENCH
	gadgetd_down
fi
