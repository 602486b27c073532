#!/usr/bin/python3
"""A first connect to an MTP responder, timed, with pyusb (b-scale-mtp.sh).

  mtp_scale.py VID:PID

On a responder that has not been asked anything yet, in one claim:
OpenSession, GetStorageIDs, then GetObjectHandles of the first storage's
root (libmtp's first question about the objects when it opens a device
uncached, as mtp-files does), then GetObjectPropList of the whole device
(handle 0xFFFFFFFF, every property, depth 0xFFFFFFFF: what libmtp asks
when it opens a device cached, as mtp-folders does), then CloseSession.
Prints

  connect_ms MS   OpenSession sent to GetObjectHandles' response read
  handles N       the handles GetObjectHandles gave
  proplist_ms MS  GetObjectPropList sent to its response read
  proplist_objs N the objects the list covers (its ObjectFileName
                  entries)

and exits 1 when an operation does not answer OK. The times are the
responder's and the bus's, without libmtp's own start-up (about 0.3 s of
mtp-folders under TCG, docs/benchmarks.md).
"""
import os
import struct
import sys
import time

import usb.util

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "loopback"))
from ptp_host import Ptp  # noqa: E402

T = 600000
OK = 0x2001


def names_in(plist):
    """The ObjectFileName (0xDC07, a string: type 0xFFFF) entries of a
    GetObjectPropList dataset. Counted as bytes: no other entry of
    gadgetd's holds them (handles, sizes and dates are small numbers,
    names UTF-16 of what the store holds)."""
    return plist.count(b"\x07\xdc\xff\xff")


def check(what, rc):
    if rc != OK:
        print("FAIL: %s answered 0x%04x" % (what, rc))
        sys.exit(1)


def main():
    vid, pid = (int(x, 16) for x in sys.argv[1].split(":"))
    # gadgetd's MTP interface: the one with three endpoints.
    m = Ptp(vid, pid, timeout=T, pick=lambda i: i.bNumEndpoints == 3)
    t0 = time.monotonic()
    check("OpenSession", m.op(0x1002, 1)[0])
    rc, d = m.op(0x1004)
    check("GetStorageIDs", rc)
    storage = struct.unpack_from("<I", d, 4)[0]
    rc, d = m.op(0x1007, storage, 0, 0xFFFFFFFF)
    t1 = time.monotonic()
    check("GetObjectHandles", rc)
    print("connect_ms %.1f" % ((t1 - t0) * 1000))
    print("handles %d" % struct.unpack_from("<I", d)[0])
    t0 = time.monotonic()
    rc, d = m.op(0x9805, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF)
    t1 = time.monotonic()
    check("GetObjectPropList", rc)
    print("proplist_ms %.1f" % ((t1 - t0) * 1000))
    print("proplist_objs %d" % names_in(d))
    check("CloseSession", m.op(0x1003)[0])
    usb.util.release_interface(m.dev, m.intf.bInterfaceNumber)


main()
