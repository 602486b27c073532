#!/usr/bin/python3
"""Raw PTP from the USB host (pyusb), for what gphoto2 cannot show or send.

  ptp_host.py VID:PID CMD...    each CMD (and its argument) in turn, in
                                one claim:

  info                          the interface is still image 6/1/1 with
                                three endpoints; DeviceInfo names no vendor
                                extension (ID 0, version 0, no string), and
                                lists GetThumb and no MTP operation
  thumb DIR                     GetThumb of DIR/100GADGT/IMG_0000.JPG is
                                DIR/thumbs/IMG_0000.JPG byte for byte, as
                                its ObjectInfo's ThumbFormat and
                                ThumbCompressedSize say; NOTHUMB/bare.jpg
                                has ThumbFormat 0 and No_Thumbnail_Present
                                (gphoto2 would take a thumbnail out of the
                                file's EXIF itself, so it cannot tell)
  hostile                       hostile containers: a command longer than
                                its transfer, one claiming 4 GiB, runts,
                                a data phase nobody asked for, MTP
                                operations, GetThumb of bad handles, a
                                command before the session; after each, a
                                well-formed GetDeviceInfo must still work

Prints "ok NAME" for each check passed and exits 1 at the first failure.
"""
import struct
import sys

import usb.core
import usb.util

import usb_find

T = 5000
CMD, DATA, RESP = 1, 2, 3
MTP_OPS = (0x9801, 0x9802, 0x9803, 0x9805, 0x9808, 0x95C1, 0x95C4, 0x1014)


class Ptp:
    def __init__(self, vid, pid, timeout=T, pick=lambda i: i.bInterfaceClass == 6):
        """The session's interface is the first one pick() takes (by
        default the still image class); timeout is each transfer's, ms."""
        self.t = timeout
        self.dev = usb_find.device("%04x:%04x" % (vid, pid), 10)
        if self.dev is None:
            sys.exit("no device %04x:%04x" % (vid, pid))
        cfg = self.dev.get_active_configuration()
        self.intf = next((i for i in cfg if pick(i)), None)
        if self.intf is None:
            sys.exit("no PTP interface")
        if self.dev.is_kernel_driver_active(self.intf.bInterfaceNumber):
            self.dev.detach_kernel_driver(self.intf.bInterfaceNumber)
        usb.util.claim_interface(self.dev, self.intf.bInterfaceNumber)
        self.eps = {}
        for ep in self.intf:
            kind = usb.util.endpoint_type(ep.bmAttributes)
            into = usb.util.endpoint_direction(ep.bEndpointAddress) == usb.util.ENDPOINT_IN
            self.eps[(kind, into)] = ep
        self.bin = self.eps[(usb.util.ENDPOINT_TYPE_BULK, True)]
        self.bout = self.eps[(usb.util.ENDPOINT_TYPE_BULK, False)]
        self.tid = 1

    def send(self, raw):
        self.bout.write(raw, self.t)

    def command(self, code, *params):
        raw = struct.pack("<IHHI", 12 + 4 * len(params), CMD, code, self.tid) + \
            b"".join(struct.pack("<I", p) for p in params)
        self.tid += 1
        self.send(raw)

    def read_container(self):
        buf = bytes(self.bin.read(512 * 1024, self.t))
        if len(buf) < 12:
            raise RuntimeError("runt container from the device: %r" % buf)
        length, kind, code, _ = struct.unpack_from("<IHHI", buf)
        while len(buf) < length:
            buf += bytes(self.bin.read(512 * 1024, self.t))
        if len(buf) % 512 == 0 and kind == DATA:
            try:  # the ZLP after a whole number of packets
                self.bin.read(512, 200)
            except usb.core.USBError:
                pass
        return kind, code, buf[12:length]

    def op(self, code, *params):
        """(response code, data or None)"""
        self.command(code, *params)
        data = None
        kind, rc, body = self.read_container()
        if kind == DATA:
            data = body
            kind, rc, body = self.read_container()
        if kind != RESP:
            raise RuntimeError("op 0x%04x: container type %d, not a response" % (code, kind))
        return rc, data

    def drain(self):
        """Whatever the device still sends after a hostile container."""
        while True:
            try:
                self.bin.read(512 * 1024, 300)
            except usb.core.USBError:
                return


def u16s(d, off):
    n = struct.unpack_from("<I", d, off)[0]
    return list(struct.unpack_from("<%dH" % n, d, off + 4)), off + 4 + 2 * n


def ok(name, cond):
    if not cond:
        print("FAILED %s" % name)
        sys.exit(1)
    print("ok %s" % name)


def info(p):
    i = p.intf
    ok("interface 6/1/1", (i.bInterfaceClass, i.bInterfaceSubClass, i.bInterfaceProtocol) == (6, 1, 1))
    ok("three endpoints", i.bNumEndpoints == 3)
    rc, d = p.op(0x1001)
    ok("GetDeviceInfo answers", rc == 0x2001 and d is not None)
    std, vid, ver = struct.unpack_from("<HIH", d)
    ok("StandardVersion 100, VendorExtensionID 0, version 0", (std, vid, ver) == (100, 0, 0))
    ok("no VendorExtensionDesc", d[8] == 0)
    ops, off = u16s(d, 11)
    ok("GetThumb listed", 0x100A in ops)
    ok("no MTP operation listed", not [o for o in ops if o >= 0x9000])


