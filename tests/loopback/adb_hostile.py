#!/usr/bin/python3
"""A hostile adb host for the loopback tests: raw ADB over libusb (pyusb).

  adb_hostile.py attacks VID:PID ADBKEY [--random N]
      ADBKEY is a host key as `adb keygen` writes it (ADBKEY and
      ADBKEY.pub); the device's adb_keys holds ADBKEY.pub. Tries, in
      turn, on fresh connections:
        known-pubkey   the known public key offered with no signature
        wrong-key      the token signed by a key not in adb_keys
        truncated      the right signature less its last byte
        late           the right signature after a failed one spent the token
        replay         a signature that worked, replayed on a new connection
        stale          the same, sent after a USB reset before any CNXN
        random         N random AUTH/CNXN/OPEN/WRTE/OKAY packets
      After each, OPEN "shell:echo pwned" must get no answer, and the
      device must never send CNXN, OKAY or WRTE. Last, the honest host
      (the right signature of a fresh token) must get CNXN and a working
      shell stream: the control that shows the checks can fail.

  adb_hostile.py impostor VID:PID PUBKEY ALLOW_CMD HELD_CMD
      An impostor that saw a real host's public key (PUBKEY, as in
      adbkey.pub) on the wire but has no private key. It connects,
      answers the first token as an AOSP host does, with a signature, but
      by a key of its own (the device keeps it: a host that signed with
      the key it then offers is let in by the allow), then offers the
      real host's key (unknown to the device), runs ALLOW_CMD (sh -c: the
      admin's `gadgetctl adb allow`), and must get a new token and never
      CNXN: not after the allow, not when it answers with the key again
      as an adb host out of private keys does, not with a made-up
      signature. Then, still connected, it runs HELD_CMD (sh -c; the test
      takes `gadgetctl status` there) and opens a shell, which must get
      no answer.

  adb_hostile.py banner VID:PID
      Sends one CNXN whose banner carries terminal escapes, a carriage
      return and a NUL; the test then reads `gadgetctl status`.

Prints one "ok:" or "FAIL:" line per check; exit status 0 when all passed.
"""
import os
import random
import struct
import subprocess
import sys
import threading
import time

import usb.core
import usb.util

import usb_find
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

A_CNXN, A_AUTH, A_OPEN = 0x4E584E43, 0x48545541, 0x4E45504F
A_OKAY, A_CLSE, A_WRTE = 0x59414B4F, 0x45534C43, 0x45545257
TOKEN, SIGNATURE, RSAPUBLICKEY = 1, 2, 3
VERSION = 0x01000001
MAXDATA = 256 * 1024
BANNER = b"host::features=shell_v2\0"


def header(cmd, a0, a1, n):
    return struct.pack("<6I", cmd, a0, a1, n, 0, cmd ^ 0xFFFFFFFF)


def packet(cmd, a0, a1, data):
    return header(cmd, a0, a1, len(data)) + data


def name(cmd):
    return struct.pack("<I", cmd).decode("latin1")


class Link:
    """One claimed ADB interface; a thread reads every message."""

    def __init__(self, vidpid):
        self.dev = usb_find.device(vidpid, 10)
        if self.dev is None:
            sys.exit("FAIL: no device %s" % vidpid)
        cfg = self.dev.get_active_configuration()
        intf = usb.util.find_descriptor(
            cfg, bInterfaceClass=0xFF, bInterfaceSubClass=0x42,
            bInterfaceProtocol=0x01)
        if intf is None:
            sys.exit("FAIL: no ADB interface on %s" % vidpid)
        self.num = intf.bInterfaceNumber
        if self.dev.is_kernel_driver_active(self.num):
            self.dev.detach_kernel_driver(self.num)
        usb.util.claim_interface(self.dev, self.num)
        out = usb.util.ENDPOINT_OUT
        self.ep_out = usb.util.find_descriptor(
            intf, custom_match=lambda e: usb.util.endpoint_direction(
                e.bEndpointAddress) == out)
        self.ep_in = usb.util.find_descriptor(
            intf, custom_match=lambda e: usb.util.endpoint_direction(
                e.bEndpointAddress) != out)
        self.msgs = []
        self.cond = threading.Condition()
        self.stop = False
        self.buf = b""
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()

    def _reader(self):
        while not self.stop:
            try:
                data = bytes(self.ep_in.read(MAXDATA, timeout=200))
            except usb.core.USBTimeoutError:
                continue
            except usb.core.USBError:
                if self.stop:
                    return
                time.sleep(0.05)
                continue
            self.buf += data
            self._parse()

    def _parse(self):
        while len(self.buf) >= 24:
            cmd, a0, a1, n, _, magic = struct.unpack("<6I", self.buf[:24])
            if magic != cmd ^ 0xFFFFFFFF:
                print("FAIL: device sent a bad header %r" % self.buf[:24])
                self.buf = b""
                return
            if len(self.buf) < 24 + n:
                return
            with self.cond:
                self.msgs.append((cmd, a0, a1, self.buf[24:24 + n]))
                self.cond.notify_all()
            self.buf = self.buf[24 + n:]

    def send(self, cmd, a0, a1, data=b""):
        """Header and payload in transfers of their own, as adb does,
        and a zero-length packet after a payload that fills its last
        packet (as adb's libusb host does): the device's read of a big
        WRTE ends there."""
        self.ep_out.write(header(cmd, a0, a1, len(data)), timeout=2000)
        if data:
            self.ep_out.write(data, timeout=2000)
            if len(data) % self.ep_out.wMaxPacketSize == 0:
                self.ep_out.write(b"", timeout=2000)

    def send_raw(self, data):
        self.ep_out.write(data, timeout=5000)

    def send_merged(self, data):
        """Several messages in one transfer, ended like send()'s."""
        self.ep_out.write(data, timeout=5000)
        if len(data) % self.ep_out.wMaxPacketSize == 0:
            self.ep_out.write(b"", timeout=2000)

    def get(self, timeout):
        """The next message from the device, or None."""
        end = time.monotonic() + timeout
        with self.cond:
            while not self.msgs:
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.msgs.pop(0)

    def drain(self, quiet, first=None):
        """Every message until the device is quiet for `quiet` seconds.
        `first`: how long to wait for the first one, when a reply is due
        (a loaded bed may take seconds to check a signature)."""
        got = []
        m = self.get(quiet if first is None else first)
        while m is not None:
            got.append(m)
            m = self.get(quiet)
        return got

    def close(self):
        self.stop = True
        self.thread.join()
        usb.util.release_interface(self.dev, self.num)


