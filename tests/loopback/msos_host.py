#!/usr/bin/python3
"""Read a gadget's Microsoft OS 1.0 descriptors the way Windows does.

Usage: msos_host.py VID:PID VENDOR_CODE [configN=KIND[,KIND]...] KIND=COMPAT[/SUB] ...

KIND names an interface by what the configuration descriptor says it is
(adb, mtp, rndis, ncm, accessory). For each KIND the extended compat ID
descriptor must hold exactly one entry, COMPAT (and SUB, the
sub-compatible ID, or empty), whose bFirstInterfaceNumber is that
interface in the first configuration descriptor (index 0, the one
Windows selects); any other entry must be empty. configN=KIND,...: the
device has as many configurations as configN arguments, and the
descriptor at index N-1 has bConfigurationValue N and those interfaces. adb must also carry the
DeviceInterfaceGUID property AOSP's adbd gives it, which Windows' WinUSB
needs to expose the interface to adb.exe. Exits non-zero naming the
first field that is wrong.
"""
import struct
import sys

import usb.core

TIMEOUT_MS = 5000
MSFT = "MSFT100".encode("utf-16-le")
ADB_GUID = "{F72FE0D4-CBCB-407d-8814-9ED673D0DD6B}"

# Class, subclass, protocol of each function's first interface.
KINDS = {
    "adb": (0xFF, 0x42, 0x01),
    "mtp": (0x06, 0x01, 0x01),
    "rndis": (0x02, 0x02, 0xFF),
    "ncm": (0x02, 0x0D, 0x00),
    "accessory": (0xFF, 0xFF, 0x00),
}


def fail(msg):
    sys.exit("msos: " + msg)


def os_string(dev):
    """String 0xEE: qwSignature "MSFT100" and the vendor code."""
    # Windows asks with wIndex 0 (no language) and wLength 0x12.
    s = bytes(dev.ctrl_transfer(0x80, 6, 0x03EE, 0, 0x12, TIMEOUT_MS))
    if len(s) != 0x12 or s[0] != 0x12 or s[1] != 3:
        fail("string 0xEE: bLength/bDescriptorType wrong: %s" % s.hex())
    if s[2:16] != MSFT:
        fail("string 0xEE: qwSignature is not MSFT100: %s" % s[2:16].hex())
    print("string 0xEE: MSFT100, vendor code 0x%02x, pad %d" % (s[16], s[17]))
    return s[16]


def feature(dev, rtype, code, value, index):
    """A feature descriptor as Windows reads it: header first, then all."""
    head = bytes(dev.ctrl_transfer(rtype, code, value, index, 0x10, TIMEOUT_MS))
    if len(head) < 10:
        fail("feature wIndex %d: header of %d bytes" % (index, len(head)))
    length, bcd, idx = struct.unpack_from("<IHH", head)
    if bcd != 0x0100 or idx != index:
        fail("feature wIndex %d: bcdVersion 0x%04x, wIndex %d" % (index, bcd, idx))
    if length < 10 or length > 4096:
        fail("feature wIndex %d: dwLength %d" % (index, length))
    full = bytes(dev.ctrl_transfer(rtype, code, value, index, length, TIMEOUT_MS))
    if len(full) != length:
        fail("feature wIndex %d: dwLength %d but %d bytes came" % (index, length, len(full)))
    return full


def compat_ids(dev, code):
    """{bFirstInterfaceNumber: (compatibleID, subCompatibleID)}."""
    d = feature(dev, 0xC0, code, 0, 4)
    count = d[8]
    if len(d) != 16 + 24 * count:
        fail("compat ID: dwLength %d does not fit bCount %d" % (len(d), count))
    out = {}
    for i in range(count):
        e = d[16 + 24 * i:40 + 24 * i]
        if e[0] in out:
            fail("compat ID: interface %d listed twice" % e[0])
        cid = e[2:10].rstrip(b"\0").decode("ascii", "replace")
        sub = e[10:18].rstrip(b"\0").decode("ascii", "replace")
        out[e[0]] = (cid, sub)
    print("compat ID: %s" % ", ".join("%d=%s/%s" % (k, v[0], v[1]) for k, v in sorted(out.items())))
    return out


def properties(dev, code, ifnum):
    """{name: (type, value)} of one interface's extended properties."""
    d = feature(dev, 0xC1, code, ifnum, 5)
    count = struct.unpack_from("<H", d, 8)[0]
    at, out = 10, {}
    for i in range(count):
        if at + 10 > len(d):
            fail("properties of %d: property %d runs past dwLength" % (ifnum, i))
        size, ptype, nlen = struct.unpack_from("<IIH", d, at)
        if size < 14 + nlen or at + size > len(d):
            fail("properties of %d: property %d: dwSize %d" % (ifnum, i, size))
        name = d[at + 10:at + 10 + nlen].decode("utf-16-le").rstrip("\0")
        vlen = struct.unpack_from("<I", d, at + 10 + nlen)[0]
        if 14 + nlen + vlen != size:
            fail("properties of %d: %s: dwSize %d, lengths %d+%d" % (ifnum, name, size, nlen, vlen))
        value = d[at + 14 + nlen:at + size].decode("utf-16-le").rstrip("\0")
        out[name] = (ptype, value)
        at += size
    if at != len(d):
        fail("properties of %d: %d bytes after the last property" % (ifnum, len(d) - at))
    return out


