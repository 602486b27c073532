# An existing FunctionFS program as a function (type = "ffs"; exec = ...):
# Debian's umtprd (umtp-responder), which no one here wrote, composed by
# gadgetd beside its own adb plugin, its configuration given in the
# profile alone (config, written by gadgetd and named by %c in args; %f
# the instance's folder). The host lists and transfers with mtp-tools and
# runs adb shell; after a switch away and back it does so again with one
# umtprd; a kill -9 of umtprd is restarted like a crashed worker (status,
# the monitor's plugin-restarted) and the host sees MTP again. Debian's
# adbd 34, which opens /dev/usb-ffs/adb itself (bind: its own mount
# namespace) and takes its libraries from LD_LIBRARY_PATH (env), is the
# adb of a set: adb 29's shell and push work, and kill -9 of adbd during
# a push is restarted with the gadget whole, thanks to the AIO guard
# gadgetd preloads into it (aio_guard; its guard process is counted).
# A missing or
# non-executable exec is refused by gadgetctl check and by the switch with
# file:line, and a program that never writes its descriptors fails the
# switch naming the function and the program, the gadget staying as it was.
# Runs in the guest (see run-suite.sh), gadgetd from make install and its
# unit. umtprd runs with no_inotify (see mtp_round: with inotify, each
# mtp-sendfile waited 60 s for libmtp's timeout).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
export LANG=C.UTF-8 HOME=/root
OUT=/mnt/out
ID=1d6b:01f0
ACM=1d6b:01f1
# Debian's adbd 34 (bookworm-backports) and its libraries, unpacked in a
# root of their own (tests/vm/mkadbd.sh; t-adb34.sh uses its adb).
R=$B/adbd/root
[ -x "$R/usr/lib/android-sdk/platform-tools/adbd" ] ||
	die "no adbd 34 in $R (make check makes it: tests/vm/mkadbd.sh)"
# gadgetd's unit has a /tmp of its own (PrivateTmp=yes), so a tree under
# /tmp (a clean clone's, as .ci/run's) is not there for it: the root is
# bound outside /tmp before gadgetd starts, where a board would install
# a program.
mkdir -p /srv/adbd-root
mount --bind "$R" /srv/adbd-root || die "cannot bind $R at /srv/adbd-root"
R=/srv/adbd-root
gd_install
# The board's data, which umtprd shares: made by the image, as /srv/mtp is
# for the mtp plugin (t-mtp-gadgetd.sh); the program runs as gadgetd's
# default user for a program, gadgetd-worker.
mkdir -p /srv/umtp
echo "from the board" > /srv/umtp/board.txt
chown -R gadgetd-worker: /srv/umtp
P=/etc/gadgetd/profiles/ffsexec.conf
cat > $P <<'EOF'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x01f0;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "ffs exec"; serial = "FFSX1"; };
};
functions: {
  umtp: { type = "ffs"; exec = "/usr/bin/umtprd"; args = [ "-conf", "%c" ];
    config = "loop_on_disconnect 1\n"
             "storage \"/srv/umtp\" \"umtp storage\" \"rw\"\n"
             "manufacturer \"gadgetd\"\nproduct \"umtprd under gadgetd\"\n"
             "serial \"FFSX1\"\nfirmware_version \"1\"\ninterface \"MTP\"\n"
             "usb_functionfs_mode 0x1\n"
             "usb_dev_path \"%f/ep0\"\nusb_epin_path \"%f/ep1\"\n"
             "usb_epout_path \"%f/ep2\"\nusb_epint_path \"%f/ep3\"\n"
             "usb_max_packet_size 0x200\nno_inotify 0x1\n";
    aio_guard = false; };
  adb: { type = "ffs"; plugin = "adb"; options: { auth = "off"; }; };
  acm: { type = "acm"; };
  adbd: { type = "ffs"; exec = "ADBD_ROOT/usr/lib/android-sdk/platform-tools/adbd";
    env = [ "LD_LIBRARY_PATH=ADBD_ROOT/usr/lib/x86_64-linux-gnu/android:ADBD_ROOT/usr/lib/x86_64-linux-gnu" ];
    bind = "/dev/usb-ffs/adb"; user = "root"; };
};
sets = (
  { functions = [ "umtp", "adb" ]; product_id = 0x01f0; },
  { functions = [ "acm" ]; product_id = 0x01f1; },
  { functions = [ "adbd" ]; product_id = 0x01f3; }
);
default = "acm";
EOF
sed -i "s|ADBD_ROOT|$R|g" $P
check "gadgetctl check passes the profile" gadgetctl check $P
# gadgetd starts on acm and the test switches to umtprd's set: at boot,
# on a machine loaded to 14 on 2 CPUs, gadgetd's own adb worker once took
# 5.2 s to be ready (ready_timeout is 5 s) and the start-up set failed.
gd_start ffsexec
gadgetctl monitor --json > $OUT/mon.json 2>$OUT/mon.err &
MON=$!
gd_switch umtp,adb

