#!/usr/bin/python3
"""Stand in for gadgetd in front of one gadgetd-worker (loopback tests).

  ffs_worker.py start CTL [--timeout S] -- WORKER ARGS...
      Start WORKER with fd 3 one end of a SOCK_SEQPACKET socketpair, wait
      for WORKER_READY, print "READY <worker pid> <daemon pid>" and exit 0, leaving a small
      daemon that keeps fd 3 open and relays commands sent to the unix
      socket CTL. If the worker exits instead, exit with its exit code;
      exit 1 if it stays silent.
  ffs_worker.py cmd CTL ARG...
      Send WORKER_COMMAND ARG... and print "rc text" of the WORKER_REPLY.
      A WORKER_KEY for that command (adb's allow) is done as gadgetd does
      it: the line appended to the worker's -o keys=PATH file.

The daemon logs every message from the worker to CTL.log and exits when
the worker closes its end.
"""
import os
import select
import socket
import struct
import sys
import time

READY, STATUS, SWITCH, REPLY, HOST, COMMAND = 1, 2, 3, 4, 5, 64
KEY, KEY_DONE = 11, 67
EPERM = 1
HDR = struct.Struct("=HH")


def spawn(argv):
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        # Only stderr: stdout may be a pipe the caller reads to EOF.
        os.dup2(2, 1)
        os.dup2(child.fileno(), 3)
        os.set_inheritable(3, True)
        os.execv(argv[0], argv)
    child.close()
    return parent, pid


def exit_code(pid, wait_s):
    """The worker's exit code if it ends within wait_s, else None."""
    deadline = time.monotonic() + wait_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def wait_ready(sock, pid, timeout):
    """True on READY; else the worker's exit code (None: still running)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([sock], [], [], 0.2)
        if not r:
            code = exit_code(pid, 0)
            if code is not None:
                print("worker exited with %d before READY" % code, file=sys.stderr)
                return code
            continue
        msg = sock.recv(4096)
        if not msg:
            code = exit_code(pid, 2)
            print("worker closed fd 3 before READY (exit %s)" % code,
                  file=sys.stderr)
            return code
        typ, ln = HDR.unpack_from(msg)
        if typ == READY and ln == 0:
            return True
        print("unexpected message %d before READY" % typ, file=sys.stderr)
    print("no READY within %.1f s" % timeout, file=sys.stderr)
    return None


def describe(msg):
    typ, ln = HDR.unpack_from(msg)
    body = msg[HDR.size:]
    if len(body) != ln:
        return "BAD length %d != %d" % (ln, len(body))
    if typ == HOST:
        return "HOST %d" % struct.unpack_from("=I", body)[0]
    if typ in (STATUS, SWITCH):
        return "%s %r" % ("STATUS" if typ == STATUS else "SWITCH",
                          body.split(b"\0")[:-1])
    return "type %d len %d" % (typ, ln)


def add_key(sock, msg, cmd_id, keys, log):
    """WORKER_KEY: append the line to keys for command cmd_id, as gadgetd
    does (root's file; a missing one is made 0640), and answer."""
    kid = struct.unpack_from("=I", msg, HDR.size)[0]
    line = msg[HDR.size + 4:].split(b"\0")[0]
    rc = 0
    if kid != cmd_id or not keys or b"\n" in line:
        rc = -EPERM
    else:
        fd = os.open(keys, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o640)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            os.write(fd, b"\n")
        os.write(fd, line + b"\n")
        os.close(fd)
    log.write("KEY %r for command %d: %d\n" % (line[:20], kid, rc))
    payload = struct.pack("=Ii", kid, rc)
    sock.send(HDR.pack(KEY_DONE, len(payload)) + payload)


def relay(sock, conn, args, next_id, log, keys):
    payload = struct.pack("=I", next_id) + b"".join(a + b"\0" for a in args)
    sock.send(HDR.pack(COMMAND, len(payload)) + payload)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        r, _, _ = select.select([sock], [], [], 0.5)
        if not r:
            continue
        msg = sock.recv(4096)
        if not msg:
            break
        typ, ln = HDR.unpack_from(msg)
        if typ == KEY:
            add_key(sock, msg, next_id, keys, log)
            continue
        if typ != REPLY:
            log.write(describe(msg) + "\n")
            continue
        rid, rc = struct.unpack_from("=Ii", msg, HDR.size)
        text = msg[HDR.size + 8:].split(b"\0")[0]
        if rid != next_id:
            conn.sendall(b"-1 reply id %d, expected %d\n" % (rid, next_id))
        else:
            conn.sendall(b"%d %s\n" % (rc, text))
        return
    conn.sendall(b"-1 no reply\n")


def daemon(sock, ctl_path, keys):
    log = open(ctl_path + ".log", "a", buffering=1)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(ctl_path)
    srv.listen(4)
    next_id = 1
    while True:
        r, _, _ = select.select([sock, srv], [], [])
        if sock in r:
            msg = sock.recv(4096)
            if not msg:
                log.write("worker closed fd 3\n")
                break
            log.write(describe(msg) + "\n")
        if srv in r:
            conn, _ = srv.accept()
            conn.settimeout(5)
            line = conn.recv(4096).decode().strip()
            relay(sock, conn, [a.encode() for a in line.split()], next_id, log,
                  keys)
            next_id += 1
            conn.close()


def start(argv):
    ctl = argv[0]
    timeout = 15.0
    rest = argv[1:]
    if rest[:1] == ["--timeout"]:
        timeout = float(rest[1])
        rest = rest[2:]
    if rest[:1] != ["--"] or len(rest) < 2:
        sys.exit("usage: ffs_worker.py start CTL [--timeout S] -- WORKER ARGS...")
    try:
        os.unlink(ctl)
    except FileNotFoundError:
        pass
    sock, pid = spawn(rest[1:])
    ready = wait_ready(sock, pid, timeout)
    if ready is not True:
        if ready is None:
            os.kill(pid, 9)
        # Pass the worker's own exit code on (1 when it had none).
        sys.exit(ready if ready else 1)
    dpid = os.fork()
    if dpid == 0:
        os.setsid()
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        keys = [a[5:] for a in rest if a.startswith("keys=")]
        daemon(sock, ctl, keys[-1] if keys else None)
        os._exit(0)
    # Give the daemon a moment to create CTL before callers use it.
    for _ in range(50):
        if os.path.exists(ctl):
            break
        time.sleep(0.05)
    print("READY %d %d" % (pid, dpid), flush=True)
    os._exit(0)


def cmd(argv):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(argv[0])
    s.sendall(" ".join(argv[1:]).encode() + b"\n")
    print(s.recv(4096).decode().strip())


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("start", "cmd"):
        sys.exit(__doc__)
    (start if sys.argv[1] == "start" else cmd)(sys.argv[2:])
