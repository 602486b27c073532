# Privilege separation: every worker under gadgetd runs as its function's
# user (the defaults made by make install), with no_new_privs, a seccomp
# filter and no capability; what adb does runs as that user, its shells
# outside the filter; FunctionFS, the MTP storage and the accessory socket
# belong to the worker alone; a worker that breaks its filter dies of
# SIGSYS and gadgetd says so. Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

STORE=/srv/mtp-priv
export HOME=/run/privsep-home
rm -rf "$HOME" "$STORE"
mkdir -p "$HOME"
# Made by root, 0755, as a board's image would have it; the mtp worker
# adopts it.
mkdir -m 0755 "$STORE"
gd_install
cat > /etc/gadgetd/profiles/privsep.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "privsep test"; serial = "PRIV1"; };
};
functions: {
  adb: { type = "ffs"; plugin = "adb"; options: { auth = "off"; model = "privsep"; }; };
  mtp: { type = "ffs"; plugin = "mtp"; options: { storage0_path = "$STORE"; }; };
  aoa: { type = "ffs"; plugin = "accessory"; options: { mode = "control"; }; };
  accessory: { type = "ffs"; plugin = "accessory";
               options: { mode = "data"; claim_timeout_ms = "120000"; }; };
  echo: { type = "ffs"; plugin = "echo"; };
};
sets = (
  { functions = [ "mtp", "adb", "aoa" ]; product_id = 0x01c0; },
  { functions = [ "accessory" ]; product_id = 0x01c1; },
  { functions = [ "echo" ]; product_id = 0x01c2; }
);
default = "mtp,adb,aoa";
P

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT

# worker_pid FUNCTION: from gadgetctl status --json.
worker_pid() { gd_status "plugin(\"$1\").pid"; }

# field PID KEY: a /proc/PID/status value, tabs and spaces squeezed.
field() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }

# sandboxed FUNCTION USER: the five lines of /proc/PID/status.
sandboxed() {
	pid=$(worker_pid "$1")
	u=$(id -u "$2")
	g=$(id -g "$2")
	check "$1: worker pid known ($pid)" test "${pid:-0}" -gt 1
	[ "${pid:-0}" -gt 1 ] || return
	grep -E '^(Uid|Gid|NoNewPrivs|Seccomp|CapEff|CapPrm|CapBnd):' "/proc/$pid/status"
	check "$1: Uid is $2 ($u)" [ "$(field "$pid" Uid)" = "$u $u $u $u" ]
	check "$1: Gid is $2's group ($g)" [ "$(field "$pid" Gid)" = "$g $g $g $g" ]
	check "$1: NoNewPrivs: 1" [ "$(field "$pid" NoNewPrivs)" = 1 ]
	check "$1: Seccomp: 2" [ "$(field "$pid" Seccomp)" = 2 ]
	check "$1: CapEff: 0000000000000000" [ "$(field "$pid" CapEff)" = 0000000000000000 ]
	check "$1: CapBnd: 0000000000000000" [ "$(field "$pid" CapBnd)" = 0000000000000000 ]
}

gd_start privsep
check "host sees mtp,adb,aoa" wait_usb 1d6b:01c0 20
check "the workers' users exist" id gadgetd-adb gadgetd-mtp gadgetd-aoa gadgetd-worker

say "each worker: its user, no_new_privs, seccomp, no capability"
sandboxed adb gadgetd-adb
sandboxed mtp gadgetd-mtp
sandboxed aoa gadgetd-aoa

say "FunctionFS belongs to the worker"
# The instances are mounted in gadgetd's mount namespace (the unit's own).
grep functionfs "/proc/$GD_PID/mounts"
ADBDIR=$(awk '$1 == "adb" && $3 == "functionfs" { print $2 }' "/proc/$GD_PID/mounts")
MTPDIR=$(awk '$1 == "mtp" && $3 == "functionfs" { print $2 }' "/proc/$GD_PID/mounts")
check "FunctionFS is mounted under /run/gadgetd/ffs" [ "$ADBDIR" = /run/gadgetd/ffs/adb ]
# f_fs shows no uid= in /proc/mounts: the files say who mounted them for.
check "adb's instance belongs to gadgetd-adb (uid=, gid=), 0500" \
	[ "$(gd_ns stat -c '%U %G %a' "$ADBDIR")" = "gadgetd-adb gadgetd-adb 500" ]
check "mtp's instance belongs to gadgetd-mtp" [ "$(gd_ns stat -c %U "$MTPDIR/ep1")" = gadgetd-mtp ]
check "ep0 of adb is the worker's, 0600" [ "$(gd_ns stat -c '%U %a' "$ADBDIR/ep0")" = "gadgetd-adb 600" ]
check "nobody may not open adb's ep0" sh -c "! nsenter -t $GD_PID -m setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups test -r $ADBDIR/ep0"
check "but gadgetd-adb may (the check can fail)" nsenter -t "$GD_PID" -m setpriv --reuid=gadgetd-adb --regid=gadgetd-adb --clear-groups test -r "$ADBDIR/ep0"