# How long a reply that is due may take on a loaded bed.
REPLY_S = 10
FAILS = 0


def check(ok, what):
    global FAILS
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILS += 1
    return ok


def online(msgs):
    """Messages only an authorized connection may get."""
    return [m for m in msgs if m[0] in (A_CNXN, A_OKAY, A_WRTE)]


def connect(link):
    """CNXN; returns the token the device sends, or None."""
    link.send(A_CNXN, VERSION, MAXDATA, BANNER)
    msgs = link.drain(0.5, REPLY_S)
    tokens = [m for m in msgs if m[0] == A_AUTH and m[1] == TOKEN]
    check(not online(msgs), "CNXN alone gets no CNXN (got %s)" %
          [name(m[0]) for m in msgs])
    return tokens[-1][3] if tokens else None


def no_stream(link, what):
    link.send(A_OPEN, 77, 0, b"shell:echo pwned\0")
    msgs = link.drain(0.5)
    return check(not online(msgs), "%s: no CNXN, OKAY or WRTE (got %s)" %
                 (what, [name(m[0]) for m in msgs]))


def sign(key, token):
    if token is None:
        return b""
    return key.sign(token, padding.PKCS1v15(), utils.Prehashed(hashes.SHA1()))


def expect_token(msgs, what):
    ok = any(m[0] == A_AUTH and m[1] == TOKEN for m in msgs)
    check(ok and not online(msgs), "%s: a new token, not CNXN (got %s)" %
          (what, [name(m[0]) for m in msgs]))
    toks = [m[3] for m in msgs if m[0] == A_AUTH and m[1] == TOKEN]
    return toks[-1] if toks else None