def interfaces(cfg):
    """{kind: bInterfaceNumber} of a configuration."""
    found = {}
    for intf in cfg:
        if intf.bAlternateSetting:
            continue
        triple = (intf.bInterfaceClass, intf.bInterfaceSubClass, intf.bInterfaceProtocol)
        for kind, t in KINDS.items():
            if t == triple and kind not in found:
                found[kind] = intf.bInterfaceNumber
    return found


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    vid, pid = (int(x, 16) for x in sys.argv[1].split(":"))
    want_code = int(sys.argv[2], 0)
    want, configs = {}, {}
    for arg in sys.argv[3:]:
        kind, _, ids = arg.partition("=")
        if kind.startswith("config"):
            configs[int(kind[6:])] = ids.split(",")
            continue
        cid, _, sub = ids.partition("/")
        want[kind] = (cid, sub)
    dev = usb.core.find(idVendor=vid, idProduct=pid)
    if dev is None:
        fail("no device %s" % sys.argv[1])
    code = os_string(dev)
    if code != want_code:
        fail("string 0xEE: vendor code 0x%02x, the profile says 0x%02x" % (code, want_code))
    if configs:
        check_configs(dev, configs)
    # The kernel reports the configuration linked to os_desc at index 0,
    # and Windows selects index 0: the compat IDs number its interfaces,
    # whichever configuration the host here has made active.
    where = interfaces(dev[0])
    got = compat_ids(dev, code)
    for kind, ids in want.items():
        if kind not in where:
            fail("no %s interface (%02x/%02x/%02x) in the configuration" % ((kind,) + KINDS[kind]))
        n = where[kind]
        if n not in got:
            fail("compat ID: no entry for %s's interface %d" % (kind, n))
        if got[n] != ids:
            fail("compat ID: %s (interface %d) is %s/%s, want %s/%s" % ((kind, n) + got[n] + ids))
        print("ok: %s on interface %d is %s%s" % (kind, n, ids[0], "/" + ids[1] if ids[1] else ""))
    # f_fs gives every FunctionFS interface an entry, zero-filled when the
    # worker declared no compat ID (the accessory): Windows reads that as
    # "none" and matches the interface by class. Anything else is wrong.
    extra = [n for n in set(got) - {where[k] for k in want} if got[n] != ("", "")]
    if extra:
        fail("compat ID: unexpected entries for interfaces %s" % sorted(extra))
    if "adb" in want:
        props = properties(dev, code, where["adb"])
        if props.get("DeviceInterfaceGUID") != (1, ADB_GUID):
            fail("properties of adb: DeviceInterfaceGUID is %r, want REG_SZ %s" %
                 (props.get("DeviceInterfaceGUID"), ADB_GUID))
        print("ok: adb's DeviceInterfaceGUID is %s" % ADB_GUID)
    for kind in want:
        if kind != "adb":
            check_no_props(dev, code, kind, where[kind])


def check_configs(dev, configs):
    """Each configuration descriptor, by index, as a host reads them."""
    n = dev.bNumConfigurations
    if n != len(configs):
        fail("bNumConfigurations is %d, want %d" % (n, len(configs)))
    for index in range(n):
        cfg = dev[index]
        value = cfg.bConfigurationValue
        if value != index + 1 or value not in configs:
            fail("configuration index %d has bConfigurationValue %d" % (index, value))
        kinds = interfaces(cfg)
        for kind in configs[value]:
            if kind not in kinds:
                fail("configuration %d: no %s interface (%02x/%02x/%02x); it has %s" %
                     ((value, kind) + KINDS[kind] + (sorted(kinds),)))
        extra = set(kinds) - set(configs[value])
        if extra:
            fail("configuration %d: unexpected %s" % (value, sorted(extra)))
        print("ok: configuration %d (index %d): %s, %d interfaces" %
              (value, index, ",".join(configs[value]), cfg.bNumInterfaces))


def check_no_props(dev, code, kind, ifnum):
    """Functions without properties: nothing, or an empty descriptor."""
    try:
        props = properties(dev, code, ifnum)
    except usb.core.USBError as e:
        if e.errno != 32:  # EPIPE: a stall is Windows' "no properties"
            raise
        props = {}
    if props:
        fail("properties of %s (interface %d): unexpected %s" % (kind, ifnum, sorted(props)))


if __name__ == "__main__":
    main()
