#!/usr/bin/env python3
"""The host's side of a login over USB serial (t-console.sh).

console_host.py TTY USER PASSWORD [--stay]

Opens TTY (the host's /dev/ttyACMN) raw, without waiting for carrier,
answers cursor position queries as a 24x80 terminal would,
wakes the board's getty with a carriage return until it says "login:",
logs in as USER (typing the name again, up to 3 tries, when login got
it garbled), runs `echo $((6*7))` and checks that a line "42" comes
back (the command line itself echoes "$((6*7))", not 42), then logs out
(exit) unless --stay. Prints each step; exit status 0 only if all went.
"""
import os
import re
import select
import sys
import termios
import time


def raw(fd):
    a = termios.tcgetattr(fd)
    a[0] = 0                                    # iflag
    a[1] = 0                                    # oflag
    a[2] = termios.CS8 | termios.CREAD | termios.CLOCAL
    a[3] = 0                                    # lflag
    a[4] = a[5] = termios.B115200
    a[6][termios.VMIN] = 0
    a[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, a)


class Tty:
    def __init__(self, path):
        # The first open after an enumeration fails now and then on the
        # bed (t-hang.sh): a few tries.
        for i in range(20):
            try:
                self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
                raw(self.fd)
                break
            except OSError as e:
                if i == 19:
                    raise
                print("console_host: open %s: %s; again" % (path, e))
                time.sleep(0.5)
        self.seen = b""
        self.tail = b""

    def send(self, text, nudge=False):
        """Write text, waiting up to 10 s while the tty's buffer is full
        (the board's side reads nothing until its getty opens the port:
        cdc_acm takes 16 writes, then EAGAIN). A nudge (the poke that
        asks for a prompt) is dropped instead: the ones before it wait in
        that buffer already."""
        data = text.encode()
        end = time.monotonic() + 10
        while data:
            try:
                data = data[os.write(self.fd, data):]
            except BlockingIOError:
                if nudge:
                    return
                left = end - time.monotonic()
                if left <= 0:
                    raise
                select.select([], [self.fd], [], min(left, 0.5))

    def wait(self, pattern, secs, poke=None):
        """Until pattern (a bytes regex) is in what came since the last
        match; poke is sent every 3 s meanwhile. The match or None."""
        end = time.monotonic() + secs
        next_poke = 0.0
        while time.monotonic() < end:
            if poke is not None and time.monotonic() >= next_poke:
                self.send(poke, nudge=True)
                next_poke = time.monotonic() + 3
            r, _, _ = select.select([self.fd], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(self.fd, 4096)
                except BlockingIOError:
                    chunk = b""
                # A terminal answers a cursor position query (DSR, ESC
                # [6n), as systemd 257 asks one when it readies a serial
                # getty's tty to learn its size; unanswered, it takes what
                # is typed meanwhile as the answer (a garbled login name).
                for _ in range((self.tail + chunk).count(b"\x1b[6n") -
                               self.tail.count(b"\x1b[6n")):
                    self.send("\x1b[24;80R")
                self.tail = (self.tail + chunk)[-3:]
                self.seen += chunk
            m = re.search(pattern, self.seen)
            if m:
                self.seen = self.seen[m.end():]
                return m
        print("console_host: no %r within %d s; got %r" % (pattern, secs, self.seen[-300:]))
        return None


def login(t, user, password):
    """From a login: prompt seen to the shell's prompt. A name that
    reached login garbled ("Login incorrect", seen under load on the
    systemd bed: pam_unix's 'user unknown', while the getty was started
    again around the bind) or a new prompt instead of Password: is typed
    again, as a user at a serial console would: 3 tries, each printed."""
    for attempt in range(1, 4):
        if attempt > 1:
            print("console_host: try %d" % attempt)
        t.send(user + "\r")
        m = t.wait(rb"([Pp]assword: ?$)|(login: ?$)", 30)
        if not m:
            return False
        if m.group(2):
            print("console_host: login: again instead of Password:")
            continue
        t.send(password + "\r")
        # The shell's prompt ends in "$ " (bash, a user).
        m = t.wait(rb"(\$ ?$)|(Login incorrect)", 90)
        if not m:
            return False
        if m.group(1):
            return True
        print("console_host: Login incorrect")
        if not t.wait(rb"login: ?$", 60, poke="\r"):
            return False
    return False


def main():
    path, user, password = sys.argv[1:4]
    stay = "--stay" in sys.argv[4:]
    t = Tty(path)
    if not t.wait(rb"login: ?$", 60, poke="\r"):
        return 1
    print("console_host: login: prompt")
    if not login(t, user, password):
        return 1
    print("console_host: logged in as %s" % user)
    t.send("echo $((6*7))\r")
    # bash's bracketed-paste switches (ESC [?2004l) come before its
    # output, so the line starts after a \r rather than at a line's start.
    if not t.wait(rb"[\r\n]42\r?\n", 30):
        return 1
    print("console_host: echo $((6*7)) gave 42")
    if not stay:
        t.send("exit\r")
        print("console_host: logged out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