def attacks(link, key, pub, n_random):
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    tok = connect(link)
    check(tok is not None and len(tok) == 20, "CNXN gets a 20-byte token")
    link.send(A_AUTH, RSAPUBLICKEY, 0, pub + b"\0")
    tok = expect_token(link.drain(0.5, REPLY_S), "known-pubkey")
    no_stream(link, "known-pubkey")

    tok = connect(link)
    link.send(A_AUTH, SIGNATURE, 0, sign(other, tok))
    expect_token(link.drain(0.5, REPLY_S), "wrong-key")
    no_stream(link, "wrong-key")

    tok = connect(link)
    good = sign(key, tok)
    link.send(A_AUTH, SIGNATURE, 0, good[:-1])
    expect_token(link.drain(0.5, REPLY_S), "truncated")
    no_stream(link, "truncated")
    link.send(A_AUTH, SIGNATURE, 0, good)
    expect_token(link.drain(0.5, REPLY_S), "late")
    no_stream(link, "late")

    # A signature that works once, captured by the attacker.
    tok = connect(link)
    good = sign(key, tok)
    link.send(A_AUTH, SIGNATURE, 0, good)
    msgs = link.drain(0.5, REPLY_S)
    check(any(m[0] == A_CNXN for m in msgs),
          "the right signature gets CNXN (control)")
    connect(link)
    link.send(A_AUTH, SIGNATURE, 0, good)
    expect_token(link.drain(0.5, REPLY_S), "replay")
    no_stream(link, "replay")

    # After a USB reset nothing of the old connection is valid.
    tok = connect(link)
    good = sign(key, tok)
    link.close()
    link.dev.reset()
    time.sleep(1)
    link = Link(link_id)
    link.send(A_AUTH, SIGNATURE, 0, good)
    no_stream(link, "stale")

    rnd = random.Random(int.from_bytes(os.urandom(8), "little"))
    cmds = [A_AUTH, A_CNXN, A_OPEN, A_WRTE, A_OKAY, A_CLSE, 0x12345678]
    seen = []
    batch = b""
    for i in range(n_random):
        cmd = rnd.choice(cmds)
        a0 = rnd.choice([TOKEN, SIGNATURE, RSAPUBLICKEY, 0, 1,
                         rnd.getrandbits(32)])
        a1 = rnd.choice([0, 1, 256, MAXDATA, rnd.getrandbits(32)])
        kind = rnd.random()
        if kind < 0.1:
            data = pub[:rnd.randrange(len(pub) + 1)]
        elif kind < 0.2:
            data = sign(other, os.urandom(20)) if i % 50 == 0 else \
                os.urandom(256)
        elif kind < 0.3:
            data = b"shell:id\0"
        else:
            data = os.urandom(rnd.randrange(64))
        # The device must parse a byte stream: here 16 messages arrive
        # merged in one transfer.
        batch += packet(cmd, a0, a1, data)
        if i % 16 == 15 or i == n_random - 1:
            link.send_raw(batch)
            batch = b""
        if i % 500 == 499:
            seen += link.drain(0.05)
    seen += link.drain(0.5)
    check(not online(seen), "%d random packets: no CNXN, OKAY or WRTE "
          "(%d AUTH tokens came back)" % (n_random, len(seen)))
    no_stream(link, "random")

    # The honest host still gets in: the checks above could have failed.
    tok = connect(link)
    if tok is None:
        check(False, "honest host: no token")
        return link
    link.send(A_AUTH, SIGNATURE, 0, sign(key, tok))
    msgs = link.drain(0.5)
    check(any(m[0] == A_CNXN and m[3].startswith(b"device::")
              for m in msgs), "honest host: CNXN with the device banner")
    link.send(A_OPEN, 78, 0, b"shell:echo honest\0")
    msgs = link.drain(1.0)
    out = b"".join(m[3] for m in msgs if m[0] == A_WRTE)
    check(any(m[0] == A_OKAY and m[2] == 78 for m in msgs)
          and b"honest" in out, "honest host: shell stream works (%r)" % out)
    return link


def impostor(link, pub, allow_cmd, held_cmd):
    own = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tok = connect(link)
    link.send(A_AUTH, SIGNATURE, 0, sign(own, tok))
    expect_token(link.drain(0.5, REPLY_S), "impostor: its own key's signature")
    link.send(A_AUTH, RSAPUBLICKEY, 0, pub + b"\0")
    msgs = link.drain(1.0)
    check(not online(msgs), "impostor: the unknown key offered: no CNXN "
          "(got %s)" % [name(m[0]) for m in msgs])
    rc = subprocess.call(["sh", "-c", allow_cmd])
    check(rc == 0, "impostor: the admin's allow ran (exit %d)" % rc)
    # A reply is due at once (a token); wait long enough for a CNXN too.
    msgs = link.drain(2.0, REPLY_S)
    expect_token(msgs, "impostor: after the allow")
    for i in range(3):
        link.send(A_AUTH, RSAPUBLICKEY, 0, pub + b"\0")
        expect_token(link.drain(0.5, REPLY_S),
                     "impostor: the key again after the allow (%d)" % i)
    link.send(A_AUTH, SIGNATURE, 0, os.urandom(256))
    expect_token(link.drain(0.5, REPLY_S),
                 "impostor: a made-up signature after the allow")
    rc = subprocess.call(["sh", "-c", held_cmd])
    check(rc == 0, "impostor: still connected, ran %r (exit %d)" %
          (held_cmd, rc))
    no_stream(link, "impostor: after the allow")


def main():
    global link_id
    if len(sys.argv) == 3 and sys.argv[1] == "banner":
        link = Link(sys.argv[2])
        link.send(A_CNXN, VERSION, MAXDATA,
                  b"host::\x1b[2J\x1b]0;pwned\x07evil\rbanner\0tail\0")
        check(not online(link.drain(0.5)), "evil banner: no CNXN")
        link.close()
        sys.exit(1 if FAILS else 0)
    if len(sys.argv) == 6 and sys.argv[1] == "impostor":
        with open(sys.argv[3], "rb") as f:
            pub = f.read().strip()
        link = Link(sys.argv[2])
        impostor(link, pub, sys.argv[4], sys.argv[5])
        link.close()
        print("adb_hostile: %d failed" % FAILS)
        sys.exit(1 if FAILS else 0)
    if len(sys.argv) < 4 or sys.argv[1] != "attacks":
        sys.exit(__doc__)
    link_id = sys.argv[2]
    n_random = 10000
    if "--random" in sys.argv:
        n_random = int(sys.argv[sys.argv.index("--random") + 1])
    with open(sys.argv[3], "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(sys.argv[3] + ".pub", "rb") as f:
        pub = f.read().strip()
    link = Link(link_id)
    link = attacks(link, key, pub, n_random)
    link.close()
    print("adb_hostile: %d failed" % FAILS)
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
