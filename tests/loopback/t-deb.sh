# The Debian package's life under systemd, as a board gets it: the
# gadgetd_*.deb built on the host (make deb, or the loopback target, into
# $B/deb) goes into a guest with nothing of gadgetd's (the host's
# /etc/gadgetd, /run/gadgetd, /var/lib/gadgetd and /srv/mtp removed first)
# by `dpkg -i`, the board's UDC already there. Install: the workers'
# users exist (postinst's systemd-sysusers), the configuration is dpkg's
# conffiles, and postinst enabled and started the unit: the host sees the
# shipped profile's default set. The operator lets this host's adb key in
# with `gadgetctl adb keys`/`adb allow`, and `gadgetctl switch mtp,adb`
# gives adb devices, adb shell and mtp-detect. Upgrade (the same package
# as the next version): gadgetd keeps running, the host never loses the
# device, and `systemctl restart` then runs the new one on the same set.
# Remove: the service stops and the gadget goes; the configuration stays.
# Purge: the configuration, the adb keys and the state go; the users and
# /srv/mtp stay. Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

export HOME=/run/deb-home
OWNED="/etc/gadgetd /run/gadgetd /var/lib/gadgetd /srv/mtp"
USERS="gadgetd-adb gadgetd-mtp gadgetd-aoa gadgetd-worker"
# The package run-suite.sh names (GADGETD_TEST_DEB: make check-trixie's),
# else make deb's.
DEB=${GD_DEB:-$(ls "$B"/deb/gadgetd_*_"$(dpkg --print-architecture)".deb 2>/dev/null | tail -n 1)}
[ -n "$DEB" ] || die "no $B/deb/gadgetd_*.deb: run make deb first"
# Where the package puts its unit: /lib (Debian 12's packages) or /usr/lib.
UNIT=$(dpkg-deb -c "$DEB" | awk '$NF ~ /\/systemd\/system\/gadgetd\.service$/ { sub(/^\./, "", $NF); print $NF }')
[ -n "$UNIT" ] || die "$DEB has no gadgetd.service"

say "a pristine guest"
rm -rf $OWNED "$HOME"
mkdir -p "$HOME"
check "dpkg knows no gadgetd before" sh -c "! dpkg -s gadgetd >/dev/null 2>&1"
check "no gadgetd on the PATH before" sh -c "! command -v gadgetd"
for u in $USERS; do
	check "no user $u before" sh -c "! getent passwd $u >/dev/null"
done
check "no gadgetd unit before" sh -c "! systemctl cat gadgetd.service >/dev/null 2>&1"
gd_modules
# man-db's trigger reindexes every manual page: a minute of TCG for
# nothing this test looks at.
rm -f /var/lib/man-db/auto-update

say "dpkg -i $(basename "$DEB")"
t0=$(date +%s)
timeout 180 dpkg -i "$DEB" > dpkg-i.txt 2>&1
rc=$?
cat dpkg-i.txt
echo "dpkg -i took $(($(date +%s) - t0)) s"
check "dpkg -i: exit 0" [ $rc = 0 ]
check "dpkg: gadgetd installed" sh -c \
	"dpkg-query -W -f='\${Status}' gadgetd | grep -qx 'install ok installed'"
dpkg-query -W -f='${Conffiles}\n' gadgetd > conffiles.txt
cat conffiles.txt
check "gadgetd.conf is a conffile" grep -q "^ /etc/gadgetd/gadgetd.conf " conffiles.txt
check "profiles/android.conf is a conffile" grep -q "^ /etc/gadgetd/profiles/android.conf " conffiles.txt
for u in $USERS; do
	check "postinst made user $u" sh -c "getent passwd $u | grep -q ':/usr/sbin/nologin\$'"
done
check "the unit is installed" test -f "$UNIT"
check "postinst enabled the unit" test -L /etc/systemd/system/multi-user.target.wants/gadgetd.service
check "the udev rules are installed" test -f /lib/udev/rules.d/60-gadgetd-device.rules
check "the plugins are installed" test -f /usr/lib/gadgetd/adb.so
check "dpkg made no /srv/mtp" test ! -e /srv/mtp

say "postinst started the unit"
check "gadgetd.service is active" timeout 30 systemctl is-active --quiet gadgetd.service
GD_PID=$(systemctl show -p MainPID --value gadgetd.service)
check "ExecStartPre's gadgetd -n checked the configuration" \
	gd_log_has "/etc/gadgetd/gadgetd.conf: OK"
check "the host sees the shipped default set acm,ecm (1d6b:0105)" wait_usb 1d6b:0105 30
check "gadgetctl status: profile android, set acm,ecm" \
	gd_status '.profile == "android" and .set == "acm,ecm" and (.switching | not)'
check "no FunctionFS mount in the guest's namespace (the unit's own)" \
	sh -c "! grep -q functionfs /proc/self/mounts"

cleanup() { timeout 10 adb kill-server >/dev/null 2>&1; }
trap cleanup EXIT
check "gadgetd made /run/gadgetd" test -d /run/gadgetd
check "gadgetd made /var/lib/gadgetd" test -d /var/lib/gadgetd

say "gadgetctl switch mtp,adb, the host's key let in by the operator"
check_switch mtp,adb 1d6b:010b
timeout 30 adb start-server >/dev/null 2>&1

