# The demo, inside the guest: the shipped configuration as installed by
# `make install`, adb authentication on, the host's key accepted up front.
. "$SRC/tests/loopback/lib.sh"
run() { echo; echo "\$ $*"; timeout 60 "$@"; }
gd_install
echo "gadgetd $(date): installed into the guest; profile android (shipped)"
export HOME=/root
# The host's adb key, as a user would copy ~/.android/adbkey.pub to the
# board's /etc/gadgetd/adb_keys.
mkdir -p /root/.android
timeout 20 adb keygen /root/.android/adbkey >/dev/null 2>&1 || die "adb keygen failed"
cp /root/.android/adbkey.pub /etc/gadgetd/adb_keys
# The board ships a file in its storage (gadgetd would make an empty one).
mkdir -p /srv/mtp
echo "Lorem ipsum from the board" > /srv/mtp/hello.txt
gd_start
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
gd_stop
