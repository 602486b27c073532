#!/usr/bin/python3
"""The host side of t-hid.sh: read the gadget's input devices with evdev.

hid_host.py text LAYOUT TEXT PROG READY decode key presses back to text,
                                        writing how many characters so far
                                        to PROG (evdev keeps only 64 events
                                        for a reader: the test sends a few
                                        characters at a time and waits)
hid_host.py keys KIND N READY           print N key events "CODE VALUE" of KIND
                                        (keyboard or consumer)
hid_host.py ptr KIND N READY            print N pointer events of KIND
                                        (mouse or tablet) "TYPE CODE VALUE"
hid_host.py led LED VALUE               set the keyboard's LED (host to device)
hid_host.py unplug AFTER VID:PID READY  count the keyboard's key presses as
                                        reports on its hidraw node (which
                                        keeps 64 reports, where evdev keeps
                                        64 events); after AFTER of them,
                                        unplug the device as far as the
                                        gadget can tell (deauthorize it: the
                                        host deconfigures it); count until
                                        the node is gone; print that count
                                        and the presses the host's
                                        controller took (usbmon)

Each reader opens its device, then creates READY, so that the test sends
only once the host listens. The evdev interface is used through its
ioctls and 24-byte events here, not python3-evdev: importing that package
(asyncio, ssl) took 1.4 to 4.4 s of the bed's time per reader, a quarter
of t-hid (2026-12-05). The names of codes come from the kernel's
<linux/input-event-codes.h>. The layouts are this script's own tables of
what a US or German keyboard prints, written apart from the gadget's
libxkbcommon walk, so a wrong key code or modifier shows as a wrong text.
Every wait is bounded (30 s without an event).
"""
import fcntl
import glob
import os
import re
import select
import struct
import subprocess
import sys
import time

import usb_find

NAME = "gadgetd"
CODES = "/usr/include/linux/input-event-codes.h"


class Codes:
    """The kernel's event codes by name (KEY_A, EV_KEY, ...); EV maps an
    event type's number back to its name."""

    def __init__(self, path=CODES):
        with open(path) as f:
            text = f.read()
        for name, val in re.findall(r"^#define\s+([A-Z][A-Z0-9_]*)\s+(0x[0-9a-fA-F]+|\d+)\b",
                                    text, re.M):
            setattr(self, name, int(val, 0))
        self.EV = {v: k for k, v in vars(self).items()
                   if k.startswith("EV_") and k != "EV_MAX"}


E = Codes()


def _ioc(direction, nr, size):
    """_IOC(direction, 'E', nr, size) of <asm-generic/ioctl.h>."""
    return (direction << 30) | (size << 16) | (ord("E") << 8) | nr


_READ, _WRITE = 2, 1
EVENT = struct.Struct("llHHi")  # struct input_event on a 64-bit kernel


class Event:
    def __init__(self, raw):
        _, _, self.type, self.code, self.value = EVENT.unpack(raw)