check "adb devices: unauthorized (auth on as shipped)" adb_state GADGETD0001 unauthorized 20
FP=$(cut -d' ' -f1 "$HOME/.android/adbkey.pub" | python3 -c \
	'import base64, hashlib, sys; d = hashlib.md5(base64.b64decode(sys.stdin.read())).hexdigest().upper(); print(":".join(d[i:i + 2] for i in range(0, 32, 2)))')
timeout 10 gadgetctl adb keys > keys.txt 2>&1
cat keys.txt
check "gadgetctl adb keys lists this host's key" grep -q "^$FP " keys.txt
check_exit 0 "gadgetctl adb allow" timeout 10 gadgetctl adb allow "$FP"
check "adb devices: device" adb_state GADGETD0001 device 20
check "adb shell answers" [ "$(timeout -k 5 20 adb -s GADGETD0001 shell echo fromdeb </dev/null)" = fromdeb ]
check "the key went to /etc/gadgetd/adb_keys" \
	grep -q "$(cut -d' ' -f1 "$HOME/.android/adbkey.pub")" /etc/gadgetd/adb_keys
mtp_ok() {
	timeout -k 5 60 mtp-detect > mtp-detect.txt 2>&1 </dev/null
	grep -q "StorageDescription: Internal storage" mtp-detect.txt ||
		{ tail -n 20 mtp-detect.txt; return 1; }
}
check "mtp-detect finds the storage" mtp_ok
check "gadgetd made /srv/mtp for gadgetd-mtp" \
	[ "$(stat -c '%U %G' /srv/mtp)" = "gadgetd-mtp gadgetd-mtp" ]

say "upgrade to the next version: the gadget stays up"
V=$(dpkg-query -W -f='${Version}' gadgetd)
rm -rf up
dpkg-deb -R "$DEB" up
sed -i "s/^Version: .*/Version: $V+up1/" up/DEBIAN/control
dpkg-deb -b up gadgetd-up.deb >/dev/null
DEVNUM=$(usb_devnum 1d6b:010b)
ENUMS=$(usb_enums)
timeout 180 dpkg -i gadgetd-up.deb > dpkg-up.txt 2>&1
rc=$?
cat dpkg-up.txt
check "dpkg -i of $V+up1: exit 0" [ $rc = 0 ]
check "dpkg: $V+up1 installed" [ "$(dpkg-query -W -f='${Version}' gadgetd)" = "$V+up1" ]
check "the same gadgetd runs (no restart on upgrade)" \
	[ "$(systemctl show -p MainPID --value gadgetd.service)" = "$GD_PID" ]
check "the host never lost the device (same USB device number)" [ "$(usb_devnum 1d6b:010b)" = "$DEVNUM" ]
check "no enumeration since" [ "$(usb_enums)" = "$ENUMS" ]
check "adb shell still answers" [ "$(timeout -k 5 20 adb -s GADGETD0001 shell echo upgraded </dev/null)" = upgraded ]
check "the edited adb keys were kept" \
	grep -q "$(cut -d' ' -f1 "$HOME/.android/adbkey.pub")" /etc/gadgetd/adb_keys
check "systemctl restart gadgetd runs the new one" timeout 120 systemctl restart gadgetd.service
check "and brings back mtp,adb (the state file)" gd_wait_restarted "$GD_PID"
check "gadgetctl status: set mtp,adb" gd_status '.set == "mtp,adb"'
check "host sees mtp,adb again" wait_usb 1d6b:010b 20
check "adb is let in by its key" adb_state GADGETD0001 device 30
timeout 10 adb kill-server >/dev/null 2>&1

say "dpkg -r: the service stops, the gadget goes, the configuration stays"
timeout 180 dpkg -r gadgetd > remove.txt 2>&1
rc=$?
cat remove.txt
check "dpkg -r: exit 0" [ $rc = 0 ]
check "gadgetd.service is no longer active" sh -c "! systemctl is-active --quiet gadgetd.service"
check "no gadgetd process is left" sh -c "! pgrep -x gadgetd && ! pgrep -x gadgetd-worker"
check "the host lost the device" wait_no_usb 1d6b:010b 20
check "gadgetd removed its gadget from ConfigFS" test ! -e /sys/kernel/config/usb_gadget/gadgetd
check "remove took /usr/sbin/gadgetd" test ! -e /usr/sbin/gadgetd
check "remove kept /etc/gadgetd/gadgetd.conf" test -f /etc/gadgetd/gadgetd.conf
check "and the adb keys" test -f /etc/gadgetd/adb_keys
check "dpkg: config-files" sh -c \
	"dpkg-query -W -f='\${Status}' gadgetd | grep -qx 'deinstall ok config-files'"

say "dpkg --purge"
echo kept > /srv/mtp/kept.txt
timeout 120 dpkg --purge gadgetd > purge.txt 2>&1
rc=$?
cat purge.txt
check "dpkg --purge: exit 0" [ $rc = 0 ]
check "purge removed /etc/gadgetd, adb_keys with it" test ! -e /etc/gadgetd
check "purge removed the state (/var/lib/gadgetd)" test ! -e /var/lib/gadgetd
check "purge removed the unit's enablement" test ! -e /etc/systemd/system/multi-user.target.wants/gadgetd.service
check "systemd knows no gadgetd unit" sh -c "! systemctl cat gadgetd.service >/dev/null 2>&1"
check "dpkg knows no gadgetd" sh -c "! dpkg -s gadgetd >/dev/null 2>&1"
for u in $USERS; do
	check "purge kept user $u" sh -c "getent passwd $u >/dev/null"
done
check "purge kept the MTP storage's files" test -f /srv/mtp/kept.txt
finish