# mtp_round N: a file sent with mtp-tools lands in umtprd's storage, the
# listing shows it beside the board's file, and it comes back.
# no_inotify: umtprd 1.3.10 watches its storage with inotify and, for the
# file a SendObject creates, writes an ObjectAdded event on the interrupt
# endpoint from its inotify thread while holding the lock its command
# loop needs. libmtp (mtp-tools) never reads that endpoint, so the write
# and umtprd's answers waited until libmtp's 60 s timeout reset the
# device: usbmon showed the SendObject answered OK, then libmtp's
# GetObjectInfo of the new object taken by the device and never answered
# ("add_object_to_cache(): couldn't add object to cache", "Could not close
# session!"), and each round took about 70 s. Without inotify umtprd
# sends no events, and the send ends at once with libmtp's metadata read.
mtp_round() {
	local rc
	head -c 300000 /dev/urandom > /run/rt$1.bin
	timeout 120 mtp-sendfile /run/rt$1.bin / > $OUT/send$1.txt 2>&1
	rc=$?
	check "[$1] mtp-sendfile exits 0 ($rc), with no PTP error" \
		sh -c "[ $rc = 0 ] && ! grep -q 'PTP I/O Error\|Could not close session' $OUT/send$1.txt"
	check "[$1] mtp-sendfile stores the bytes in umtprd's storage" cmp /run/rt$1.bin /srv/umtp/rt$1.bin
	timeout 60 mtp-files > $OUT/files$1.txt 2>&1
	check "[$1] mtp-files lists the board's file" grep -q "Filename: board.txt" $OUT/files$1.txt
	id=$(awk -v f="rt$1.bin" '/^File ID:/ { id = $3 } $0 ~ "Filename: " f "$" { print id }' $OUT/files$1.txt)
	check "[$1] and the one sent (id $id)" [ -n "$id" ]
	timeout 120 mtp-getfile "$id" /run/back$1.bin > $OUT/get$1.txt 2>&1
	check "[$1] mtp-getfile returns its bytes" cmp /run/rt$1.bin /run/back$1.bin
}
adb_round() {
	timeout 30 adb wait-for-device
	out=$(timeout 20 adb shell echo shell-$1 2>&1)
	check "[$1] adb shell runs beside umtprd" [ "$out" = "shell-$1" ]
}
n_umtprd() { pgrep -c -x umtprd; }

say "umtprd and gadgetd's adb"
check "the host sees $ID" wait_usb $ID 20
check "status: umtp ready, its program umtprd" \
	gd_status 'plugin("umtp") | (.state == "ready" or .state == "enabled") and .status.program == "/usr/bin/umtprd"'
