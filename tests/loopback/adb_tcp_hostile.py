#!/usr/bin/python3
"""Hostile TCP peers for adb over TCP (t-adb-tcp.sh).

  adb_tcp_hostile.py HOST PORT AUTH_TIMEOUT_S USB_CHECK_CMD

Each attack on a connection of its own; each must be cut off by the
device (the socket reads EOF or a reset) within its bound:
  garbage      24 bytes that are no ADB header: at once
  oversized    a sound header announcing a 2 MiB payload: at once
  preauth      70 KiB of well-framed messages before any CNXN: at once
  slowloris    a CNXN header one byte every 0.3 s: by AUTH_TIMEOUT_S + 2
  cap          six connections at once: at least one refused at once
               while USB_CHECK_CMD (sh -c) still works, all of them gone
               by AUTH_TIMEOUT_S + 2 (none authorizes)
Prints one "ok:" or "FAIL:" line per check; exit status 0 when all passed.
"""
import socket
import struct
import subprocess
import sys
import time

CNXN, OKAY = 0x4E584E43, 0x59414B4F
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        fails += 1


def header(cmd, arg0, arg1, length):
    return struct.pack("<6I", cmd, arg0, arg1, length, 0, cmd ^ 0xFFFFFFFF)


def connect(host, port):
    s = socket.create_connection((host, port), timeout=5)
    s.settimeout(0.2)
    return s


def closed_within(s, secs):
    """Whether the device closes s within secs (what it sends is read)."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            if s.recv(65536) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def send_all(s, data):
    """Send what the device takes; False once it has cut us off."""
    try:
        s.settimeout(5)
        s.sendall(data)
        return True
    except OSError:
        return False
    finally:
        s.settimeout(0.2)


def main():
    host, port, tmo, usb_cmd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

    s = connect(host, port)
    send_all(s, b"GET / HTTP/1.1\r\nHost: x\r\n")
    check(closed_within(s, 3), "garbage: cut off at once")
    s.close()

    s = connect(host, port)
    send_all(s, header(CNXN, 0x01000001, 1 << 20, 2 << 20))
    check(closed_within(s, 3), "oversized message: cut off at once")
    s.close()

    s = connect(host, port)
    flood = header(OKAY, 1, 2, 1000) + b"\0" * 1000
    sent = 0
    while sent < 70 * 1024 and send_all(s, flood):
        sent += len(flood)
    check(closed_within(s, 3), "70 KiB before authorization: cut off")
    s.close()

    s = connect(host, port)
    hdr = header(CNXN, 0x01000001, 1 << 20, 0)
    t0 = time.monotonic()
    cut = False
    for b in hdr[:-1]:
        if not send_all(s, bytes([b])) or closed_within(s, 0.3):
            cut = True
            break
    if not cut:
        cut = closed_within(s, tmo + 2 - (time.monotonic() - t0))
    took = time.monotonic() - t0
    check(cut and took <= tmo + 2.5,
          "slowloris: cut off after %.1f s (auth timeout %d s)" % (took, tmo))
    s.close()

    conns = [connect(host, port) for _ in range(6)]
    t0 = time.monotonic()
    refused = [c for c in conns if closed_within(c, 0.5)]
    check(1 <= len(refused) < len(conns),
          "connection cap: %d of 6 refused at once" % len(refused))
    rc = subprocess.call(["sh", "-c", usb_cmd])
    check(rc == 0, "USB adb works while TCP peers are at the cap")
    left = [c for c in conns if c not in refused]
    gone = all(closed_within(c, max(0.5, tmo + 2 - (time.monotonic() - t0)))
               for c in left)
    check(gone, "unauthorized peers dropped after the auth timeout")
    for c in conns:
        c.close()
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
