#!/usr/bin/python3
"""Small JPEG files with EXIF thumbnails for the PTP tests (no PIL on the bed).

  ptp_photos.py tree DIR N      DIR/DCIM/100GADGT and 101GADGT/sub: N
                                photos with an EXIF thumbnail (each
                                unique), and in DIR/DCIM/NOTHUMB three
                                without one (EXIF without IFD1, no EXIF, a
                                PNG); DIR/thumbs/NAME holds each photo's
                                embedded thumbnail, byte for byte, and
                                DIR/new two more photos (IMG_9999.JPG,
                                UP_4242.JPG) for the board and the host
                                to add later
  ptp_photos.py one FILE SEED...  one photo with a thumbnail for each SEED,
                                FILE's name with the seed in it (%d)

A photo is SOI, APP1 "Exif" (IFD0 -> EXIF IFD with PixelX/YDimension,
IFD1 with JPEGInterchangeFormat/Length), the thumbnail (a JPEG with a SOF0
giving 160x120), a DQT, SOS, some bytes and EOI: what PTP's ObjectInfo and
GetThumb read, not a picture a viewer decodes.
"""
import os
import struct
import sys


def thumb(seed):
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 120, 160, 3) + \
        b"\x01\x11\x00\x02\x11\x00\x03\x11\x00"
    body = (b"thumb-%06d-" % seed) * (20 + seed % 30)
    return b"\xff\xd8" + sof + body + b"\xff\xd9"


def entry(tag, typ, value):
    v = struct.pack("<H2x", value) if typ == 3 else struct.pack("<I", value)
    return struct.pack("<HHI", tag, typ, 1) + v


def photo(seed, with_thumb=True, exif=True):
    t = thumb(seed) if with_thumb else b""
    tiff = b"II*\x00" + struct.pack("<I", 8)
    tiff += struct.pack("<H", 1) + entry(0x8769, 4, 26) + struct.pack("<I", 56 if t else 0)
    tiff += struct.pack("<H", 2) + entry(0xA002, 3, 4000) + entry(0xA003, 3, 3000) + \
        struct.pack("<I", 0)
    if t:
        tiff += struct.pack("<H", 3) + entry(0x0103, 3, 6) + entry(0x0201, 4, 98) + \
            entry(0x0202, 4, len(t)) + struct.pack("<I", 0)
    tiff = tiff.ljust(98, b"\x00") + t
    out = b"\xff\xd8"
    if exif:
        seg = b"Exif\x00\x00" + tiff
        out += b"\xff\xe1" + struct.pack(">H", len(seg) + 2) + seg
    # Unique per seed, cheap to make (a Python loop per byte is slow on
    # the emulated bed).
    data = (b"%08d" % seed + bytes(range(0, 250, 3))) * (40 + seed % 25)
    out += b"\xff\xdb\x00\x03\x00\xff\xda\x00\x02" + data + b"\xff\xd9"
    return out, t


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def tree(top, n):
    dcim = os.path.join(top, "DCIM")
    dirs = [os.path.join(dcim, "100GADGT"), os.path.join(dcim, "101GADGT", "sub")]
    for d in dirs + [os.path.join(dcim, "NOTHUMB"), os.path.join(top, "thumbs")]:
        os.makedirs(d, exist_ok=True)
    for i in range(n):
        name = "IMG_%04d.JPG" % i
        data, t = photo(i)
        write(os.path.join(dirs[i % 2], name), data)
        write(os.path.join(top, "thumbs", name), t)
    nothumb = os.path.join(dcim, "NOTHUMB")
    write(os.path.join(nothumb, "bare.jpg"), photo(9001, with_thumb=False)[0])
    write(os.path.join(nothumb, "noexif.jpg"), photo(9002, with_thumb=False, exif=False)[0])
    write(os.path.join(nothumb, "shot.png"), b"\x89PNG\r\n\x1a\n" + bytes(200))
    os.makedirs(os.path.join(top, "new"), exist_ok=True)
    for name, seed in (("IMG_9999.JPG", 9999), ("UP_4242.JPG", 4242)):
        write(os.path.join(top, "new", name), photo(seed)[0])


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "tree":
        tree(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "one":
        for seed in sys.argv[3:]:
            write(sys.argv[2].replace("%d", seed), photo(int(seed))[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
