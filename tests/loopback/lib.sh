# Shell library for loopback tests, sourced inside the guest.
#
#   . "$SRC/tests/loopback/lib.sh"
#   gd_install                  # make install of this tree into the guest
#                               # (and `systemctl enable gadgetd` on the systemd bed),
#                               # or dpkg -i of $GD_DEB
#   gd_start [PROFILE]          # start gadgetd -f ($GD_BIN if set; PROFILE active; one
#                               # not in /etc comes from the installed examples);
#                               # on the systemd bed `systemctl restart gadgetd`
#   gd_log                      # gadgetd's log so far (the journal's on the systemd bed)
#   gd_ns CMD...                # CMD in gadgetd's mount namespace
#   bed_reboot                  # reboot the guest (systemd bed, `# bed: systemd disk`)
#   gd_switch SET               # gadgetctl switch SET, must succeed
#   wait_usb VID:PID [SECS]     # until the host side enumerates it
#   usb_dir VID:PID             # the host side's sysfs folder of the device
#   usb_devnum VID:PID          # its bus-devnum on the host side (new at each enumeration)
#   usb_enums                   # how many enumerations the host side has made
#   usbmon_on; usbmon_start FILE; usbmon_stop  # the bus's usbmon text into FILE
#   gd_status [FILTER]          # `gadgetctl status --json`, or jq FILTER over it
#   smaps KEY PID               # KEY's figure (kB) in PID's smaps_rollup
#   check "what" CMD...         # run CMD, print ok/FAIL, count failures
#   finish                      # stop gadgetd, print the tally, exit
#   cfs_gadget, cfs_bind, cfs_teardown...  # a gadget composed by hand (cfs.sh)
#
# Everything is bounded with timeout; the log of gadgetd is in
# $GD_LOG (kept in the test's output directory), or in the journal on
# the systemd bed.
#
# The bed: a test's header says which it needs, in a line of its own
# that run-suite.sh reads:
#   # bed: systemd        Debian's systemd is PID 1 (tests/vm/bed-systemd):
#                         gadgetd runs from its shipped unit, dbus, logind,
#                         polkit and avahi-daemon as systemd starts them.
#                         What a user gets; every feature has a test here.
#   # bed: systemd disk   the same, with the root's changes kept across
#                         bed_reboot.
#   # bed: light - WHY    no init: the test starts gadgetd -f by hand (and
#                         any daemon it needs). It proves less, and says why
#                         it runs here (it kills gadgetd, injects faults, runs
#                         an ASan build, composes gadgets by hand...).

: "${SRC:?}" "${B:?}"
. "$SRC/tests/loopback/cfs.sh"
GD_LOG=${GD_LOG:-/mnt/out/gadgetd.log}
GD_CONF=/etc/gadgetd/gadgetd.conf
GD_PID=
export GADGETD_SOCKET=/run/gadgetd.sock
FAILS=0
CHECKS=0
# After bed_reboot: the checks of the earlier boots count too.
for lib_t in /mnt/out/tally-boot*; do
	[ -f "$lib_t" ] || continue
	read -r _ lib_c _ lib_f _ < "$lib_t"
	CHECKS=$((CHECKS + ${lib_c%,})); FAILS=$((FAILS + lib_f))
done

# What the test scripts run costs the bed's one vCPU at every start:
# under TCG a dynamically linked program's start is 40-90 ms (/bin/true
# 43, coreutils' sleep 86, grep 92, `timeout 10 true` 131, jq 287), a
# static one's 8-16 (busybox's applets, gojq 35), a builtin's none; the
# suite started 12 947 programs, 1 824 of them timeout and 963 sleep
# (2026-12-07, tests/vm/guest-init's execs.txt). So the shell's own
# clock (say, within_s), gojq in gd_status, and $B/harness first on the
# PATH (make harness): timeout there is tests/loopback/gd-timeout.c,
# static, and sleep, grep and cat busybox's (harness-selftest.sh holds
# them to what they stand in for); `cmd &` then gives $! of the program
# itself, as it did, where a shell function would give a subshell's.
if [ -x "$B/harness/timeout" ]; then
	PATH=$B/harness:$PATH
	export PATH