class InputDevice:
    """One /dev/input/eventN: its name, capabilities, events, LEDs."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        try:
            buf = fcntl.ioctl(self.fd, _ioc(_READ, 0x06, 256), bytes(256))
            self.name = buf.split(b"\0", 1)[0].decode(errors="replace")
        except OSError:
            os.close(self.fd)
            raise

    def _bits(self, ev, count):
        n = (count + 7) // 8
        buf = fcntl.ioctl(self.fd, _ioc(_READ, 0x20 + ev, n), bytes(n))
        return [i for i in range(count) if buf[i // 8] >> (i % 8) & 1]

    def capabilities(self):
        """{event type: [codes]} for the types find() looks at that the
        device has (EVIOCGBIT refuses some others, EV_REP for one)."""
        have = self._bits(0, E.EV_MAX + 1)
        return {t: self._bits(t, E.KEY_MAX + 1)
                for t in (E.EV_KEY, E.EV_REL, E.EV_ABS, E.EV_LED) if t in have}

    def set_repeat(self, delay, period):
        fcntl.ioctl(self.fd, _ioc(_WRITE, 0x03, 8), struct.pack("II", delay, period))

    def set_led(self, led, value):
        os.write(self.fd, EVENT.pack(0, 0, E.EV_LED, led, value) +
                 EVENT.pack(0, 0, E.EV_SYN, E.SYN_REPORT, 0))

    def read(self):
        try:
            data = os.read(self.fd, EVENT.size * 64)
        except BlockingIOError:
            return []
        return [Event(data[i:i + EVENT.size])
                for i in range(0, len(data) - EVENT.size + 1, EVENT.size)]

    def close(self):
        os.close(self.fd)


def usb_dir(vidpid):
    d = usb_find.sysfs_dir(vidpid)
    if d is None:
        sys.exit("no USB device " + vidpid)
    return d

LOWER = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "1234567890"


def layout(name):
    """(keycode, shift, altgr) -> character."""
    t = {}
    for c in LOWER:
        t[(getattr(E, "KEY_" + c.upper()), False, False)] = c
        t[(getattr(E, "KEY_" + c.upper()), True, False)] = c.upper()
    for c in DIGITS:
        t[(getattr(E, "KEY_" + c), False, False)] = c
    t[(E.KEY_SPACE, False, False)] = " "
    t[(E.KEY_COMMA, False, False)] = ","
    t[(E.KEY_DOT, False, False)] = "."
    if name == "us":
        for k, c in zip(DIGITS, "!@#$%^&*()"):
            t[(getattr(E, "KEY_" + k), True, False)] = c
        t[(E.KEY_MINUS, False, False)] = "-"
        t[(E.KEY_SLASH, True, False)] = "?"
        t[(E.KEY_SEMICOLON, True, False)] = ":"
    elif name == "de":
        for s in (False, True):  # QWERTZ: Y and Z trade places
            t[(E.KEY_Y, s, False)] = "Z" if s else "z"
            t[(E.KEY_Z, s, False)] = "Y" if s else "y"
        for k, c in zip("1234567890", '!"§$%&/()='):
            t[(getattr(E, "KEY_" + k), True, False)] = c
        t[(E.KEY_Q, False, True)] = "@"
        t[(E.KEY_SLASH, False, False)] = "-"
        t[(E.KEY_MINUS, True, False)] = "?"
        t[(E.KEY_DOT, True, False)] = ":"
    return t


def find(kind, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        for path in sorted(glob.glob("/dev/input/event*")):
            try:
                d = InputDevice(path)
            except OSError:
                continue
            if NAME not in d.name:
                d.close()
                continue
            caps = d.capabilities()
            keys = caps.get(E.EV_KEY, [])
            if kind == "keyboard" and E.EV_LED in caps:
                return d
            axes = [a[0] if isinstance(a, tuple) else a for a in caps.get(E.EV_ABS, [])]
            if kind == "tablet" and E.ABS_X in axes:
                return d
            rels = caps.get(E.EV_REL, [])
            if kind == "mouse" and E.REL_X in rels and E.ABS_X not in axes:
                return d
            # Consumer control has ABS_VOLUME and REL_HWHEEL (AC Pan), no X.
            if kind == "consumer" and E.KEY_VOLUMEUP in keys and E.EV_LED not in caps \
                    and E.ABS_X not in axes and E.REL_X not in rels:
                return d
            d.close()
        time.sleep(0.2)
    sys.exit("no %s input device named %s" % (kind, NAME))


def events(d, idle=30):
    """The device's events until it goes away or is quiet for idle s."""
    while True:
        r, _, _ = select.select([d.fd], [], [], idle)
        if not r:
            return
        try:
            for ev in d.read():
                yield ev
        except OSError:
            return  # the device went away


def ready(path):
    with open(path, "w") as f:
        f.write("ready\n")


def norepeat(d):
    """No autorepeat (for every reader, the console too): a key the host
    holds while the loaded bed stalls must not type twice."""
    d.set_repeat(0, 60000)


def cmd_text(lay, text, prog, rdy):
    table = layout(lay)
    d = find("keyboard")
    norepeat(d)
    ready(rdy)
    shift = altgr = False
    out = ""
    for ev in events(d):
        if ev.type != E.EV_KEY:
            continue
        if ev.code in (E.KEY_LEFTSHIFT, E.KEY_RIGHTSHIFT):
            shift = ev.value != 0
        elif ev.code == E.KEY_RIGHTALT:
            altgr = ev.value != 0
        elif ev.value == 1:
            out += table.get((ev.code, shift, altgr), "<%d%s%s>" % (
                ev.code, "+shift" if shift else "", "+altgr" if altgr else ""))
            with open(prog + ".new", "w") as f:
                f.write("%d\n" % len(out))
            os.rename(prog + ".new", prog)
            if len(out) >= len(text):
                break
        elif ev.type == E.EV_SYN and ev.code == E.SYN_DROPPED:
            print("evdev dropped events (the reader fell behind)", file=sys.stderr)
    print(out)
    return 0 if out == text else 1


def cmd_keys(kind, n, rdy):
    d = find(kind)
    if kind == "keyboard":
        norepeat(d)
    ready(rdy)
    got = 0
    for ev in events(d):
        # Autorepeat (value 2) is the host's own: only presses and releases.
        if ev.type == E.EV_KEY and ev.value != 2:
            print(ev.code, ev.value)
            got += 1
            if got == n:
                return 0
    return 1


def cmd_ptr(kind, n, rdy):
    d = find(kind)
    ready(rdy)
    got = 0
    for ev in events(d):
        # Linux 6.1 reports each wheel step twice, as REL_WHEEL and
        # REL_WHEEL_HI_RES (120 a step): the test counts the first.
        if ev.type == E.EV_REL and ev.code in (E.REL_WHEEL_HI_RES, E.REL_HWHEEL_HI_RES):
            continue
        if ev.type in (E.EV_KEY, E.EV_REL, E.EV_ABS):
            print(E.EV[ev.type], ev.code, ev.value)
            got += 1
            if got == n:
                return 0
    return 1


def cmd_led(led, value):
    d = find("keyboard")
    d.set_led(getattr(E, led), int(value))
    d.close()
    return 0


