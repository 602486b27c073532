# ADB through the real adb 29 client: auth (unknown key -> unauthorized ->
# allow), shell (v2 exit codes, stdout/stderr, pty), push/pull, forward,
# reverse, and a worker crash. Runs in the guest (see run-suite.sh).
#
# The gadget is composed by hand (ConfigFS + FunctionFS + gadgetd-worker
# behind tests/loopback/ffs_worker.py standing in for gadgetd), so this
# test needs only the runtime and the adb plugin.
# bed: light - the gadget composed by hand around gadgetd-worker (no gadgetd):
#   adb 29 against the plugin alone; adb under the unit: t-adb-gadgetd, t-adb-
#   tcp
. "$SRC/tests/loopback/lib.sh"

W=/run/adb-work
OUT=$(pwd)
FFS=/run/ffs-adb
SERIAL=GADGETD-ADB1
VIDPID=18d1:4ee7
CTL=$W/ctl
export HOME=$W/home
export ADB_VENDOR_KEYS=
rm -rf "$W"
mkdir -p "$W" "$HOME"

cleanup() {
	cp "$W/worker.log" "$OUT/adb-worker.log" 2>/dev/null
	timeout 10 adb kill-server >/dev/null 2>&1
	[ -n "${SRV_PIDS:-}" ] && kill $SRV_PIDS 2>/dev/null
	pkill -KILL -f "gadgetd-worker.*$FFS" 2>/dev/null
	cfs_unbind adbtest
	umount $FFS 2>/dev/null
	cfs_teardown adbtest
}
trap cleanup EXIT

compose() {
	cfs_gadget -m gadgetd -p "adb test" -s $SERIAL -c adb adbtest 18d1 4ee7 ffs.adb &&
	mkdir -p $FFS &&
	# root owns the files; nobody's group may open them too, for the
	# restarted worker that runs as nobody.
	mount -t functionfs -o no_disconnect=1,gid=$(id -g nobody),fmode=0660,rmode=0550 adb $FFS
}

start_worker() {
	WORKER=$(adb_worker "$B" $FFS "$CTL" "$W/worker.log" -o auth=on -o keys=$W/adb_keys \
		-o product=gadgetdtest -o model=Loopback -o device=bed "$@" -v)
}

worker_cmd() {
	timeout 15 python3 "$SRC/tests/loopback/ffs_worker.py" cmd "$CTL" "$@"
}

# worker_rc RC ARGS...: the plugin's command answers with rc RC.
worker_rc() {
	local want=$1 out
	shift
	out=$(worker_cmd "$@")
	echo "  reply: $out"
	[ "${out%% *}" = "$want" ]
}

gd_modules
say "compose the gadget by hand, start the adb worker (auth on, no keys)"
compose || die "cannot compose the gadget"
start_worker || { cat "$W/worker.log"; die "adb worker did not get ready"; }
cfs_bind adbtest || die "cannot bind dummy_udc.0"
check "host sees $VIDPID" wait_usb $VIDPID 20

say "auth: a fresh adb key is unknown"
timeout 30 adb start-server >/dev/null 2>&1
check "adb devices: $SERIAL unauthorized" adb_state "$SERIAL" unauthorized
worker_cmd keys > "$W/keys.txt"
cat "$W/keys.txt"
FP=$(awk '$1 == "0" { print $2 }' "$W/keys.txt")
WANT=$(cut -d' ' -f1 "$HOME/.android/adbkey.pub" | python3 -c \
	'import base64, hashlib, sys; d = hashlib.md5(base64.b64decode(sys.stdin.read())).hexdigest().upper(); print(":".join(d[i:i + 2] for i in range(0, 32, 2)))')
check "gadgetctl adb keys lists the host key by MD5 fingerprint" [ -n "$FP" -a "$FP" = "$WANT" ]
check_exit 0 "shell refused while unauthorized" sh -c \
	"! timeout 10 adb -s $SERIAL shell true 2>/dev/null"
check "allow FP" worker_rc 0 allow "$FP"
check "adb devices: $SERIAL device after allow" adb_state "$SERIAL" device
check "keys file holds the key" grep -q "$(cut -d' ' -f1 "$HOME/.android/adbkey.pub")" "$W/adb_keys"
# The worker made it root's (0640, its group may read) and asked
# ffs_worker.py, standing in for gadgetd, to add the key.
check "keys file is root's, 0640" [ "$(stat -c %U:%a "$W/adb_keys")" = root:640 ]
check "allow of an unknown fingerprint fails with ENOENT" worker_rc -2 allow 00:11
timeout 10 adb kill-server >/dev/null 2>&1
timeout 30 adb start-server >/dev/null 2>&1
check "a restarted adb server is let in by signature" adb_state "$SERIAL" device

say "shell"
check "adb shell echo hi" [ "$(timeout 20 adb shell echo hi)" = hi ]
timeout 20 adb shell 'exit 3'
check "adb shell 'exit 3' exits 3" [ $? = 3 ]
timeout 20 adb shell 'echo out; echo err >&2; exit 0' >"$W/out.txt" 2>"$W/err.txt"
check "stdout and stderr arrive apart" sh -c \
	"[ \"\$(cat $W/out.txt)\" = out ] && [ \"\$(cat $W/err.txt)\" = err ]"
