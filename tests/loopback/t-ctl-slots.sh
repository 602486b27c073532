# The control socket's 16 connections: a member of plugdev holds at most 4,
# and the last 4 stay for root and admin_group, so that members holding
# connections cannot lock an administrator out. A refused gadgetctl says
# why and exits 6 (busy) at once. Runs in the guest (see run-suite.sh).
# bed: light - the control socket's connection slots, which the unit does not
#   change; the socket under the unit: t-switch, t-unit
. "$SRC/tests/loopback/lib.sh"

gd_install
groupadd -f gdslotadm
for u in gdslot1 gdslot2 gdslot3 gdslot4; do
	useradd -M -N -G plugdev "$u" 2>/dev/null
done
# The socket is 0660 root:plugdev: an administrator is in both groups.
useradd -M -N -G plugdev,gdslotadm gdslotadm 2>/dev/null
gd_config admin_group '"gdslotadm"'
gd_start lab

# as USER CMD...: run as USER with its groups.
as() {
	local lib_u=$1
	shift
	setpriv --reuid="$lib_u" --regid=nogroup --init-groups "$@"
}
# hold USER N: USER opens N connections, says "held" on hold-USER.txt,
# and says nothing to gadgetd for 8 s (gadgetd closes a silent client
# after 10 s); $! is its pid.
hold() {
	as "$1" python3 -c '
import socket, sys, time
s = [socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(int(sys.argv[1]))]
for c in s:
    c.connect("/run/gadgetd.sock")
print("held", flush=True)
time.sleep(8)' "$2" >"hold-$1.txt" &
}
# held USER...: each USER's connections are open (within 30 s: python's
# start on a loaded bed took more than the 2 s once waited here).
held() {
	local lib_n=300 lib_u
	for lib_u in "$@"; do
		while ! grep -q held "hold-$lib_u.txt" 2>/dev/null; do
			lib_n=$((lib_n - 1))
			[ $lib_n -gt 0 ] || return 1
			sleep 0.1
		done
	done
}

say "three members hold 4 connections each (12 of 16)"
hold gdslot1 4
P1=$!
hold gdslot2 4
P2=$!
hold gdslot3 4
P3=$!
check "the three hold their connections" held gdslot1 gdslot2 gdslot3
check_exit 6 "a fifth connection of gdslot1 is refused" \
	sh -c 'setpriv --reuid=gdslot1 --regid=nogroup --init-groups timeout 5 gadgetctl status 2>uid.txt'
cat uid.txt
check "and gadgetctl says why" grep -q "uid [0-9]* already has 4 connections open (at most 4 per user)" uid.txt
check_exit 6 "gdslot4 gets none of the 4 reserved ones" \
	sh -c 'setpriv --reuid=gdslot4 --regid=nogroup --init-groups timeout 5 gadgetctl status 2>res.txt'
cat res.txt
check "and gadgetctl says why" grep -q "4 of 16 are kept for root and admin_group" res.txt
check "a member of admin_group gets in" as gdslotadm timeout 5 gadgetctl status
check "root gets in" timeout 5 gadgetctl status
wait "$P1" "$P2" "$P3"
say "the holders are gone"
check "gdslot1 gets in again" as gdslot1 timeout 5 gadgetctl status
check "gadgetd logged the refusals" gd_log_has "control: refusing a client: uid"
finish