upid=$(gd_status 'plugin("umtp").status.program_pid')
timeout 30 gadgetctl umtp status > $OUT/cmd.txt 2>&1
rc=$?
cat $OUT/cmd.txt
check "gadgetctl umtp status is refused (exit $rc)" [ $rc != 0 ]
check "saying umtprd takes no commands" grep -q "/usr/bin/umtprd is a program, not a plugin: it takes no commands" $OUT/cmd.txt
check "exactly one umtprd, the one status names ($upid)" [ "$(n_umtprd)" = 1 -a "$(pgrep -x umtprd)" = "$upid" ]
check "it runs as gadgetd-worker" [ "$(ps -o user= -p "$upid")" = gadgetd-worker ]
# umtprd reads and writes its endpoints without AIO: the profile turns
# the guard off (aio_guard = false), and gadgetd preloads none.
check "umtprd runs without an AIO guard (aio_guard = false)" [ "$(pgrep -c -x aioguard)" = 0 ]
check "its config is gadgetd's, with %f expanded" \
	grep -q "usb_dev_path \"/run/gadgetd/ffs/umtp/ep0\"" "/proc/$upid/root/run/gadgetd/exec-umtp/config"
timeout 60 mtp-detect > $OUT/detect.txt 2>&1
check "mtp-detect: umtprd's model" grep -q "Model: umtprd under gadgetd" $OUT/detect.txt
timeout 20 adb start-server >/dev/null 2>&1
mtp_round 1
adb_round 1

say "switch away and back"
gd_switch acm
check "the host sees acm ($ACM)" wait_usb $ACM 20
check "no umtprd in the acm set" within_s 5 sh -c '! pgrep -x umtprd'
gd_switch umtp,adb
check "the host sees $ID again" wait_usb $ID 20
mtp_round 2
adb_round 2
check "exactly one umtprd after the switches" [ "$(n_umtprd)" = 1 ]

say "kill -9 umtprd"
upid=$(pgrep -x umtprd)
kill -KILL "$upid"
check "status: umtp restarted once, umtprd killed by signal 9" within_s 30 gd_status \
	'plugin("umtp") | .restarts == 1 and (.last_exit | startswith("killed by signal 9")) and (.state == "ready" or .state == "enabled")'
check "monitor: plugin-restarted umtp" within_s 10 grep -q '"event":"plugin-restarted","function":"umtp"' $OUT/mon.json
check "one umtprd again, a new one" sh -c "[ \"\$(pgrep -c -x umtprd)\" = 1 ] && [ \"\$(pgrep -x umtprd)\" != $upid ]"
check "the host sees $ID" wait_usb $ID 20
timeout 60 mtp-files > $OUT/files3.txt 2>&1
check "[3] mtp-files lists again after the restart" grep -q "Filename: rt2.bin" $OUT/files3.txt
adb_round 3

say "Debian's adbd 34 as the adb of a set"
ADBD=1d6b:01f3
gd_switch adbd
check "the host sees the adbd set ($ADBD)" wait_usb $ADBD 20
check "status: adbd's program runs" within_s 10 gd_status 'plugin("adbd").status.program_pid | tonumber > 0'
dpid=$(gd_status 'plugin("adbd").status.program_pid')
check "it sees its instance at /dev/usb-ffs/adb, in its own namespace" \
	sh -c "grep -q ' /dev/usb-ffs/adb .* - functionfs ' /proc/$dpid/mountinfo"
check "which the guest does not see" [ ! -e /dev/usb-ffs/adb ]
timeout 30 adb wait-for-device
out=$(timeout 20 adb shell echo from-adbd 2>&1)
check "adb 29 shell runs through adbd 34 ($out)" [ "$out" = from-adbd ]
head -c 200000 /dev/urandom > /run/adbd-src.bin
timeout 60 adb push /run/adbd-src.bin /run/adbd-dst.bin > $OUT/adbd-push.txt 2>&1
cat $OUT/adbd-push.txt
check "adb push through adbd stores the bytes" cmp /run/adbd-src.bin /run/adbd-dst.bin
check "one adbd, and its AIO guard beside it" \
	[ "$(pgrep -c -x adbd)" = 1 -a "$(pgrep -c -x aioguard)" = 1 ]
