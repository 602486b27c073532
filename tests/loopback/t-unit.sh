# gadgetd under its shipped unit, as a board runs it (issue 36):
# - make install and `systemctl enable gadgetd` with no UDC yet: nothing
#   runs; the UDC appears (modprobe dummy_hcd) within udevd's 3 s between
#   looks at its rules, and the device-side udev rule, which make install
#   told udevd of, starts the unit, which brings up the shipped profile's
#   default set with the USB link's address;
# - `gadgetctl switch mtp,adb` under the unit's sandbox (FunctionFS in
#   the service's own namespace);
# - `systemctl restart` keeps the set; `systemctl reload` re-reads the
#   profile without a restart; a broken profile's reload leaves the
#   gadget as it was, and the error `gadgetctl status` names is in
#   `journalctl -u gadgetd`; `systemctl stop` removes the gadget;
# - the watchdog: gadgetd's notifications keep it alive, and once its
#   loop stalls (SIGSTOP) systemd kills it and starts it again, on the
#   same set;
# - a reboot of the guest: the UDC's driver loads at boot, gadgetd
#   starts from the unit by itself and brings back mtp,adb from its
#   state file.
# Runs in the guest (see run-suite.sh), twice: before and after the
# reboot (BED_BOOT).
# bed: systemd disk
. "$SRC/tests/loopback/lib.sh"

UNIT=gadgetd.service
main_pid() { systemctl show -p MainPID --value $UNIT; }
active() { timeout 30 systemctl is-active --quiet $UNIT; }
# product_is TEXT: the host side's device says TEXT as its product.
product_is() {
	local d n=0
	while [ $n -lt 100 ]; do
		for d in /sys/bus/usb/devices/*; do
			[ "$(cat "$d/idVendor" 2>/dev/null)" = 1d6b ] &&
				[ "$(cat "$d/product" 2>/dev/null)" = "$1" ] && return 0
		done
		sleep 0.2
		n=$((n + 1))
	done
	cat /sys/bus/usb/devices/*/product 2>/dev/null
	return 1
}

