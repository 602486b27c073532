# A fresh install works as shipped: nothing of gadgetd's exists in the
# guest (the host's own /etc/gadgetd, /run/gadgetd, /var/lib/gadgetd and
# /srv/mtp are removed first, as the guest's root is the host's), then
# `make install`, gadgetd with the shipped gadgetd.conf, and a switch to
# every set of every installed profile as `gadgetctl list` names them:
# each switch succeeds, the host sees the set's VID:PID, adb and MTP
# answer where the set has them. Then a storage without its create flag
# fails the switch at once (well under ready_timeout) with the worker's
# own error line, naming only mtp, not adb starting beside it. Runs in
# the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

export HOME=/run/install-home
OWNED="/etc/gadgetd /run/gadgetd /var/lib/gadgetd /srv/mtp /srv/mtp-missing"

say "a pristine guest"
rm -rf $OWNED "$HOME"
for d in $OWNED; do
	check "$d is absent before the install" test ! -e "$d"
done
mkdir -p "$HOME"
# The real make install, not run-suite.sh's staged copy.
GD_STAGE= gd_install
check "make install made no /srv/mtp" test ! -e /srv/mtp
check "make install made no /var/lib/gadgetd" test ! -e /var/lib/gadgetd
check "make install made no /run/gadgetd" test ! -e /run/gadgetd
check "the shipped configuration is what make install put there" \
	cmp "$SRC/profiles/gadgetd.conf" /etc/gadgetd/gadgetd.conf

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT
# The operator lets this host's adb key in, as a user of a real board
# would (the shipped profile has adb auth on, keys in /etc/gadgetd/adb_keys).
timeout 30 adb start-server >/dev/null 2>&1
timeout 10 adb kill-server >/dev/null 2>&1
check "adb made a host key" test -s "$HOME/.android/adbkey.pub"
cp "$HOME/.android/adbkey.pub" /etc/gadgetd/adb_keys

gd_start
say "gadgetd made the directories it owns"
ls -ld /run/gadgetd /var/lib/gadgetd
check "/run/gadgetd: root's, 0755" [ "$(stat -c '%U %a' /run/gadgetd)" = "root 755" ]
check "/var/lib/gadgetd: root's, 0755" [ "$(stat -c '%U %a' /var/lib/gadgetd)" = "root 755" ]

# The sets of a profile, from `gadgetctl list`: "  NAME VID:PID ...".
sets_of() {
	gadgetctl list | awk '/^sets:/ { on = 1; next } on && /^  / { print $1, $2 }'
}

# adb_ok SERIAL: `adb devices` lists it as a device, and a shell answers.
adb_ok() {
	local n=0
	until timeout -k 2 5 adb devices 2>/dev/null | grep -q "^$1[[:space:]]*device\$"; do
		n=$((n + 1))
		[ $n -lt 60 ] || { timeout 5 adb devices; return 1; }
		sleep 0.5
	done
	[ "$(timeout -k 5 20 adb -s "$1" shell echo fresh </dev/null)" = fresh ]
}

# mtp_ok: libmtp finds the device and its storage.
mtp_ok() {
	timeout -k 5 60 mtp-detect > "mtp-detect-$1.txt" 2>&1 </dev/null
	grep -q "StorageDescription: Internal storage" "mtp-detect-$1.txt" ||
		{ tail -n 20 "mtp-detect-$1.txt"; return 1; }
}

PROFILES=$(gadgetctl list | sed -n 's/^profiles in [^:]*: //p')
check "gadgetctl list names the installed profiles ($PROFILES)" test -n "$PROFILES"
NSETS=0
for prof in $PROFILES; do
	sets_of > "sets-$prof.txt"
	# The list of the active profile; another one's after a switch to it.
	if [ "$(gd_status '.profile')" != "$prof" ]; then
		timeout 60 gadgetctl switch --profile "$prof" > /dev/null 2>&1
		sets_of > "sets-$prof.txt"
	fi
	cat "sets-$prof.txt"
	# fd 3: adb and mtp-detect must not eat the list on stdin.
	while read -r set id <&3; do
		NSETS=$((NSETS + 1))
		say "profile $prof, set $set ($id)"
		timeout 60 gadgetctl switch --profile "$prof" "$set" > "switch-$set.txt" 2>&1 </dev/null
		rc=$?
		cat "switch-$set.txt"
		check "switch to $set: exit 0" [ $rc = 0 ]
		# Counted as failed already; the checks below would only wait
		# out their time-outs on a device that is not there.
		[ $rc = 0 ] || continue
		check "host sees $id for $set" wait_usb "$id" 20
		case ",$set," in *,adb,*)
			check "$set: adb devices and adb shell answer" adb_ok GADGETD0001 ;;
		esac
		case ",$set," in *,mtp,*)
			check "$set: mtp-detect finds the storage" mtp_ok "$set"
			check "$set: gadgetd made /srv/mtp for gadgetd-mtp, 0750" \
				[ "$(stat -c '%U %G %a' /srv/mtp)" = "gadgetd-mtp gadgetd-mtp 750" ] ;;
		esac
		case ",$set," in *,accessory,*)
			check "$set: the accessory socket is there" \
				test -S /run/gadgetd/accessory/accessory.sock ;;
		esac
	done 3< "sets-$prof.txt"
done
check "every set was tried ($NSETS)" [ "$NSETS" -gt 0 ]
timeout 10 adb kill-server >/dev/null 2>&1

say "a storage without create, missing: the switch fails fast, naming only mtp"
sed -e 's|/srv/mtp"|/srv/mtp-missing"|' -e '/storage0_create/d' \
	/etc/gadgetd/profiles/android.conf > /etc/gadgetd/profiles/nocreate.conf
grep -n "storage0" /etc/gadgetd/profiles/nocreate.conf
# A failure that waited out ready_timeout would take all of it: with 20 s
# instead of the shipped 5 s, a loaded bed cannot blur the difference.
gd_stop
gd_config ready_timeout 20000
gd_start
# From acm: adb's worker starts afresh beside mtp's, healthy but slower
# than mtp's failure.
gd_switch --profile nocreate acm
wait_usb 1d6b:0106 20
t0=$(date +%s%N)
timeout 60 gadgetctl switch mtp,adb > nocreate.txt 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat nocreate.txt
echo "the failed switch took $ms ms (ready_timeout 20000 ms)"
check "the switch failed (exit 1)" [ $rc = 1 ]
check "it failed at once ($ms ms < 5000), not after ready_timeout" [ "$ms" -lt 5000 ]
[ "$ms" -lt 2000 ] || echo "note: over 2 s on this bed ($ms ms)"
check "gadgetctl shows the worker's own error line" \
	grep -q "function mtp: failed: .*storage0_path: /srv/mtp-missing: No such file or directory" nocreate.txt
check "no healthy function is named" sh -c "! grep -q 'function adb' nocreate.txt"
check "the gadget went back to acm" gd_status '.set == "acm"'
gd_status > status-nocreate.json
cat status-nocreate.json
check "gadgetctl status shows the failure and the worker's line" gd_status \
	'(.last_failure.message | test("function mtp: failed: .*storage0_path: /srv/mtp-missing: No such file or directory"))
		and .last_failure.time > 0'
check "nothing made /srv/mtp-missing" test ! -e /srv/mtp-missing
finish
