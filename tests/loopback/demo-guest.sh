# The demo, inside the guest: the product as a board gets it. Debian's
# systemd is PID 1 (tests/vm/bed-systemd); the Debian package built by
# make deb is installed with dpkg, whose postinst starts gadgetd.service
# on the shipped profile; the host's adb key is let in up front, as a
# user would copy ~/.android/adbkey.pub to the board's
# /etc/gadgetd/adb_keys.
# bed: systemd
. "$SRC/tests/loopback/lib.sh"
run() { echo; echo "\$ $*"; timeout 60 "$@"; }
export HOME=/root
DEB=$(ls "$B"/deb/gadgetd_*_"$(dpkg --print-architecture)".deb 2>/dev/null | tail -n 1)
[ -n "$DEB" ] || die "no $B/deb/gadgetd_*.deb"
rm -rf /etc/gadgetd /var/lib/gadgetd /srv/mtp
gd_modules
# man-db's trigger would reindex every manual page: a minute of the VM.
rm -f /var/lib/man-db/auto-update
echo "\$ dpkg -i $(basename "$DEB")"
timeout 180 dpkg -i "$DEB" 2>&1 | grep -v '^(Reading database' || die "dpkg -i failed"
run systemctl --no-pager status gadgetd.service | head -n 12
mkdir -p /root/.android
timeout 20 adb keygen /root/.android/adbkey >/dev/null 2>&1 || die "adb keygen failed"
cp /root/.android/adbkey.pub /etc/gadgetd/adb_keys
# The board ships a file in its storage (gadgetd would make an empty one).
mkdir -p /srv/mtp
echo "Lorem ipsum from the board" > /srv/mtp/hello.txt
GD_PID=$(systemctl show -p MainPID --value gadgetd.service)
within_s 30 gd_status '.switching | not' || die "gadgetd is not up"
run gadgetctl status
run gadgetctl switch mtp,adb || die "switch failed"
wait_usb 1d6b:010b 20
run gadgetctl status
run lsusb
timeout 20 adb start-server >/dev/null 2>&1
timeout 20 adb wait-for-device
run adb devices -l
run adb shell uname -a
echo
echo "\$ mtp-detect | (first 40 lines)"
timeout 60 mtp-detect 2>&1 | sed -n '1,40p'
run mtp-files
echo
echo "\$ journalctl -u gadgetd (last 12 lines)"
timeout 20 journalctl -u gadgetd.service --no-pager -o cat | tail -n 12
