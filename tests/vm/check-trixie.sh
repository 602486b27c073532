#!/bin/sh
# make check-trixie: the trixie package on the trixie bed. The bed
# (tests/vm/mkbed-trixie.sh: Debian 13's kernel 6.12 and userland,
# systemd 257 as PID 1) boots once a test, as the bookworm systemd bed
# does, and each test's gd_install puts the package in with `dpkg -i`
# (run-suite.sh's GADGETD_TEST_DEB), its Depends met by the bed's own
# packages. The tests are the ones that prove what README promises
# under the unit, with trixie's own clients (adb 34, libmtp 1.1.22,
# gphoto2): switching, adb (t-adb34 too, with the system's adb), MTP
# and PTP, the network sets (DHCP, mDNS, adb over TCP), D-Bus with
# polkit, HID, virtual media, a login over USB serial (t-console), and
# the package's own install, upgrade and purge.
# Usage: check-trixie.sh BUILDDIR [DEB]
# DEB: the package, by default BUILDDIR/deb-trixie's for this machine's
# architecture (make deb SUITE=trixie). TRIXIE_TESTS: the tests to run.
set -u
b=${1:?usage: check-trixie.sh BUILDDIR [DEB]}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$b"
b=$(cd "$b" && pwd)
start=$(date +%s)
deb=${2:-$(ls "$b"/deb-trixie/gadgetd_*_"$(dpkg --print-architecture)".deb 2>/dev/null | tail -n 1)}
[ -n "$deb" ] && [ -f "$deb" ] ||
	{ echo "check-trixie: no trixie package in $b/deb-trixie (make deb SUITE=trixie)"; exit 1; }
"$src/tests/vm/mkbed-trixie.sh" "$b/vm-trixie" || { echo "check-trixie: the trixie bed failed"; exit 1; }
tests=${TRIXIE_TESTS:-t-switch.sh t-adb-gadgetd.sh t-adb34.sh t-mtp-gadgetd.sh t-ptp.sh t-net.sh t-console.sh
t-adb-tcp.sh t-dbus.sh t-hid.sh t-storage.sh t-deb.sh}
echo "check-trixie: $(basename "$deb") on $(cat "$b/vm-trixie/kver")"
# shellcheck disable=SC2086
GADGETD_TEST_DEB=$deb "$src/tests/loopback/run-suite.sh" "$b/vm-trixie" "$b/loopback-trixie" $tests
rc=$?
echo "check-trixie: $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $rc
