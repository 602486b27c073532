# Probe (not a test): what /sys/class/udc/dummy_udc.0/state says when the
# gadget side lets go of the bus (soft_connect disconnect) and when the
# host disables the port, on this bed's dummy_hcd.
# bed: light - a probe of the kernel alone
. "$SRC/tests/loopback/lib.sh"
gd_modules
st() { echo "state: $(cat /sys/class/udc/dummy_udc.0/state)"; }
cfs_gadget probe 1d6b 0104 acm.p || die gadget
cfs_bind probe || die bind
sleep 2; st
echo disconnect > /sys/class/udc/dummy_udc.0/soft_connect; sleep 2; st
echo connect > /sys/class/udc/dummy_udc.0/soft_connect; sleep 2; st
ls /sys/bus/usb/devices/
for p in /sys/bus/usb/devices/*/*-port*; do echo "port $p"; done
P=$(ls -d /sys/bus/usb/devices/*/*-port1 2>/dev/null | head -1)
[ -n "$P" ] && { echo 1 > "$P/disable"; sleep 2; st; echo 0 > "$P/disable"; sleep 2; st; }
cfs_teardown probe
finish
