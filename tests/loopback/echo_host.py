#!/usr/bin/python3
"""Host side of the echo function test (pyusb).

  echo_host.py VID:PID [--mib N] [--chunk BYTES] [--msos VENDOR_CODE]

Finds the ff/ff/ff interface, checks its control requests (and the MS OS
descriptors when --msos is given), then writes N MiB of random data
while a second thread reads the echo back, and compares. Prints
"echo: N MiB in S s = X MB/s". Exits non-zero on any mismatch or error.
"""
import argparse
import os
import sys
import threading
import time

import usb.core
import usb.util

import usb_find

TIMEOUT_MS = 5000


def find(vid, pid, secs=10):
    dev = usb_find.device("%04x:%04x" % (vid, pid), secs)
    if dev is None:
        sys.exit("no device %04x:%04x" % (vid, pid))
    return dev


def echo_interface(dev, any_vendor):
    """any_vendor also takes the kernel's f_loopback (ff/00/00), a baseline."""
    cfg = dev.get_active_configuration()
    for intf in cfg:
        triple = (intf.bInterfaceClass, intf.bInterfaceSubClass,
                  intf.bInterfaceProtocol)
        if triple == (0xff, 0xff, 0xff) or (any_vendor and triple[0] == 0xff):
            return intf
    sys.exit("no ff/ff/ff interface")


def endpoints(intf):
    ep_in = ep_out = None
    for ep in intf:
        if usb.util.endpoint_type(ep.bmAttributes) != usb.util.ENDPOINT_TYPE_BULK:
            continue
        if usb.util.endpoint_direction(ep.bEndpointAddress) == usb.util.ENDPOINT_IN:
            ep_in = ep
        else:
            ep_out = ep
    if ep_in is None or ep_out is None:
        sys.exit("echo interface lacks a bulk IN or OUT endpoint")
    return ep_in, ep_out


def check_control(dev, ifnum):
    vendor_in = usb.util.build_request_type(
        usb.util.CTRL_IN, usb.util.CTRL_TYPE_VENDOR, usb.util.CTRL_RECIPIENT_INTERFACE)
    vendor_out = usb.util.build_request_type(
        usb.util.CTRL_OUT, usb.util.CTRL_TYPE_VENDOR, usb.util.CTRL_RECIPIENT_INTERFACE)
    got = bytes(dev.ctrl_transfer(vendor_in, 1, 0, ifnum, 64, TIMEOUT_MS))
    if got != b"gadgetd echo":
        sys.exit("control IN 1 returned %r" % got)
    dev.ctrl_transfer(vendor_out, 2, 0, ifnum, b"hello ep0", TIMEOUT_MS)
    got = bytes(dev.ctrl_transfer(vendor_in, 1, 0, ifnum, 64, TIMEOUT_MS))
    if got != b"hello ep0":
        sys.exit("control OUT 2 then IN 1 returned %r" % got)
    for rt, req in ((vendor_in, 9), (vendor_out, 9)):
        try:
            dev.ctrl_transfer(rt, req, 0, ifnum, 8 if rt & 0x80 else b"x",
                              TIMEOUT_MS)
        except usb.core.USBError as e:
            if e.errno is not None and e.errno != 32:
                sys.exit("request %d: expected a stall, got %s" % (req, e))
        else:
            sys.exit("request %d was not stalled" % req)
    print("control: IN, OUT with data and stalls ok")


def check_msos(dev, code, ifnum):
    """The kernel answers MS OS requests from what the worker wrote."""
    compat = bytes(dev.ctrl_transfer(0xC0, code, 0, 4, 4096, TIMEOUT_MS))
    if compat[16 + 2:16 + 8] != b"WINUSB":
        sys.exit("extended compat ID: %s" % compat.hex())
    props = bytes(dev.ctrl_transfer(0xC1, code, ifnum, 5, 4096, TIMEOUT_MS))
    name = "DeviceInterfaceGUID".encode("utf-16-le")
    if name not in props:
        sys.exit("extended properties lack a UTF-16LE name: %s" % props.hex())
    value = "{9a3c2f1e-5b7d-4e8a-9c06-2d1f4b8e7a55}".encode("utf-16-le")
    if value not in props:
        sys.exit("extended properties lack the UTF-16LE GUID: %s" % props.hex())
    print("msos: compat WINUSB, property DeviceInterfaceGUID ok")


def small_transfers(ep_in, ep_out):
    """Each write is one transfer; whole packets need a ZLP to end it."""
    mp = ep_out.wMaxPacketSize
    for n in (1, 100, mp - 1, mp, mp + 1, 8 * mp):
        data = os.urandom(n)
        ep_out.write(data, TIMEOUT_MS)
        if n % mp == 0:
            ep_out.write(b"", TIMEOUT_MS)
        got = b""
        while len(got) < n:
            got += bytes(ep_in.read(n - len(got), TIMEOUT_MS))
        if got != data:
            sys.exit("echo of %d bytes differs" % n)
    # A lone ZLP reaches the plugin as a 0-byte read (counted, not echoed).
    ep_out.write(b"", TIMEOUT_MS)
    print("small transfers: ok")


def bulk_echo(ep_in, ep_out, total, chunk):
    data = os.urandom(total)
    errors = []

    def writer():
        try:
            for off in range(0, total, chunk):
                ep_out.write(data[off:off + chunk], TIMEOUT_MS)
        except usb.core.USBError as e:
            errors.append("write: %s" % e)

    got = bytearray()
    t0 = time.monotonic()
    th = threading.Thread(target=writer)
    th.start()
    try:
        while len(got) < total:
            got += ep_in.read(min(chunk, total - len(got)), TIMEOUT_MS)
    except usb.core.USBError as e:
        errors.append("read after %d bytes: %s" % (len(got), e))
    th.join()
    secs = time.monotonic() - t0
    if errors:
        sys.exit("bulk echo failed: " + "; ".join(errors))
    if bytes(got) != data:
        first = next(i for i in range(total) if got[i] != data[i])
        sys.exit("bulk echo differs at byte %d" % first)
    mib = total / (1 << 20)
    print("echo: %.0f MiB in %.2f s = %.2f MB/s" % (mib, secs, total / secs / 1e6))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("id")
    ap.add_argument("--mib", type=int, default=8)
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--msos", type=lambda s: int(s, 0))
    ap.add_argument("--no-control", action="store_true")
    ap.add_argument("--any-vendor", action="store_true")
    ap.add_argument("--no-small", action="store_true")
    a = ap.parse_args()
    vid, pid = (int(x, 16) for x in a.id.split(":"))
    dev = find(vid, pid)
    intf = echo_interface(dev, a.any_vendor)
    ep_in, ep_out = endpoints(intf)
    print("found %04x:%04x interface %d, maxpacket %d" % (
        vid, pid, intf.bInterfaceNumber, ep_in.wMaxPacketSize))
    if not a.no_control:
        check_control(dev, intf.bInterfaceNumber)
    if a.msos is not None:
        check_msos(dev, a.msos, intf.bInterfaceNumber)
    if not a.no_small:
        small_transfers(ep_in, ep_out)
    bulk_echo(ep_in, ep_out, a.mib << 20, a.chunk)


if __name__ == "__main__":
    main()
