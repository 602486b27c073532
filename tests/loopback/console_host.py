#!/usr/bin/env python3
"""The host's side of a login over USB serial (t-console.sh).

console_host.py TTY USER PASSWORD [--stay]

Opens TTY (the host's /dev/ttyACMN) raw, without waiting for carrier,
wakes the board's getty with a carriage return until it says "login:",
logs in as USER, runs `echo $((6*7))` and checks that a line "42" comes
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

    def send(self, text):
        os.write(self.fd, text.encode())

    def wait(self, pattern, secs, poke=None):
        """Until pattern (a bytes regex) is in what came since the last
        match; poke is sent every 3 s meanwhile. The match or None."""
        end = time.monotonic() + secs
        next_poke = 0.0
        while time.monotonic() < end:
            if poke is not None and time.monotonic() >= next_poke:
                self.send(poke)
                next_poke = time.monotonic() + 3
            r, _, _ = select.select([self.fd], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(self.fd, 4096)
                except BlockingIOError:
                    chunk = b""
                self.seen += chunk
            m = re.search(pattern, self.seen)
            if m:
                self.seen = self.seen[m.end():]
                return m
        print("console_host: no %r within %d s; got %r" % (pattern, secs, self.seen[-300:]))
        return None


def main():
    path, user, password = sys.argv[1:4]
    stay = "--stay" in sys.argv[4:]
    t = Tty(path)
    if not t.wait(rb"login: ?$", 60, poke="\r"):
        return 1
    print("console_host: login: prompt")
    t.send(user + "\r")
    if not t.wait(rb"[Pp]assword: ?$", 30):
        return 1
    t.send(password + "\r")
    # The shell's prompt ends in "$ " (bash, a user).
    if not t.wait(rb"\$ ?$", 90):
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