def find(p, path):
    """The handle of a storage-relative path, listing folder by folder."""
    parent = 0xFFFFFFFF
    for part in path.split("/"):
        rc, d = p.op(0x1007, 0x00010001, 0, parent)
        ok("GetObjectHandles of %s's folder" % part, rc == 0x2001)
        n = struct.unpack_from("<I", d)[0]
        for h in struct.unpack_from("<%dI" % n, d, 4):
            rc, oi = p.op(0x1008, h)
            nlen = oi[52]
            if oi[53:53 + 2 * nlen - 2].decode("utf-16-le") == part:
                parent = h
                break
        else:
            ok("%s found" % path, False)
    return parent


def thumb(p, want_dir):
    rc, _ = p.op(0x1002, 1)
    ok("OpenSession", rc in (0x2001, 0x201E))
    h = find(p, "100GADGT/IMG_0000.JPG")
    want = open(want_dir + "/IMG_0000.JPG", "rb").read()
    rc, oi = p.op(0x1008, h)
    tfmt, tsize = struct.unpack_from("<HI", oi, 12)
    ok("ObjectInfo: ThumbFormat EXIF/JPEG, ThumbCompressedSize %d" % len(want),
       (tfmt, tsize) == (0x3801, len(want)))
    rc, d = p.op(0x100A, h)
    ok("GetThumb: the embedded thumbnail, byte for byte", rc == 0x2001 and d == want)
    h = find(p, "NOTHUMB/bare.jpg")
    rc, oi = p.op(0x1008, h)
    ok("ObjectInfo of a JPEG without thumbnail: ThumbFormat 0, size 0",
       struct.unpack_from("<HI", oi, 12) == (0, 0))
    rc, d = p.op(0x100A, h)
    ok("GetThumb of it: No_Thumbnail_Present", rc == 0x2010 and d is None)
    rc, _ = p.op(0x1003)
    ok("CloseSession", rc == 0x2001)


def alive(p, what):
    p.drain()
    rc, d = p.op(0x1001)
    ok("GetDeviceInfo after %s" % what, rc == 0x2001 and d)


def hostile(p):
    rc, _ = p.op(0x1004)
    ok("GetStorageIDs before OpenSession: Session_Not_Open", rc == 0x2003)
    alive(p, "a command out of session")
    rc, _ = p.op(0x1002, 1)
    ok("OpenSession", rc == 0x2001)
    for code in MTP_OPS:
        rc, _ = p.op(code, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 1)
        ok("MTP op 0x%04x: Operation_Not_Supported" % code, rc == 0x2005)
    for h in (0, 0xFFFFFFFF, 0x12345678):
        rc, _ = p.op(0x100A, h)
        ok("GetThumb of handle 0x%x refused" % h, rc in (0x2009, 0x2010))
    # A command whose length says more than the transfer holds.
    p.send(struct.pack("<IHHI", 64, CMD, 0x1001, 900))
    alive(p, "a command longer than its transfer")
    p.send(struct.pack("<IHHI", 0xFFFFFFFF, CMD, 0x1008, 901) + b"\x01\x00\x00\x00")
    alive(p, "a command claiming 4 GiB")
    for runt in (b"\x01", b"\x0c\x00\x00", b"\x08\x00\x00\x00\x01\x00\x01\x10"):
        p.send(runt)
        alive(p, "a runt of %d bytes" % len(runt))
    p.send(struct.pack("<IHHI", 12 + 100, DATA, 0x100D, 902) + bytes(100))
    alive(p, "a data phase nobody asked for")
    p.send(struct.pack("<IHHI", 12, 7, 0x1001, 903))
    alive(p, "a container of type 7")
    # A SendObjectInfo refused (read-only) whose data phase still comes.
    p.command(0x100C, 0x00010001, 0xFFFFFFFF)
    oi = struct.pack("<IHHI", 0x00010001, 0x3801, 0, 10) + bytes(2 + 24 + 4 + 2 + 8) + \
        b"\x04x\x00.\x00j\x00\x00\x00" + b"\x00\x00\x00"
    p.send(struct.pack("<IHHI", 12 + len(oi), DATA, 0x100C, p.tid - 1) + oi)
    kind, rc, _ = p.read_container()
    ok("SendObjectInfo on the read-only storage: Store_Read_Only", kind == RESP and rc == 0x200E)
    alive(p, "a refused upload")


def main():
    cmds = {"info": info, "hostile": hostile, "thumb": thumb}
    args = sys.argv[2:]
    if not args or [c for c in args if c not in cmds and not c.startswith("/")]:
        sys.exit(__doc__)
    vid, pid = (int(x, 16) for x in sys.argv[1].split(":"))
    p = Ptp(vid, pid)
    for i, c in enumerate(args):
        if c == "thumb":
            thumb(p, args[i + 1])
        elif c in cmds:
            cmds[c](p)
    usb.util.release_interface(p.dev, p.intf.bInterfaceNumber)


if __name__ == "__main__":
    main()
