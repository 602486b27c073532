#!/usr/bin/python3
"""A host that offers its public key with a hostile comment (raw ADB over
libusb, pyusb), as any host may before a user allows it:

  adb_pubkey.py VID:PID ADBKEY.pub

CNXN, then AUTH RSAPUBLICKEY with ADBKEY.pub's key and the comment
"evil" DEL U+009B U+202E "gpj.exe" (a delete, a C1 CSI, a right-to-left
override). The test then reads `gadgetctl adb keys`. Exit status 0 when
the device answered CNXN with a token.
"""
import sys

from adb_hostile import A_AUTH, RSAPUBLICKEY, Link, connect

COMMENT = b"evil\x7f\xc2\x9b\xe2\x80\xaegpj.exe"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "rb") as f:
        key = f.read().split()[0]
    link = Link(sys.argv[1])
    tok = connect(link)
    link.send(A_AUTH, RSAPUBLICKEY, 0, key + b" " + COMMENT + b"\0")
    link.drain(0.5)
    link.close()
    sys.exit(0 if tok else 1)


if __name__ == "__main__":
    main()