if [ "$BED_BOOT" = 1 ]; then
	say "make install, systemctl enable, no UDC yet"
	# udevd looks for changed rules at most every 3 s, when an event
	# comes: an event just before the install makes the UDC's, 1-2 s
	# later, meet the old rules unless the install tells udevd (it
	# failed so once in three CI runs before make install did).
	timeout 30 udevadm trigger --settle --action=change /sys/devices/virtual/mem/null
	GD_UDC=later gd_install
	check "no UDC in the guest yet" test ! -e /sys/class/udc/dummy_udc.0
	check "the unit is enabled" timeout 30 systemctl is-enabled --quiet $UNIT
	check "gadgetd does not run" sh -c "! systemctl is-active --quiet $UNIT"

	say "the UDC appears: udev starts gadgetd"
	check "modprobe dummy_hcd" timeout 30 modprobe dummy_hcd
	check "gadgetd.service became active" within_s 30 active
	GD_PID=$(main_pid)
	check "the host sees the shipped default set acm,ecm (1d6b:0105)" wait_usb 1d6b:0105 30
	check "gadgetctl status: idle on acm,ecm" gd_status '.set == "acm,ecm" and (.switching | not)'
	check "the journal: ecm's address is set (CAP_NET_ADMIN)" \
		gd_log_has "function ecm: usb0 has 10.77.0.1/24, DHCP for the host, mDNS name gadgetd"
	check "and dnsmasq serves it" gd_log_has "DHCP, sockets bound exclusively to interface usb0"
	check "no permission error in the journal" sh -c "! journalctl -u $UNIT -o cat | grep -e 'not permitted' -e 'Read-only file system'"

	say "gadgetctl switch mtp,adb under the unit"
	check_switch mtp,adb 1d6b:010b
	check "the workers run" gd_status '(plugin("mtp").pid // 0) > 0 and (plugin("adb").pid // 0) > 0'
	check "FunctionFS in the service's namespace, under /run/gadgetd/ffs" \
		grep -q " /run/gadgetd/ffs/adb functionfs " "/proc/$GD_PID/mounts"
	check "not in the guest's own" sh -c "! grep -q functionfs /proc/self/mounts"

	say "systemctl restart keeps the set"
	old=$GD_PID
	check "systemctl restart gadgetd" timeout 120 systemctl restart $UNIT
	check "a new gadgetd, idle" gd_wait_restarted "$old"
	check "gadgetctl status: set mtp,adb" gd_status '.set == "mtp,adb"'
	check "the host sees mtp,adb" wait_usb 1d6b:010b 20

	say "systemctl reload re-reads the profile"
	P=/etc/gadgetd/profiles/android.conf
	cp $P android.good
	sed -i 's/product = "gadgetd development board";/product = "gadgetd reloaded board";/' $P
	check "the profile was edited" grep -q "gadgetd reloaded board" $P
	check "systemctl reload gadgetd" timeout 60 systemctl reload $UNIT
	check "the host sees the new product string" product_is "gadgetd reloaded board"
	check "the same gadgetd (a reload, no restart)" [ "$(main_pid)" = "$GD_PID" ]
	check "still mtp,adb" gd_status '.set == "mtp,adb"'

	say "a broken profile: reload refused, in status and in the journal"
	echo 'gadget: { vendor_id = "oops"; };' >> $P
	check "systemctl reload gadgetd (the signal is sent)" timeout 60 systemctl reload $UNIT
	failed_reload() { gd_status '.last_failure.message | test("android.conf:[0-9]+")'; }
	check "gadgetctl status names the file and line" within_s 20 failed_reload
	MSG=$(gd_status '.last_failure.message')
	echo "status: $MSG"
	check "journalctl -u gadgetd carries the same error" gd_log_has "$MSG"
	check "the gadget is as it was" gd_status '.set == "mtp,adb"'
	check "the host still sees mtp,adb" lsusb -d 1d6b:010b
	cp android.good $P
	check "systemctl reload with the good profile" timeout 60 systemctl reload $UNIT
	check "the host sees the shipped product string again" product_is "gadgetd development board"

	say "the watchdog"
	check "gadgetd notifies systemd (WatchdogSec=30s: every 15 s)" \
		gd_log_has "watchdog: notifying systemd every 15000 ms"
	# A shorter watchdog for the test, as an administrator would set it
	# (systemctl edit): gadgetd must keep it fed, then starve it. 10 s
	# (a notification every 5 s) leaves a loaded bed room to be late.
	# TimeoutAbortSec= short too: a stopped gadgetd cannot act on the
	# SIGABRT, and the unit's 10 s were only a wait here.
	mkdir -p /etc/systemd/system/$UNIT.d
	printf '[Service]\nWatchdogSec=10s\nTimeoutAbortSec=2s\n' > /etc/systemd/system/$UNIT.d/watchdog.conf
	timeout 60 systemctl daemon-reload
	old=$GD_PID
	check "restart with WatchdogSec=10s" timeout 120 systemctl restart $UNIT
	check "a new gadgetd" gd_wait_restarted "$old"
	check "gadgetd notifies every 5 s" gd_log_has "watchdog: notifying systemd every 5000 ms"
	sleep 16
	check "one and a half watchdog periods later the same gadgetd runs" [ "$(main_pid)" = "$GD_PID" ]
	old=$GD_PID
	# Stopped, it cannot die of SIGABRT: SIGKILL follows after
	# TimeoutAbortSec= (2 s here).
	kill -STOP "$GD_PID"
	check "the loop stalled (SIGSTOP): systemd starts a new gadgetd" gd_wait_restarted "$old" 60
	check "the journal says the watchdog fired" sh -c "journalctl -u $UNIT -o cat | grep -q 'Watchdog timeout'"
	check "the new gadgetd brings back mtp,adb" gd_status '.set == "mtp,adb"'
	check "the host sees mtp,adb" wait_usb 1d6b:010b 30
	rm -rf /etc/systemd/system/$UNIT.d
	timeout 60 systemctl daemon-reload

	say "systemctl stop removes the gadget"
	check "systemctl stop gadgetd" timeout 120 systemctl stop $UNIT
	check "the host lost the device" wait_no_usb 1d6b:010b 20
	check "no gadget left in ConfigFS" test ! -e /sys/kernel/config/usb_gadget/gadgetd
	check "systemctl start gadgetd" timeout 120 systemctl start $UNIT
	check "back on mtp,adb" wait_usb 1d6b:010b 30

	say "reboot: the UDC's driver loads at boot, as a board's does"
	echo dummy_hcd > /etc/modules-load.d/gadgetd-bed-udc.conf
	bed_reboot
fi

say "boot $BED_BOOT: gadgetd started by systemd at boot"
check "dummy_hcd was loaded at boot" test -e /sys/class/udc/dummy_udc.0
check "gadgetd.service is active" within_s 60 active
GD_PID=$(main_pid)
check "started with the system, before this test" \
	[ "$(systemctl show -p ActiveEnterTimestampMonotonic --value $UNIT)" -lt \
	"$(systemctl show -p ActiveEnterTimestampMonotonic --value gadgetd-bed.service)" ]
check "gadgetctl status: mtp,adb from the state file" gd_status '.set == "mtp,adb" and (.switching | not)'
check "the host sees mtp,adb" wait_usb 1d6b:010b 30
finish