fi
# lib_uptime_cs: /proc/uptime's seconds since boot in lib_cs, in
# hundredths (the file has two decimals), read by the shell itself.
lib_uptime_cs() {
	local lib_up lib_rest
	read -r lib_up lib_rest </proc/uptime
	lib_cs=${lib_up%.*}${lib_up#*.}
	lib_cs=${lib_cs#"${lib_cs%%[!0]*}"}
	lib_cs=${lib_cs:-0}
}
lib_uptime_cs
T0_CS=$lib_cs
# bed_systemd: true on the systemd bed.
bed_systemd() { [ -d /run/systemd/system ]; }
say() {
	local lib_cs lib_d
	lib_uptime_cs
	lib_d=$((lib_cs - T0_CS))
	echo "== [$((lib_d / 100)).$((lib_d % 100 / 10))s] $*"
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# check "description" command...: the command must exit 0.
# Helpers keep their variables local and prefixed with lib_, so that
# neither a test's own loop counters (n, i, desc) nor a command that a
# check runs (dash's local is dynamically scoped) can change them.
check() {
	local lib_desc=$1 lib_up lib_idle
	shift
	CHECKS=$((CHECKS + 1))
	if "$@"; then
		# GD_TIMES=1 (GADGETD_TEST_ENV): the guest's uptime as each
		# check ends, to see where a test's time goes.
		if [ -n "${GD_TIMES:-}" ]; then
			read -r lib_up lib_idle </proc/uptime
			echo "ok: $lib_desc [$lib_up]"
		else
			echo "ok: $lib_desc"
		fi
	else
		fail "$lib_desc (exit $?)"
	fi
}

# check_exit CODE "description" command...: the command must exit CODE.
check_exit() {
	local lib_want=$1 lib_desc=$2 lib_got
	shift 2
	CHECKS=$((CHECKS + 1))
	"$@"
	lib_got=$?
	if [ "$lib_got" = "$lib_want" ]; then
		echo "ok: $lib_desc (exit $lib_got)"
	else
		fail "$lib_desc: exit $lib_got, expected $lib_want"
	fi
}

# gd_log: gadgetd's log so far: $GD_LOG, or on the systemd bed the
# journal's lines of gadgetd.service (messages only, as gadgetd -f
# prints them).
gd_log() {
	if bed_systemd; then
		timeout 30 journalctl -q -u gadgetd.service -o cat --no-pager
	else
		cat "$GD_LOG" 2>/dev/null
	fi
}

# gd_log_has TEXT [SECS]: gadgetd logged TEXT (fixed, not a pattern)
# within SECS (5): the journal takes a moment to receive a line.
# gd_log_grep PATTERN [SECS]: the same for a grep pattern.
# (A basic pattern with no option: busybox's grep, the tests' own, has
# no -G.)
gd_log_has() { lib_log_wait -F "$@"; }
gd_log_grep() { lib_log_wait "" "$@"; }
lib_log_wait() {
	local lib_n=$((${3:-5} * 5))
	while [ $lib_n -gt 0 ]; do
		gd_log | grep -q $1 -e "$2" && return 0
		sleep 0.2
		lib_n=$((lib_n - 1))
	done
	echo "gadgetd's log has no \"$2\""
	return 1
}

# dump_logs LINES: the ends of gadgetd's log and the kernel's.
dump_logs() {
	if bed_systemd; then
		echo "---- journalctl -u gadgetd"
		timeout 30 journalctl -q -u gadgetd.service --no-pager | tail -n "$1"
	elif [ -f "$GD_LOG" ]; then
		echo "---- gadgetd log"; tail -n "$1" "$GD_LOG"
	fi
	echo "---- kernel log"; dmesg | tail -n "$1"
}

die() {
	echo "FATAL: $*"
	dump_logs 40
	exit 1
}

# gd_modules: the board's UDC (dummy_hcd); on the light bed also what
# the unit's ExecStartPre= and the host's udevd would load.
# GD_UDC=later: no dummy_hcd yet (the test loads it when the UDC should
# appear).
gd_modules() {
	if [ "${GD_UDC:-}" != later ]; then
		timeout 30 modprobe dummy_hcd ${GD_HCD_OPTS:-} || die "modprobe dummy_hcd"
		[ -e /sys/class/udc/dummy_udc.0 ] || die "no dummy_udc.0"
	fi
	# On the systemd bed the unit loads libcomposite and usb_f_fs, and
	# udevd the host-side class drivers as a PC's would.
	bed_systemd && return 0
	timeout 30 modprobe libcomposite || die "modprobe libcomposite"
	timeout 30 modprobe usb_f_fs || die "modprobe usb_f_fs"
	# No udevd in the light bed: load the host-side class drivers
	# ourselves, in one modprobe (each process costs the bed tens of
	# milliseconds, hundreds under load); one by one if that fails.
	local lib_mods="cdc_acm cdc_ether cdc_ncm rndis_host usb-storage sd_mod usbhid" lib_m
	if ! timeout 60 modprobe -a $lib_mods 2>/dev/null; then
		for lib_m in $lib_mods; do
			timeout 30 modprobe "$lib_m" 2>/dev/null || true
		done
	fi
}

# GD_DEB: a gadgetd_*.deb (run-suite.sh's GADGETD_TEST_DEB; make
# check-trixie's package) installed with `dpkg -i` as a board gets it:
# its postinst makes the workers' users and enables and starts the unit.
# Else GD_STAGE: a `make install-files DESTDIR=GD_STAGE` tree run-suite.sh made
# once for all tests. Copying it and making the workers' users as the
# Makefile would (systemd-sysusers) is two processes, where make is some
# forty and parses every dependency file: 40 s against 2 on a loaded
# machine. Empty (t-install): the real make install.
gd_install() {
	gd_modules
	say "modules loaded"
	if [ -n "${GD_DEB:-}" ]; then
		[ -f "$GD_DEB" ] || die "GD_DEB $GD_DEB is not a file in the guest"
		timeout 300 dpkg -i "$GD_DEB" >/mnt/out/install.log 2>&1 ||
			{ cat /mnt/out/install.log; die "dpkg -i $GD_DEB failed"; }
		say "installed $(basename "$GD_DEB") with dpkg"
		return 0
	fi
	# A GD_STAGE the guest cannot see is run-suite.sh's mistake, not a
	# reason to fall back to a make install ten times slower, unseen.
	if [ -n "${GD_STAGE:-}" ]; then
		[ -d "$GD_STAGE" ] || die "GD_STAGE $GD_STAGE is not a directory in the guest"
		command -v systemd-sysusers >/dev/null || die "GD_STAGE: systemd-sysusers is missing"
		# What make install does beyond copying (Makefile, install-files):
		# the workers' users, and udevd told of the new rules.
		{ cp -a "$GD_STAGE/." / &&
			timeout 60 systemd-sysusers /usr/lib/sysusers.d/gadgetd.conf &&
			if udevadm control --ping >/dev/null 2>&1; then
				timeout 60 udevadm control --reload
			fi; } >/mnt/out/install.log 2>&1 ||
			{ cat /mnt/out/install.log; die "install from $GD_STAGE failed"; }
		say "installed"
		gd_unit_enable
		return 0
	fi
	timeout 120 make -s -C "$SRC" install-files PREFIX=/usr SYSCONFDIR=/etc >/mnt/out/install.log 2>&1 ||
		{ cat /mnt/out/install.log; die "make install failed"; }
	gd_unit_enable
}

# gd_unit_enable: on the systemd bed, what a user does after make
# install: `systemctl enable gadgetd`; gd_start starts it once the test
# has chosen its profile. --no-reload: systemd loads a unit it has never
# loaded from disk when it is first started, and the reload of every unit
# costs the bed 3.5 s of its one vCPU (t-deb's dpkg and t-unit's reboot
# take the reloading paths).
gd_unit_enable() {
	bed_systemd || return 0
	timeout 60 systemctl enable --no-reload gadgetd.service 2>&1 ||
		die "systemctl enable gadgetd failed"
}

# gd_config KEY VALUE: set one setting in the installed gadgetd.conf.
gd_config() {
	grep -v "^[[:space:]]*$1[[:space:]]*=" "$GD_CONF" > "$GD_CONF.new"
	echo "$1 = $2;" >> "$GD_CONF.new"
	mv "$GD_CONF.new" "$GD_CONF"
}

# gd_example NAME: a test profile from the installed examples (lab.conf,
# adb auth off, is only installed there) into the profile directory.
GD_EXAMPLES=/usr/share/doc/gadgetd/examples
gd_example() {
	[ -e "/etc/gadgetd/profiles/$1.conf" ] || [ ! -f "$GD_EXAMPLES/$1.conf" ] ||
		install -m644 "$GD_EXAMPLES/$1.conf" "/etc/gadgetd/profiles/$1.conf"
}

# gd_status [FILTER]: with no FILTER, `gadgetctl status --json` as it
# comes. With FILTER, a jq filter over it, where plugin(NAME) is that
# plugin's entry ({} when absent): true is exit status 0, false or null
# 1, both silent; any other result is printed (strings raw). No answer
# from gadgetd, or a FILTER jq refuses, is 2 with the reason on stderr.
# Tests read the JSON, never the human text, e.g.
#   gd_status '.set == "ncm" and (.switching | not)'
#   pid=$(gd_status 'plugin("adb").pid')
# gojq (static, 35 ms a start under TCG), else jq (287 ms), not python3
# (300 ms, and seconds on the loaded bed). The two differ only in the
# wording of an error and in the order of an object's keys (gojq sorts
# them), for every filter the tests give (2026-12-07).
if command -v gojq >/dev/null 2>&1; then
	GD_JQ=gojq
else
	GD_JQ=jq
fi
gd_status() {
	local lib_json lib_out
	command -v $GD_JQ >/dev/null || { echo "gd_status: needs gojq or jq (tests/vm/deps.sh)" >&2; return 2; }
	lib_json=$(timeout 10 gadgetctl status --json) ||
		{ echo "gd_status: gadgetctl status --json failed" >&2; return 2; }
	[ $# -gt 0 ] || { printf '%s\n' "$lib_json"; return 0; }
	lib_out=$(printf '%s\n' "$lib_json" |
		$GD_JQ -r "def plugin(\$n): first(.plugins[] | select(.name == \$n)) // {}; $1") || return 2
	case $lib_out in
	true) return 0 ;;
	false | null) return 1 ;;
	esac
	printf '%s\n' "$lib_out"
}

# smaps KEY PID: KEY's figure (kB: Rss, Anonymous...) in PID's
# smaps_rollup, which walks the page tables; /proc/PID/status's VmRSS and
# RssAnon lag on the bed's 6.1 kernel (per-task counters folded in every
# 64 page faults).
smaps() { awk -v k="$1:" '$1 == k { print $2 }' /proc/$2/smaps_rollup; }

gd_start() {
	if [ -n "${1:-}" ]; then
		gd_example "$1"
		gd_config profile "\"$1\""
	fi
	if bed_systemd; then
		[ -z "${GD_BIN:-}" ] || die "GD_BIN=$GD_BIN: the systemd bed runs the installed gadgetd"
		timeout 120 systemctl restart gadgetd.service ||
			{ timeout 10 systemctl status gadgetd.service --no-pager; die "systemctl restart gadgetd failed"; }
		GD_PID=$(systemctl show -p MainPID --value gadgetd.service)
	else
		"${GD_BIN:-gadgetd}" -f -v >>"$GD_LOG" 2>&1 &
		GD_PID=$!
	fi
	local lib_i=0
	# GD_START_WAIT: seconds (10); a start-up that falls back runs more
	# than one switch.
	while [ $lib_i -lt $((${GD_START_WAIT:-10} * 10)) ]; do
		# Ready once the start-up switch is over.
		if [ -S "$GADGETD_SOCKET" ] && gd_status '.switching | not' 2>/dev/null; then
			say "gadgetd up"
			return 0
		fi
		kill -0 "$GD_PID" 2>/dev/null || die "gadgetd exited at start"
		sleep 0.1
		lib_i=$((lib_i + 1))
	done
	die "gadgetd was not idle within ${GD_START_WAIT:-10} s of its start"
}

# gd_ns CMD...: CMD in gadgetd's mount namespace (the unit's own, with
# its private /tmp and its FunctionFS mounts; the guest's on the light
# bed).
gd_ns() { nsenter -t "$GD_PID" -m -- "$@"; }

# gd_wait_restarted OLDPID [SECS]: on the systemd bed, systemd started
# gadgetd again (Restart=) with a new main PID, and it is idle: GD_PID
# is the new one.
gd_wait_restarted() {
	local lib_n=$((${2:-20} * 5)) lib_p
	while [ $lib_n -gt 0 ]; do
		lib_p=$(systemctl show -p MainPID --value gadgetd.service)
		if [ "$lib_p" != 0 ] && [ "$lib_p" != "$1" ] &&
			gd_status '.switching | not' 2>/dev/null; then
			GD_PID=$lib_p
			return 0
		fi
		sleep 0.2
		lib_n=$((lib_n - 1))
	done
	echo "gd_wait_restarted: gadgetd's main PID is $(systemctl show -p MainPID --value gadgetd.service), was $1"
	return 1
}

gd_stop() {
	[ -n "$GD_PID" ] || return 0
	if bed_systemd; then
		timeout 120 systemctl stop gadgetd.service || echo "gd_stop: systemctl stop gadgetd failed"
		GD_PID=
		return 0
	fi
	kill -TERM "$GD_PID" 2>/dev/null
	local lib_i=0
	while kill -0 "$GD_PID" 2>/dev/null && [ $lib_i -lt 50 ]; do
		sleep 0.1
		lib_i=$((lib_i + 1))
	done
	kill -KILL "$GD_PID" 2>/dev/null
	GD_PID=
}

gd_switch() {
	timeout 60 gadgetctl switch "$@" || die "gadgetctl switch $* failed"
}

# check_switch SET VID:PID: two checks: `gadgetctl switch SET` exits 0
# (its answer shown), and the host sees VID:PID within 20 s.
check_switch() {
	local lib_rc
	timeout 60 gadgetctl switch "$1" > switch.txt 2>&1
	lib_rc=$?
	cat switch.txt
	check "gadgetctl switch $1: exit 0" [ $lib_rc = 0 ]
	check "the host sees $1 ($2)" wait_usb "$2" 20
}

# within_s SECS CMD...: CMD succeeds within SECS seconds (tried every
# 0.2 s, and once more at the end). The clock is /proc/uptime, read by
# the shell itself: a poll's every round costs the bed's one vCPU each
# process it starts, 30-60 ms for a small dynamically linked one (date,
# lsusb more) under TCG, 7 ms for busybox's (2026-12-07).
within_s() {
	local lib_end lib_up lib_rest
	read -r lib_up lib_rest < /proc/uptime
	lib_end=$((${lib_up%.*} + $1))
	shift
	while :; do
		read -r lib_up lib_rest < /proc/uptime
		[ "${lib_up%.*}" -lt $lib_end ] || break
		"$@" && return 0
		sleep 0.2
	done
	"$@"
}

# wait_usb VID:PID [SECS]: the host side sees the device (usb_dir, from
# sysfs as lsusb reads it, without a process a round).
wait_usb() {
	local lib_n=$((${2:-15} * 10))
	while [ $lib_n -gt 0 ]; do
		usb_dir "$1" >/dev/null && return 0
		sleep 0.1
		lib_n=$((lib_n - 1))
	done
	echo "no USB device $1 on the host side; lsusb says:"
	lsusb
	return 1
}

# adb_key_home DIR: DIR made anew with HOME=DIR/home exported, a host key
# made there by `adb keygen` (what adb and the raw hosts sign with), and
# its public half in DIR/adb_keys (the worker's keys option).
adb_key_home() {
	rm -rf "$1"
	mkdir -p "$1/home/.android" || return 1
	export HOME=$1/home
	timeout 60 adb keygen "$HOME/.android/adbkey" >/dev/null 2>&1 || return 1
	cp "$HOME/.android/adbkey.pub" "$1/adb_keys"
}

# adb_worker BUILD FFSDIR CTL LOG [OPTION...]: BUILD's gadgetd-worker with
# BUILD/plugins/adb.so on the mounted FunctionFS FFSDIR, behind
# ffs_worker.py's control socket CTL, its stderr appended to LOG, each
# OPTION passed on (-o auth=on, -v...). Prints the worker's pid once it
# is ready; status 1 if it did not start.
adb_worker() {
	local lib_b=$1 lib_ffs=$2 lib_ctl=$3 lib_log=$4 lib_ready
	shift 4
	lib_ready=$(timeout 20 python3 "$SRC/tests/loopback/ffs_worker.py" start "$lib_ctl" -- \
		"$lib_b/gadgetd-worker" -P "$lib_b/plugins/adb.so" -i adb -d "$lib_ffs" "$@" \
		2>>"$lib_log") || return 1
	lib_ready=$(echo "$lib_ready" | awk '$1 == "READY" { print $2 }')
	[ -n "$lib_ready" ] && echo "$lib_ready"
}

# adb_by_hand GADGET SERIAL INSTANCE FFS DIR: for a bench, the adb plugin
# composed by hand: ConfigFS gadget GADGET (18d1:4ee7, SERIAL), FunctionFS
# INSTANCE mounted at FFS, this build's worker behind ffs_worker.py (auth
# on, DIR/adb_keys of adb_key_home; its log DIR/worker.log), bound, and
# seen by adb as a device.
adb_by_hand() {
	cfs_gadget -s "$2" "$1" 18d1 4ee7 "ffs.$3" || die "configfs"
	mkdir -p "$4"
	mount -t functionfs -o no_disconnect=1 "$3" "$4" || die "mount functionfs"
	adb_worker "$B" "$4" "$5/ctl" "$5/worker.log" -o auth=on -o keys="$5/adb_keys" \
		>/dev/null || die "adb worker did not start"
	cfs_bind "$1" || die "bind"
	timeout 30 adb start-server >/dev/null 2>&1
	timeout 30 adb wait-for-device || die "adb does not see the device"
}

# adb_state SERIAL STATE [SECS]: `adb devices` lists SERIAL in STATE
# (device, unauthorized, ...) within SECS (10).
adb_state() {
	local lib_n=$((${3:-10} * 5))
	while [ $lib_n -gt 0 ]; do
		timeout 5 adb devices 2>/dev/null | grep -q "^$1[[:space:]]*$2\$" && return 0
		sleep 0.2
		lib_n=$((lib_n - 1))
	done
	echo "adb devices says:"; timeout 5 adb devices
	return 1
}

# netif_by_mac MAC: the name of the network interface with that address
# (the host side's end of a USB network link), waiting up to 15 s for it.
netif_by_mac() {
	local lib_d lib_n=0
	while [ $lib_n -lt 150 ]; do
		for lib_d in /sys/class/net/*; do
			[ "$(cat "$lib_d/address" 2>/dev/null)" = "$1" ] && { basename "$lib_d"; return 0; }
		done
		sleep 0.1
		lib_n=$((lib_n + 1))
	done
	return 1
}

# host_blk LUN: the host's block device of LUN (sdX or srX), once there
# (its SCSI address H:C:T:L ends in :LUN, on a host below a USB device:
# the systemd bed's udevd also loads QEMU's own IDE CD-ROM, sr0 at
# 1:0:0:0).
host_blk() {
	local lib_i=0 lib_b lib_dev
	while [ $lib_i -lt 300 ]; do
		for lib_b in /sys/block/sd* /sys/block/sr*; do
			[ -e "$lib_b/device" ] || continue
			lib_dev=$(readlink -f "$lib_b/device")
			case $lib_dev in */usb[0-9]*/*) ;; *) continue ;; esac
			case $(basename "$lib_dev") in
			*:"$1") echo "/dev/$(basename "$lib_b")"; return 0 ;;
			esac
		done
		sleep 0.1
		lib_i=$((lib_i + 1))
	done
	return 1
}

# blk_rates NAME DEV: 64 MiB written to and read back from the host's
# block device DEV with O_DIRECT; prints "BENCH NAME_write_mbps" and
# "BENCH NAME_read_mbps" lines (b-ceiling, b-storage).
blk_rates() {
	local lib_t0 lib_t1 lib_t2
	lib_t0=$(date +%s%N)
	timeout 120 dd if=/dev/zero of="$2" bs=1M count=64 oflag=direct 2>/dev/null || die "dd write to $2"
	lib_t1=$(date +%s%N)
	timeout 120 dd if="$2" of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null || die "dd read of $2"
	lib_t2=$(date +%s%N)
	awk -v n="$1" -v w=$((lib_t1 - lib_t0)) -v r=$((lib_t2 - lib_t1)) 'BEGIN {
		printf "BENCH %s_write_mbps %.1f MB/s\n", n, 67108864 / 1e6 / (w / 1e9)
		printf "BENCH %s_read_mbps %.1f MB/s\n", n, 67108864 / 1e6 / (r / 1e9) }'
}
# serial_raw TTY: raw, no echo, no carrier wait, and no output
# processing left (stty -a shows -opost).
serial_raw() {
	stty -F "$1" raw -echo clocal 2>/dev/null &&
		stty -F "$1" -a 2>/dev/null | grep -q -- '-opost'
}

# serial_send FROM TO BYTES NAME [SECS]: random text written to FROM must
# be read back intact from TO within SECS (10); NAME.sent and NAME.got
# keep both sides.
serial_send() {
	local lib_rd lib_s=${5:-10} lib_n=0
	# Both ends raw right before the transfer, and seen to be: a tty
	# the host made again after the caller's stty (or a stty that came
	# too early) turned the host's \n into \r\n (check-arm64, loaded
	# machine, 2026-12-05).
	until serial_raw "$1" && serial_raw "$2"; do
		lib_n=$((lib_n + 1))
		[ $lib_n -lt 50 ] || { echo "serial_send: cannot make $1 and $2 raw" >&2; return 1; }
		sleep 0.1
	done
	head -c "$3" /dev/urandom | base64 -w 64 > "$4.sent"
	(timeout "$lib_s" head -c "$(wc -c < "$4.sent")" "$2" > "$4.got") &
	lib_rd=$!
	sleep 0.5
	timeout "$lib_s" sh -c "cat $4.sent > $1"
	wait $lib_rd
	cmp -s "$4.sent" "$4.got"
}

# wait_no_usb VID:PID [SECS]: the device is gone from the host side.
wait_no_usb() {
	local lib_n=$((${2:-15} * 10))
	while [ $lib_n -gt 0 ]; do
		lsusb -d "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
		lib_n=$((lib_n - 1))
	done
	return 1
}

# usb_dir VID:PID: the host side's sysfs folder of the device; nothing
# and status 1 when the host does not see it.
usb_dir() {
	local lib_d lib_v
	for lib_d in /sys/bus/usb/devices/*; do
		[ -f "$lib_d/idVendor" ] || continue
		read -r lib_v < "$lib_d/idVendor" || continue
		[ "$lib_v" = "${1%:*}" ] || continue
		read -r lib_v < "$lib_d/idProduct" || continue
		[ "$lib_v" = "${1#*:}" ] || continue
		echo "$lib_d"
		return 0
	done
	return 1
}

# usb_devnum VID:PID: "BUS-DEVNUM" of the host side's device, which
# changes with every enumeration (an unbind and bind, a reset does not);
# nothing and status 1 when the host does not see it.
usb_devnum() {
	local lib_d
	lib_d=$(usb_dir "$1") && [ -f "$lib_d/devnum" ] || return 1
	echo "$(cat "$lib_d/busnum")-$(cat "$lib_d/devnum")"
}

# usb_enums: the enumerations the host side logged since boot (one per
# bind of a gadget that the host sees; resets are not counted).
usb_enums() { dmesg | grep -c 'new .*USB device number'; }

# usbmon_on: usbmon's text interface for every bus (the module, debugfs
# mounted); dies without it. usbmon_start FILE: that text into FILE
# (USBMON_PID) until usbmon_stop, from when it returns: it waits for its
# reader to have the interface open (usbmon gives a reader only the
# events after its open). The lines' fields:
# Documentation/usb/usbmon.rst (tests/bench/usbmon-*.awk read them).
USBMON=/sys/kernel/debug/usb/usbmon/0u
USBMON_PID=
usbmon_on() {
	timeout 30 modprobe usbmon 2>/dev/null
	[ -d /sys/kernel/debug/usb ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -e "$USBMON" ] || die "no usbmon text interface ($USBMON)"
}
usbmon_start() {
	local lib_n=0
	cat "$USBMON" > "$1" &
	USBMON_PID=$!
	while ! ls -l /proc/$USBMON_PID/fd 2>/dev/null | grep -q usbmon; do
		lib_n=$((lib_n + 1))
		[ $lib_n -lt 100 ] || die "usbmon's reader did not open $USBMON"
		sleep 0.02
	done
}
usbmon_stop() {
	[ -n "$USBMON_PID" ] || return 0
	kill "$USBMON_PID" 2>/dev/null
	wait "$USBMON_PID" 2>/dev/null
	USBMON_PID=
}

# A product id of a set in the profile, from `gadgetctl list`.
set_pid() {
	gadgetctl list | awk -v s="$1" '/^sets:/ { on = 1 } on && $1 == s { split($2, id, ":"); print id[2] }'
}

# bed_reboot: reboot the guest (a test with `# bed: systemd disk`): the
# test runs again from its start in the new boot, with BED_BOOT one
# higher and the root's changes kept; its output goes on in the same
# console log. The journal of this boot is kept as journal-bootN.txt.
bed_reboot() {
	bed_systemd || die "bed_reboot: not on the systemd bed"
	timeout 60 journalctl -b --no-pager -o short-monotonic > "/mnt/out/journal-boot$BED_BOOT.txt" 2>&1
	echo "checks: $CHECKS, failures: $FAILS (boot $BED_BOOT)" > "/mnt/out/tally-boot$BED_BOOT"
	touch /mnt/out/.bed-reboot
	sync
	say "rebooting the guest"
	timeout 120 systemctl reboot
	sleep 600
	die "the guest did not reboot"
}

finish() {
	gd_stop
	echo "checks: $CHECKS, failures: $FAILS"
	[ "$CHECKS" -gt 0 ] || { echo "FAIL: no check ran"; exit 1; }
	[ "$FAILS" = 0 ] || { dump_logs 60; exit 1; }
	exit 0
}