def hidraw_keyboard(usb):
    """The /dev/hidrawN of the boot keyboard interface under usb, and the
    interface's sysfs folder."""
    end = time.time() + 30
    while time.time() < end:
        for n in sorted(os.listdir("/sys/class/hidraw")):
            dev = os.path.realpath("/sys/class/hidraw/%s/device" % n)
            intf = os.path.dirname(dev)
            if not intf.startswith(os.path.realpath(usb) + "/"):
                continue
            try:
                with open(os.path.join(intf, "bInterfaceProtocol")) as f:
                    if f.read().strip() == "01":
                        return "/dev/" + n, intf
            except OSError:
                continue
        time.sleep(0.2)
    sys.exit("no hidraw node for the keyboard")


class Usbmon:
    """The key presses the host's controller took from the keyboard's
    interrupt IN endpoint, as usbmon's binary interface (/dev/usbmonB)
    shows them: what the gadget counts as arrived, whether or not the
    host's HID layer passed them on. While the kernel tears a device down,
    it kills the interrupt URB, and usbhid drops a report whose data had
    come by then (the URB ends -ENOENT with its data; seen under load),
    so hidraw cannot say what arrived. The text interface is no use here: it has no poll, and its
    read blocks until the next event, which never comes once the device
    has gone."""

    # struct mon_bin_hdr (Documentation/usb/usbmon.rst), 48 bytes.
    HDR = struct.Struct("<QBBBBHccqiiII8s")
    # MON_IOCG_STATS: _IOR(0x92, 3, struct mon_bin_stats { u32 queued, dropped; }).
    IOCG_STATS = (2 << 30) | (8 << 16) | (0x92 << 8) | 3

    def __init__(self, usb, intf):
        def attr(d, name, base=10):
            with open(os.path.join(d, name)) as f:
                return int(f.read().strip(), base)

        self.bus, self.dev = attr(usb, "busnum"), attr(usb, "devnum")
        self.ep = next(attr(os.path.join(intf, e), "bEndpointAddress", 16)
                       for e in sorted(os.listdir(intf))
                       if e.startswith("ep_") and int(e[3:], 16) & 0x80)
        subprocess.run(["modprobe", "usbmon"], check=True, timeout=30)
        node = "/dev/usbmon%d" % self.bus
        end = time.time() + 10
        while not os.path.exists(node) and time.time() < end:
            time.sleep(0.05)
        self.fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        self.presses = 0

    def drain(self):
        """Count what usbmon holds now."""
        while True:
            try:
                ev = os.read(self.fd, 4096)
            except BlockingIOError:
                return
            if len(ev) < self.HDR.size:
                sys.exit("usbmon gave %d bytes, not an event" % len(ev))
            (_, kind, xfer, epnum, devnum, busnum, _, _, _, _, status, _, cap,
             _) = self.HDR.unpack_from(ev)
            data = ev[self.HDR.size:self.HDR.size + cap]
            if kind == ord("C") and epnum == self.ep and devnum == self.dev:
                # For the test's log: what each completion brought.
                print("usbmon: C status %d data %s" % (status, data.hex() or "-"),
                      file=sys.stderr)
            # A completion (C) of an interrupt (1) transfer from our
            # endpoint, with data: a report the controller took. Its
            # status may be an error: a URB killed in the teardown after
            # its data came (-ENOENT), which usbhid then drops.
            if kind == ord("C") and xfer == 1 and epnum == self.ep and \
                    devnum == self.dev and busnum == self.bus and \
                    len(data) >= 3 and data[2]:
                self.presses += 1

    def close(self):
        self.drain()
        stats = bytearray(8)
        fcntl.ioctl(self.fd, self.IOCG_STATS, stats)
        os.close(self.fd)
        dropped = struct.unpack("<II", stats)[1]
        if dropped:
            sys.exit("usbmon dropped %d events: the count is not known" % dropped)
        return self.presses


def cmd_unplug(after, vidpid, rdy):
    usb = usb_dir(vidpid)
    node, intf = hidraw_keyboard(usb)
    mon = Usbmon(usb, intf)
    fd = os.open(node, os.O_RDONLY)
    ready(rdy)
    presses = 0
    while True:
        r, _, _ = select.select([fd], [], [], 30)
        if not r:
            break
        try:
            rep = os.read(fd, 64)
        except OSError:
            break  # the device went away
        if not rep:
            break
        if len(rep) >= 3 and rep[2]:
            presses += 1
            if presses == after:
                # Returns once the kernel has torn the device down: its
                # interrupt URB was given back, and usbmon holds all.
                with open(os.path.join(usb, "authorized"), "w") as f:
                    f.write("0")
    # Last, "READ TOOK": what hidraw passed on, what the controller took.
    print(presses, mon.close())
    return 0 if presses >= after else 1


def main(a):
    if a[0] == "text":
        return cmd_text(a[1], a[2], a[3], a[4])
    if a[0] == "keys":
        return cmd_keys(a[1], int(a[2]), a[3])
    if a[0] == "ptr":
        return cmd_ptr(a[1], int(a[2]), a[3])
    if a[0] == "led":
        return cmd_led(a[1], a[2])
    if a[0] == "unplug":
        return cmd_unplug(int(a[1]), a[2], a[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