g=$(pgrep -x aioguard)
check "the guard shares adbd's memory, under seccomp, holds no endpoint" sh -c \
	"[ \"\$(readlink /proc/$g/exe)\" = \"\$(readlink /proc/$dpid/exe)\" ] &&
	 grep -q 'Seccomp:[[:space:]]*2' /proc/$g/status &&
	 ! ls -l /proc/$g/fd | grep -q usb-ffs && ! ls -l /proc/$g/fd | grep -q gadgetd/ffs"
# The guard's constructor takes itself out of adbd's environ (the
# variables its children get); /proc/PID/environ still shows the block
# adbd started with.
out=$(timeout 20 adb shell 'env; echo guards=$(pgrep -c -x aioguard)' 2>&1)
check "adbd's shell gets no LD_PRELOAD and starts no guard" \
	sh -c "! echo '$out' | grep -q LD_PRELOAD && echo '$out' | grep -qx guards=1"

# kill -9 of adbd during a push: Linux 6.1's f_fs could leave its
# completion worker tearing down adbd's memory and every later unbind
# blocked (functions/runtime/aioguard.h). gadgetd preloads its AIO guard
# into the program (aio_guard, on by default): each kill is restarted,
# the new adbd writes its descriptors, and no task is left in D state.
# Each kill lands while the push's data flows (the file has grown).
# Without the guard, 24 such kills never wedged this bed (adbd's 16 KiB
# reads leave a short window; docs/ffs-programs.md), so this proves a
# clean restart with the guard in place, and the guard's checks above
# fail without it; tests/unit/test_aiopreload.c proves what it does.
# 3 kills: 5 within restart_window would be a crash loop.
dstate() {
	for f in /proc/[0-9]*/stat; do
		read -r line < "$f" 2>/dev/null || continue
		rest=${line##*) }
		[ "${rest%% *}" = D ] || continue
		p=${f#/proc/}; p=${p%/stat}
		echo "$p:$(cat /proc/$p/comm 2>/dev/null):$(tr '\n' ' ' < /proc/$p/stack 2>/dev/null)"
	done
}
no_dstate() { [ -z "$(dstate)" ]; }
head -c 32000000 /dev/urandom > /run/adbd-big.bin
landed() { [ "$(stat -c %s /run/adbd-big-dst.bin 2>/dev/null || echo 0)" -gt $1 ]; }
K=${ADBD_KILLS:-3}
k=1
while [ $k -le $K ]; do
	dpid=$(pgrep -x adbd)
	rm -f /run/adbd-big-dst.bin
	timeout 60 adb push /run/adbd-big.bin /run/adbd-big-dst.bin > /dev/null 2>&1 &
	push=$!
	# adbd writes the file as its reads complete: kill it mid-stream.
	check "[kill $k] the push is under way" within_s 20 landed $((k * 2000000))
	kill -KILL "$dpid"
	check "[kill $k] adbd restarted ($k restarts), its descriptors written" within_s 30 gd_status \
		"plugin(\"adbd\") | .restarts == $k and (.state == \"ready\" or .state == \"enabled\")"
	check "[kill $k] no task in D state" within_s 10 no_dstate
	dstate
	kill $push 2>/dev/null
	wait $push 2>/dev/null
	check "[kill $k] the host sees adbd again" wait_usb $ADBD 20
	check "[kill $k] one adbd (a new one) and one guard" sh -c \
		"[ \"\$(pgrep -x adbd)\" != $dpid ] && [ \"\$(pgrep -c -x adbd)\" = 1 ] && [ \"\$(pgrep -c -x aioguard)\" = 1 ]"
	k=$((k + 1))
done
timeout 30 adb wait-for-device
out=$(timeout 20 adb shell echo after-kills 2>&1)
check "adb shell after the kills ($out)" [ "$out" = after-kills ]
timeout 60 adb push /run/adbd-src.bin /run/adbd-dst2.bin > $OUT/adbd-push2.txt 2>&1
check "adb push after the kills stores the bytes" cmp /run/adbd-src.bin /run/adbd-dst2.bin
check "gadgetctl switch away from adbd (acm) after the kills" timeout 60 gadgetctl switch acm
check "the host sees acm ($ACM)" wait_usb $ACM 20
check "and back to adbd" timeout 60 gadgetctl switch adbd
timeout 30 adb wait-for-device
out=$(timeout 20 adb shell echo back-again 2>&1)
check "adb shell through the adbd switched back to ($out)" [ "$out" = back-again ]
check "no task in D state after the switches" no_dstate
gd_switch umtp,adb
check "the host sees $ID" wait_usb $ID 20
check "no adbd and no guard once its set is gone" within_s 5 sh -c "! pgrep -x adbd && ! pgrep -x aioguard"


say "a bad exec is refused with file:line"
bad_exec() {
	sed "s|exec = \"/usr/bin/umtprd\"|exec = \"$1\"|" $P > /etc/gadgetd/profiles/ffsbad.conf
	line=$(grep -n "exec = \"$1\"" /etc/gadgetd/profiles/ffsbad.conf | cut -d: -f1)
	want="/etc/gadgetd/profiles/ffsbad.conf:$line: functions.umtp.exec: $2"
	timeout 30 gadgetctl check /etc/gadgetd/profiles/ffsbad.conf > $OUT/bad.txt 2>&1
	rc=$?
	cat $OUT/bad.txt
	check "gadgetctl check refuses exec = $1 (exit 5)" [ $rc = 5 ]
	check "naming file:line and why" grep -qF "$want" $OUT/bad.txt
	timeout 60 gadgetctl switch --profile ffsbad umtp,adb > $OUT/badswitch.txt 2>&1
	rc=$?
	cat $OUT/badswitch.txt
	check "the switch to it fails" [ $rc != 0 ]
	check "and says the same" grep -qF "$want" $OUT/badswitch.txt
}
bad_exec /usr/bin/no-such-umtprd "/usr/bin/no-such-umtprd: No such file or directory"
bad_exec /etc/gadgetd/gadgetd.conf "/etc/gadgetd/gadgetd.conf is not an executable file"
check "gadgetd stayed on umtp,adb" gd_status '.set == "umtp,adb"'

say "a program that never writes its descriptors"
cat > /etc/gadgetd/profiles/ffsslow.conf <<'EOF'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x01f2;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "silent"; serial = "FFSX2"; };
};
functions: { silent: { type = "ffs"; exec = "/bin/sleep"; args = [ "600" ]; }; };
sets = ( { functions = [ "silent" ]; } );
EOF
timeout 60 gadgetctl switch --profile ffsslow silent > $OUT/slow.txt 2>&1
rc=$?
cat $OUT/slow.txt
check "the switch fails" [ $rc != 0 ]
check "naming the function and the program" grep -q \
	"function silent: /bin/sleep wrote no descriptors to /run/gadgetd/ffs/silent/ep0 within [0-9]* ms" $OUT/slow.txt
check "no sleep 600 left behind" within_s 10 sh -c '! pgrep -f "^/bin/sleep 600"'
check "the gadget came back to umtp,adb" gd_status '.set == "umtp,adb"'
check "one umtprd" within_s 10 sh -c '[ "$(pgrep -c -x umtprd)" = 1 ]'
kill $MON 2>/dev/null
rm -rf /srv/umtp
rm -f $P /etc/gadgetd/profiles/ffsbad.conf /etc/gadgetd/profiles/ffsslow.conf
finish