say "adb runs as its user; its shells outside the filter"
timeout 30 adb start-server >/dev/null 2>&1
check "adb sees the device" timeout 30 adb wait-for-device
check "adb shell id -u is gadgetd-adb's" [ "$(timeout 20 adb shell id -u)" = "$(id -u gadgetd-adb)" ]
check "adb shell id -un is gadgetd-adb" [ "$(timeout 20 adb shell id -un)" = gadgetd-adb ]
timeout 20 adb shell cat /proc/self/status > shell-status.txt 2>&1
# The worker's own filter stays with the worker; a shell has only what
# binds gadgetd itself (the unit's SystemCallFilter= and the like, none
# on the light bed): as many filters as gadgetd's main process.
nfilters() { sed -n 's/^Seccomp_filters:[[:space:]]*//p' "$1"; }
check "an adb shell has no seccomp filter beyond gadgetd's own" \
	[ "$(nfilters shell-status.txt)" = "$(nfilters /proc/$GD_PID/status)" ]
check "and the adb worker has one more of its own" \
	[ "$(nfilters /proc/$(worker_pid adb)/status)" -gt "$(nfilters /proc/$GD_PID/status)" ]
check "an adb shell has no capability" grep -q "^CapEff:[[:space:]]*0000000000000000$" shell-status.txt
APID=$(worker_pid adb)
SPID=$(pgrep -P "$APID" | head -n 1)
check "the spawner runs as gadgetd-adb ($SPID)" [ "$(field "$SPID" Uid)" = "$(id -u gadgetd-adb) $(id -u gadgetd-adb) $(id -u gadgetd-adb) $(id -u gadgetd-adb)" ]
check "the spawner holds no FunctionFS file" sh -c "! ls -l /proc/$SPID/fd | grep -q '$ADBDIR'"
echo privsep > push.txt
check "adb push where gadgetd-adb may write" sh -c "timeout 30 adb push push.txt /tmp/privsep-push.txt >/dev/null"
# /tmp as gadgetd and its adb shells see it (the unit's PrivateTmp=).
check "the pushed file belongs to gadgetd-adb" [ "$(gd_ns stat -c %U /tmp/privsep-push.txt)" = gadgetd-adb ]
check_exit 1 "adb push into /etc is refused (sync runs as the user)" \
	sh -c "timeout 30 adb push push.txt /etc/privsep-push.txt >/dev/null 2>&1"
check "nothing appeared in /etc" test ! -e /etc/privsep-push.txt
check "adb pull of /etc/shadow is refused" sh -c "! timeout 30 adb pull /etc/shadow shadow.out >/dev/null 2>&1"

say "MTP storage: the mtp user's, nobody else's"
check "storage handed to gadgetd-mtp, closed to others (0750)" [ "$(stat -c '%U %G %a' "$STORE")" = "gadgetd-mtp gadgetd-mtp 750" ]
head -c 100000 /dev/urandom > mtp.bin
timeout 120 mtp-sendfile mtp.bin / > send.txt 2>&1
check "mtp-sendfile stores the file" cmp mtp.bin "$STORE/mtp.bin"
check "and it belongs to gadgetd-mtp" [ "$(stat -c %U "$STORE/mtp.bin")" = gadgetd-mtp ]
timeout 60 mtp-files > files.txt 2>&1
check "libmtp lists it" grep -q "Filename: mtp.bin" files.txt
check "nobody cannot list the storage" sh -c "! setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups ls $STORE >/dev/null 2>&1"

say "the accessory socket: the accessory user's"
gd_switch accessory
check "host sees the accessory set" wait_usb 1d6b:01c1 20
sandboxed accessory gadgetd-aoa
SOCK=/run/gadgetd/accessory/accessory.sock
n=0; while [ ! -S $SOCK ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
ls -la /run/gadgetd /run/gadgetd/accessory
check "the socket exists and is gadgetd-aoa's" [ "$(stat -c %U $SOCK)" = gadgetd-aoa ]
check "its folder is gadgetd-aoa's, 0750" [ "$(stat -c '%U %a' /run/gadgetd/accessory)" = "gadgetd-aoa 750" ]
check "nobody cannot connect to it" sh -c "! setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' $SOCK 2>/dev/null"

say "a worker that breaks its filter dies of SIGSYS, and gadgetd says so"
gd_switch echo
check "host sees the echo set" wait_usb 1d6b:01c2 20
sandboxed echo gadgetd-worker
timeout 15 gadgetctl echo forbidden > forbidden.txt 2>&1
cat forbidden.txt
check "the echo worker did not answer" sh -c "! grep -q 'still alive' forbidden.txt"
n=0
until gd_status 'plugin("echo").last_exit | startswith("killed by signal 31")' || [ $n -ge 50 ]; do
	sleep 0.2
	n=$((n + 1))
done
gd_status
check "gadgetctl status: killed by signal 31, outside its seccomp filter" gd_status \
	'plugin("echo").last_exit == "killed by signal 31 (Bad system call): a system call outside its seccomp filter"'
check "gadgetd's log says so" gd_log_has "echo: worker killed by signal 31"

finish
