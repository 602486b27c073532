#!/usr/bin/python3
"""The board side of t-input.sh: local keyboards and mice made with uinput.

input_board.py FIFO ACKDIR   read commands from FIFO, one a line; answer
                             command N (counted from 1) in ACKDIR/N once done

Commands:
  create NAME keyboard|mouse LABEL   a uinput device named LABEL (on the
                                     virtual bus); answers its event node
  destroy NAME                       the device goes (an unplug)
  type NAME TEXT                     lower-case letters, digits and spaces
  move NAME DX DY | click NAME | wheel NAME N
  hotkey NAME                        Ctrl+Alt+ScrollLock, pressed and released
  watch NAME                         a second reader on the device: tries
                                     EVIOCGRAB and answers grab=ok (then
                                     lets go) or grab=EBUSY
  seen NAME                          the key presses and releases that
                                     second reader got since: seen=N

uinput and evdev through their ioctls (see hid_host.py on why not
python3-evdev). Each event is written with its SYN_REPORT, 10 ms apart,
as a person types. Every wait is bounded.
"""
import errno
import fcntl
import os
import struct
import sys
import time

from hid_host import E, EVENT, _ioc


def _ioc_u(direction, nr, size):
    """_IOC(direction, 'U', nr, size): uinput's ioctls."""
    return (direction << 30) | (size << 16) | (ord("U") << 8) | nr


UI_DEV_CREATE = _ioc_u(0, 1, 0)
UI_DEV_DESTROY = _ioc_u(0, 2, 0)
SETUP = struct.Struct("HHHH80sI")  # struct uinput_setup
UI_DEV_SETUP = _ioc_u(1, 3, SETUP.size)
UI_SET_EVBIT = _ioc_u(1, 100, 4)
UI_SET_KEYBIT = _ioc_u(1, 101, 4)
UI_SET_RELBIT = _ioc_u(1, 102, 4)
UI_GET_SYSNAME_64 = _ioc_u(2, 44, 64)
EVIOCGRAB = _ioc(1, 0x90, 4)
BUS_VIRTUAL = 0x06


class Device:
    def __init__(self, kind, label):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        self.watcher = None
        fcntl.ioctl(self.fd, UI_SET_EVBIT, E.EV_KEY)
        if kind == "keyboard":
            fcntl.ioctl(self.fd, UI_SET_EVBIT, E.EV_REP)
            for code in range(1, 249):  # udev's input_id: a full keyboard
                fcntl.ioctl(self.fd, UI_SET_KEYBIT, code)
        else:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, E.EV_REL)
            for code in (E.BTN_LEFT, E.BTN_RIGHT, E.BTN_MIDDLE):
                fcntl.ioctl(self.fd, UI_SET_KEYBIT, code)
            for code in (E.REL_X, E.REL_Y, E.REL_WHEEL):
                fcntl.ioctl(self.fd, UI_SET_RELBIT, code)
        fcntl.ioctl(self.fd, UI_DEV_SETUP,
                    SETUP.pack(BUS_VIRTUAL, 0x1209, 0x0001, 1, label.encode(), 0))
        fcntl.ioctl(self.fd, UI_DEV_CREATE)
        sysname = fcntl.ioctl(self.fd, UI_GET_SYSNAME_64, bytes(64)).split(b"\0")[0].decode()
        self.node = self._node(sysname)

    @staticmethod
    def _node(sysname):
        d = "/sys/devices/virtual/input/" + sysname
        end = time.time() + 10
        while time.time() < end:
            for n in os.listdir(d):
                if n.startswith("event") and os.path.exists("/dev/input/" + n):
                    return "/dev/input/" + n
            time.sleep(0.05)
        raise OSError("no event node for " + sysname)

    def emit(self, type_, code, value):
        os.write(self.fd, EVENT.pack(0, 0, type_, code, value) +
                 EVENT.pack(0, 0, E.EV_SYN, E.SYN_REPORT, 0))
        time.sleep(0.01)

    def key(self, code):
        self.emit(E.EV_KEY, code, 1)
        self.emit(E.EV_KEY, code, 0)

    def close(self):
        if self.watcher is not None:
            os.close(self.watcher)
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def key_code(c):
    if c == " ":
        return E.KEY_SPACE
    return getattr(E, "KEY_" + c.upper())


def run(devs, words):
    cmd, name, args = words[0], words[1], words[2:]
    if cmd == "create":
        devs[name] = Device(args[0], " ".join(args[1:]))
        return devs[name].node
    d = devs[name]
    if cmd == "destroy":
        d.close()
        del devs[name]
    elif cmd == "type":
        for c in " ".join(args):
            d.key(key_code(c))
    elif cmd == "move":
        os.write(d.fd, EVENT.pack(0, 0, E.EV_REL, E.REL_X, int(args[0])) +
                 EVENT.pack(0, 0, E.EV_REL, E.REL_Y, int(args[1])) +
                 EVENT.pack(0, 0, E.EV_SYN, E.SYN_REPORT, 0))
    elif cmd == "click":
        d.key(E.BTN_LEFT)
    elif cmd == "wheel":
        d.emit(E.EV_REL, E.REL_WHEEL, int(args[0]))
    elif cmd == "hotkey":
        for code in (E.KEY_LEFTCTRL, E.KEY_LEFTALT, E.KEY_SCROLLLOCK):
            d.emit(E.EV_KEY, code, 1)
        for code in (E.KEY_SCROLLLOCK, E.KEY_LEFTALT, E.KEY_LEFTCTRL):
            d.emit(E.EV_KEY, code, 0)
    elif cmd == "watch":
        if d.watcher is not None:
            os.close(d.watcher)
        d.watcher = os.open(d.node, os.O_RDONLY | os.O_NONBLOCK)
        try:
            fcntl.ioctl(d.watcher, EVIOCGRAB, 1)
        except OSError as e:
            return "grab=" + errno.errorcode.get(e.errno, str(e.errno))
        fcntl.ioctl(d.watcher, EVIOCGRAB, 0)
        return "grab=ok"
    elif cmd == "seen":
        n = 0
        try:
            while True:
                data = os.read(d.watcher, EVENT.size * 64)
                for i in range(0, len(data) - EVENT.size + 1, EVENT.size):
                    _, _, t, _, v = EVENT.unpack(data[i:i + EVENT.size])
                    n += t == E.EV_KEY and v in (0, 1)
        except BlockingIOError:
            pass
        os.close(d.watcher)
        d.watcher = None
        return "seen=%d" % n
    else:
        raise ValueError("unknown command " + cmd)
    return "ok"


def main(fifo, ackdir):
    devs = {}
    n = 0
    with open(fifo) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            n += 1
            try:
                out = run(devs, words)
            except (OSError, ValueError, KeyError, IndexError) as e:
                out = "error: %s" % e
            with open("%s/%d.new" % (ackdir, n), "w") as a:
                a.write(out + "\n")
            os.rename("%s/%d.new" % (ackdir, n), "%s/%d" % (ackdir, n))
    for d in devs.values():
        d.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