check "stdin reaches a raw shell" [ "$(echo piped | timeout 20 adb shell cat)" = piped ]
check "model reported by adb devices -l" sh -c "timeout 10 adb devices -l | grep -q 'model:Loopback'"
# The input stays open until the answer is back (or 20 s): on a loaded
# bed the shell can start after a fixed pause has run out.
( sleep 2; echo 'echo PTY_$((6*7)) TERM=$TERM; tty'
  for i in $(seq 40); do grep -q "^/dev/pts/" "$W/pty.txt" 2>/dev/null && break; sleep 0.5; done
  echo exit ) |
	TERM=vt100 timeout 30 script -qc "adb shell" /dev/null > "$W/pty.txt" 2>&1
check "interactive pty shell runs a command" grep -q "PTY_42 TERM=vt100" "$W/pty.txt"
check "interactive shell has a pty" grep -q "^/dev/pts/" "$W/pty.txt"

say "fairness: a bulk stream does not starve a shell"
timeout 120 adb exec-out 'cat /dev/zero' > /dev/null &
BULK=$!
sleep 1
check "a shell answers while exec-out streams /dev/zero" [ "$(timeout 20 adb shell echo alive)" = alive ]
check "the bulk stream was still running" kill -0 $BULK
kill $BULK 2>/dev/null
wait $BULK 2>/dev/null

say "push and pull"
head -c 33554432 /dev/urandom > "$W/big"
check "push 32 MiB" sh -c "timeout 120 adb push $W/big /run/adb-remote/sub/big >/dev/null"
check "pull 32 MiB" sh -c "timeout 120 adb pull /run/adb-remote/sub/big $W/big.back >/dev/null"
check "32 MiB round trip is byte-identical" cmp "$W/big" "$W/big.back"
mkdir -p "$W/tree/a/b" "$W/tree/c"
for f in a/1 a/b/2 a/b/3 c/4 5; do head -c $((RANDOM * 7 + 1)) /dev/urandom > "$W/tree/$f"; done
: > "$W/tree/c/empty"
check "push a directory tree" sh -c "timeout 60 adb push $W/tree /run/adb-remote/ >/dev/null"
check "pull it back" sh -c "timeout 60 adb pull /run/adb-remote/tree $W/tree.back >/dev/null"
check "tree round trip is identical" diff -r "$W/tree" "$W/tree.back"
check "adb ls lists pushed files" sh -c "timeout 20 adb ls /run/adb-remote/tree | grep -q ' 5\$'"
check_exit 1 "pull of a missing file fails" sh -c "timeout 20 adb pull /nonexistent/x $W/x >$W/pullerr.txt 2>&1"
cat "$W/pullerr.txt"
check "the error says why" grep -q "No such file or directory" "$W/pullerr.txt"
check_exit 1 "push into /proc fails" sh -c "timeout 20 adb push $W/tree/5 /proc/nonexistent/x >$W/pusherr.txt 2>&1"
cat "$W/pusherr.txt"
check "the error carries the device's strerror" grep -q "remote.*No such file or directory" "$W/pusherr.txt"

say "forward and reverse"
cat > "$W/echo_srv.py" <<'PY'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    data = c.recv(4096)
    c.sendall(b"echo:" + data)
    c.close()
PY
cat > "$W/echo_cli.py" <<'PY'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
c.sendall(sys.argv[2].encode())
print(c.recv(4096).decode())
PY
timeout 120 python3 "$W/echo_srv.py" 7101 "$W/srv1.ready" & SRV_PIDS="$!"
timeout 120 python3 "$W/echo_srv.py" 7201 "$W/srv2.ready" & SRV_PIDS="$SRV_PIDS $!"
n=0
while [ ! -e "$W/srv1.ready" -o ! -e "$W/srv2.ready" ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "adb forward tcp:7100 tcp:7101" sh -c "timeout 10 adb forward tcp:7100 tcp:7101"
check "data crosses the forward" [ "$(timeout 15 python3 "$W/echo_cli.py" 7100 fwd)" = "echo:fwd" ]
check "adb reverse tcp:7200 tcp:7201" sh -c "timeout 10 adb reverse tcp:7200 tcp:7201"
check "adb reverse --list shows it" sh -c "timeout 10 adb reverse --list | grep -q 'tcp:7200 tcp:7201'"
check "data crosses the reverse" [ "$(timeout 15 python3 "$W/echo_cli.py" 7200 rev)" = "echo:rev" ]
check "adb reverse --remove" sh -c "timeout 10 adb reverse --remove tcp:7200"

say "worker crash"
kill -KILL "$WORKER"
sleep 0.5
# As in t-ffs-echo.sh: Debian 6.1's f_fs deadlocks when ep0 of a deactivated
# instance is reopened while bound, so a restart is unbind, start, bind.
cfs_unbind adbtest
# The new worker runs as nobody (and so do its shells); it must read the keys.
chgrp "$(id -g nobody)" "$W/adb_keys" && chmod 640 "$W/adb_keys"
start_worker -u nobody || { cat "$W/worker.log"; die "restarted adb worker did not get ready"; }
cfs_bind adbtest || die "cannot bind dummy_udc.0 again"
check "adb reconnects after kill -9 of the worker" sh -c \
	"timeout 30 adb wait-for-device && [ \"\$(timeout 20 adb shell echo back)\" = back ]"
check "-u nobody: the shell runs as nobody" [ "$(timeout 20 adb shell id -un)" = nobody ]
check "with nobody's groups" [ "$(timeout 20 adb shell id -g)" = "$(id -g nobody)" ]

finish
