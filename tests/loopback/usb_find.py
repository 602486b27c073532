"""Finding a USB device by VID:PID on the test bed's host side.

  from usb_find import sysfs_dir, device

The host tools of the loopback suite (hid_host.py, aoa_host.py,
ep0_stall.py, echo_host.py, ptp_host.py, adb_hostile.py) find the
gadget the same way: first in sysfs, where the kernel's enumeration
shows, since libusb keeps the device list of its first scan when no
hotplug events reach it (the bed has no udevd); then with pyusb.
"""
import os
import time

SYSFS = "/sys/bus/usb/devices"


def _ids(vidpid):
    vid, pid = vidpid.lower().split(":")
    return vid, pid


def sysfs_dir(vidpid):
    """The device's folder under /sys/bus/usb/devices, or None."""
    want = _ids(vidpid)
    for n in sorted(os.listdir(SYSFS)):
        try:
            with open(os.path.join(SYSFS, n, "idVendor")) as f:
                vid = f.read().strip()
            with open(os.path.join(SYSFS, n, "idProduct")) as f:
                pid = f.read().strip()
        except OSError:
            continue
        if (vid, pid) == want:
            return os.path.join(SYSFS, n)
    return None


def device(vidpid, wait=0):
    """The pyusb device, waiting up to wait s for it: None if absent."""
    import usb.core

    deadline = time.monotonic() + wait
    while sysfs_dir(vidpid) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    vid, pid = (int(x, 16) for x in _ids(vidpid))
    while True:
        dev = usb.core.find(idVendor=vid, idProduct=pid)
        if dev is not None or time.monotonic() >= deadline:
            return dev
        time.sleep(0.1)
