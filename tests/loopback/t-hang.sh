# Hung workers and crash loops (issue #10, section 5): a worker that stops
# answering its heartbeat (SIGSTOP) is killed and restarted and adb works
# again; a plugin that keeps crashing is marked failed, the rest of the
# gadget stays bound and working, the host sees no more re-enumerations,
# status says why, and a switch brings the plugin back.
# bed: light - workers stopped with SIGSTOP and crash loops (fault injection)
. "$SRC/tests/loopback/lib.sh"
gd_install
cat > /etc/gadgetd/profiles/hang.conf <<'P'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "hang test"; serial = "HANG1"; };
};
functions: {
  acm: { type = "acm"; };
  adb: { type = "ffs"; plugin = "adb"; options: { auth = "off"; }; };
};
sets = (
  { functions = [ "acm", "adb" ]; product_id = 0x01e8; }
);
default = "acm,adb";
P
gd_config heartbeat_interval 1000
gd_config heartbeat_timeout 6000
gd_config restart_delay 200
gd_config restart_limit 3
gd_config restart_window 60000
gd_start hang
export HOME=/root
check "host sees acm,adb" wait_usb 1d6b:01e8 20
timeout 20 adb start-server >/dev/null 2>&1
check "adb shell works" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo before | grep -q before'

# The adb worker's pid from `gadgetctl status` (0 when none runs).
adb_pid() {
	local p
	p=$(gd_status 'plugin("adb").pid // 0' 2>/dev/null)
	echo "${p:-0}"
}
# wait_adb_back OLDPID SECS: until adb runs again, ready, with another pid;
# fails at once when adb is marked failed.
wait_adb_back() {
	local end=$(($(date +%s) + $2)) p
	while [ "$(date +%s)" -lt "$end" ]; do
		# "failed", or the pid once enabled or ready, else 0.
		p=$(gd_status 'plugin("adb") | if .state == "failed" then "failed"
			elif .state == "enabled" or .state == "ready" then .pid else 0 end' 2>/dev/null)
		[ "$p" = failed ] && return 1
		[ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

say "SIGSTOP the adb worker: the heartbeat catches it"
apid=$(adb_pid)
check "adb worker pid known ($apid)" test "$apid" -gt 1
t0=$(date +%s)
kill -STOP "$apid"
# heartbeat_timeout 6 s, ticks every 1 s, then the restart (200 ms) and
# READY and the rebind: back within 40 s even on this slow bed.
check "adb runs again with a new pid" wait_adb_back "$apid" 40
echo "adb back after $(($(date +%s) - t0)) s"
check "the log names the silent worker" grep -q "function adb: worker $apid did not answer the heartbeat for [0-9]* s; killing it" "$GD_LOG"
check "status says why it was restarted" gd_status 'plugin("adb") | .restarts == 1 and
	(.last_exit | startswith("killed by signal 9 (Killed) after missing its heartbeat"))'
check "the stopped process is gone" sh -c "! kill -0 $apid 2>/dev/null"
check "adb works again" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo after | grep -q after'

say "a busy worker is not killed: 24 MiB through adb"
head -c 25165824 /dev/urandom > /root/big.bin
p1=$(adb_pid)
check "adb push of 24 MiB" sh -c 'timeout 300 adb push /root/big.bin /run/big.bin >/dev/null'
check "adb pull gives the same bytes" sh -c 'timeout 300 adb pull /run/big.bin /root/big.back >/dev/null && cmp -s /root/big.bin /root/big.back'
check "the worker was not restarted meanwhile" test "$(adb_pid)" = "$p1"
rm -f /root/big.bin /root/big.back /run/big.bin

say "adb crashes in a loop (SIGSEGV) with no host: failed after restart_limit exits"
# Exits after a host enabled the function or sent it a request are the
# host's doing and never count (t-ep0-stall), so the host stops using
# the gadget first: the device and the ones the restarts enumerate stay
# unauthorized, never configured, and no host reaches adb.
host_dev() {
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = 1d6b:01e8 ] &&
			{ echo "$d"; return 0; }
	done
	return 1
}
dev=$(host_dev)
check "the host side's device is known ($dev)" test -n "$dev"
roothub=/sys/bus/usb/devices/usb$(cat "$dev/busnum")
echo 0 > "$roothub/authorized_default"
echo 0 > "$dev/authorized"
# A plugin that crashes on every start: each new adb worker gets SIGSEGV
# as soon as it shows in status, for as long as the killer runs.
killer() {
	last=
	while :; do
		p=$(adb_pid)
		if [ "$p" -gt 1 ] && [ "$p" != "$last" ]; then
			echo "kill -SEGV $p"
			kill -SEGV "$p" 2>/dev/null
			last=$p
		fi
		sleep 0.3
	done
}
killer &
kpid=$!
end=$(($(date +%s) + 120))
until gd_status 'plugin("adb").state == "failed"' 2>/dev/null || [ "$(date +%s)" -gt "$end" ]; do
	sleep 0.5
done
gadgetctl status
check "status says adb failed, and why" gd_status 'plugin("adb") | .state == "failed" and
	.failed == "crashed 3 times in 60 s; last: killed by signal 11 (Segmentation fault)"'
check "the log says it is not restarted" grep -q "function adb: failed: crashed 3 times in 60 s" "$GD_LOG"
# gadgetd binds the rest once more without adb (the kernel would tear a
# gadget down whose FunctionFS instance lost its worker at the host's next
# SET_CONFIGURATION); then nothing changes any more.
bound() { gd_status '.udc == "dummy_udc.0" and (.switching | not)'; }
n=0; until bound || [ $n -gt 100 ]; do sleep 0.2; n=$((n+1)); done
check "the gadget is bound, without adb" bound
check "the log says adb is left out" grep -q "function adb: left out of the configuration" "$GD_LOG"
sleep 2
e1=$(usb_enums)
say "watching the host for 15 s, the killer still on ($e1 enumerations so far)"
sleep 15
e2=$(usb_enums)
kill "$kpid"
wait "$kpid" 2>/dev/null
check "no re-enumeration after the failure ($e1 -> $e2)" test "$e1" = "$e2"
check "adb stays failed, no worker" gd_status 'plugin("adb").state == "failed"'
check "gadgetd itself is fine" kill -0 "$GD_PID"

say "acm keeps working while adb is failed"
# The host takes the gadget (without adb) again.
echo 1 > "$roothub/authorized_default"
dev=$(host_dev) && echo 1 > "$dev/authorized"
n=0; while [ ! -e /dev/ttyACM0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
stty -F /dev/ttyGS0 raw -echo clocal
# On this bed the first open of ttyACM0 after an enumeration fails now and
# then with EIO, whatever the other functions do (seen with adb healthy).
n=0; until stty -F /dev/ttyACM0 raw -echo clocal 2>/dev/null || [ $n -gt 5 ]; do sleep 1; n=$((n+1)); done
head -c 6000 /dev/urandom | base64 -w 76 > serial-in.txt
(timeout 10 head -c "$(wc -c < serial-in.txt)" /dev/ttyGS0 > serial-out.txt) &
rd=$!
sleep 0.2
timeout 10 sh -c 'cat serial-in.txt > /dev/ttyACM0'
wait $rd
check "serial bytes cross" cmp -s serial-in.txt serial-out.txt

say "a switch to the same set revives adb"
check "switch acm,adb succeeds" sh -c 'timeout 60 gadgetctl switch acm,adb'
check "adb is running again" gd_status 'plugin("adb").state | . == "enabled" or . == "ready"'
check "adb works after the switch" sh -c 'timeout 30 adb wait-for-device && timeout 20 adb shell echo revived | grep -q revived'

say "gadgetctl off stops the workers without blocking gadgetd"
check "off succeeds" sh -c 'timeout 20 gadgetctl off'
n=0; until gd_status '.set == ""' 2>/dev/null || [ $n -gt 50 ]; do sleep 0.1; n=$((n+1)); done
check "no worker is left" sh -c '! pgrep -x gadgetd-worker'
check "no FunctionFS mount is left" sh -c '! grep -q functionfs /proc/mounts'
check "switch back after off" sh -c 'timeout 60 gadgetctl switch acm,adb'
finish
