#!/usr/bin/python3
"""The AOA host of t-stress.sh: one process that keeps doing the AOA
handshake (GET_PROTOCOL, the six strings, START) whenever the gadget shows
a set with a control instance (1d6b:0110, 0111 or 0112), until STOPFILE
exists; then writes the number of handshakes that went through to
COUNTFILE.

  aoa_stress.py STOPFILE COUNTFILE

Control transfers go straight through usbdevfs: starting Python with
pyusb for each handshake costs seconds under TCG, and libusb keeps the
device list of its first scan in a bed without udevd.
"""
import ctypes
import fcntl
import os
import struct
import sys
import time

USBDEVFS_CONTROL = 0xC0185500  # _IOWR('U', 0, struct usbdevfs_ctrltransfer)
CONTROL_PIDS = ("0110", "0111", "0112")
STRINGS = ["gadgetd-test", "StressDock", "t-stress", "1.0",
           "https://example.org/aoa", "STRESS1"]


def read(path):
    with open(path) as f:
        return f.read().strip()


def find():
    """The usbdevfs node of the gadget in a set with a control instance."""
    base = "/sys/bus/usb/devices"
    for d in os.listdir(base):
        if d.startswith("usb"):
            continue
        try:
            if read(os.path.join(base, d, "idVendor")) != "1d6b":
                continue
            if read(os.path.join(base, d, "idProduct")) not in CONTROL_PIDS:
                continue
            bus = int(read(os.path.join(base, d, "busnum")))
            dev = int(read(os.path.join(base, d, "devnum")))
        except OSError:
            continue
        return "/dev/bus/usb/%03d/%03d" % (bus, dev)
    return None


def ctrl(fd, rtype, req, index, data):
    """One control transfer; data is bytes to send or a length to read."""
    length = data if isinstance(data, int) else len(data)
    buf = ctypes.create_string_buffer(max(length, 1))
    if not isinstance(data, int):
        buf.raw = data + b"\0" * (len(buf) - len(data))
    xfer = struct.pack("@BBHHHIP", rtype, req, 0, index, length, 2000,
                       ctypes.addressof(buf))
    fcntl.ioctl(fd, USBDEVFS_CONTROL, xfer)
    return buf.raw[:length]


def handshake(node):
    fd = os.open(node, os.O_RDWR)
    try:
        proto = ctrl(fd, 0xC0, 51, 0, 2)
        if proto[0] | proto[1] << 8 != 2:
            return False
        for i, s in enumerate(STRINGS):
            ctrl(fd, 0x40, 52, i, s.encode() + b"\0")
        ctrl(fd, 0x40, 53, 0, b"")
        return True
    finally:
        os.close(fd)


def note(count, n):
    """The handshakes so far, replaced whole: t-stress reads it meanwhile."""
    with open(count + ".new", "w") as f:
        f.write("%d\n" % n)
    os.rename(count + ".new", count)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stop, count = sys.argv[1], sys.argv[2]
    n = tries = 0
    while not os.path.exists(stop):
        node = find()
        if node:
            tries += 1
            try:
                if handshake(node):
                    n += 1
                    note(count, n)
                    time.sleep(1)
            except OSError:
                pass  # the set changed under us: the point of the test
        time.sleep(0.2)
    note(count, n)
    print("aoa_stress: %d handshakes in %d tries" % (n, tries))


if __name__ == "__main__":
    main()
