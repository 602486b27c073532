#!/usr/bin/python3
"""Both ends of an Android Open Accessory session for the loopback tests.

Host side (pyusb, like a car head unit):
  aoa_host.py handshake VID:PID [--with-garbage]
      GET_PROTOCOL (expects 2), the six strings, START. With
      --with-garbage first sends malformed requests and checks that each
      is stalled and that the device still answers GET_PROTOCOL.
  aoa_host.py nonterm VID:PID
      A SEND_STRING without NUL is taken (the data stage cannot be
      stalled) but the START after it must stall; GET_PROTOCOL clears it.
  aoa_host.py exchange VID:PID BYTES [--bench] [--wait SECS]
      Claims the FF/FF/00 interface, sends BYTES random bytes and expects
      them back upper-cased (from the board application below), both
      directions running at once. --bench prints the throughput. --wait
      waits for the device to appear, then claims at once as real
      accessory hosts do (every command takes --wait).
  aoa_host.py query VID:PID
      GET_PROTOCOL in accessory mode.
  aoa_host.py send VID:PID BYTES / recv VID:PID BYTES
      Throughput host->board (the board app in sink mode acknowledges the
      last byte) and board->host (the app in source mode); prints BENCH.

Board side:
  aoa_host.py app SOCKET HEADER_OUT [echo | sink BYTES | source BYTES]
      Connects to the plugin's socket, saves the header, then echoes
      everything back upper-cased until the connection ends (echo), or
      reads BYTES and answers "K" (sink), or writes BYTES (source).

  aoa_host.py profile
      Prints the gadget profile the loopback test and bench use.

Exit status 0 on success; every failure prints why.
"""
import os
import socket
import sys
import threading
import time

import usb_find

STRINGS = ["gadgetd-test", "LoopbackDock", "AOA loopback test",
           "1.0", "https://example.org/aoa", "SER123"]


def die(msg):
    print("aoa_host: " + msg)
    sys.exit(1)


def find(vidpid, wait=0):
    dev = usb_find.device(vidpid, wait)
    if dev is None:
        die("no device %s" % vidpid)
    return dev


def ctrl(dev, rtype, req, value, index, data_or_len):
    return dev.ctrl_transfer(rtype, req, value, index, data_or_len, timeout=2000)


def expect_stall(dev, what, rtype, req, value, index, data_or_len):
    import usb.core
    try:
        ctrl(dev, rtype, req, value, index, data_or_len)
    except usb.core.USBError as e:
        if e.errno == 32:  # EPIPE: stalled
            print("ok: stalled: " + what)
            return
        die("%s: %s, expected a stall" % (what, e))
    die("%s: accepted, expected a stall" % what)


def get_protocol(dev):
    r = ctrl(dev, 0xC0, 51, 0, 0, 2)
    if len(r) != 2 or r[0] | r[1] << 8 != 2:
        die("GET_PROTOCOL answered %r, expected 2" % list(r))
    print("ok: GET_PROTOCOL = 2")


def garbage(dev):
    expect_stall(dev, "unknown vendor request 99", 0x40, 99, 0, 0, None)
    expect_stall(dev, "unknown IN vendor request 60", 0xC0, 60, 0, 0, 8)
    expect_stall(dev, "SEND_STRING wIndex 6", 0x40, 52, 0, 6, b"x\0")
    expect_stall(dev, "SEND_STRING 300 bytes", 0x40, 52, 0, 0, b"a" * 299 + b"\0")
    expect_stall(dev, "SEND_STRING as IN", 0xC0, 52, 0, 0, 8)
    expect_stall(dev, "START with data", 0x40, 53, 0, 0, b"xx")
    expect_stall(dev, "class request 51", 0xA0, 51, 0, 0, 2)
    expect_stall(dev, "SET_AUDIO_MODE 7", 0x40, 58, 7, 0, None)
    expect_stall(dev, "SEND_HID_EVENT unknown id", 0x40, 57, 9, 0, b"abc")
    get_protocol(dev)


def handshake(dev, with_garbage):
    if with_garbage:
        garbage(dev)
    get_protocol(dev)
    for i, s in enumerate(STRINGS):
        ctrl(dev, 0x40, 52, 0, i, s.encode() + b"\0")
    print("ok: six strings sent")
    ctrl(dev, 0x40, 53, 0, 0, None)
    print("ok: START accepted")


def nonterm(dev):
    get_protocol(dev)
    ctrl(dev, 0x40, 52, 0, 0, b"NoTerminator")
    print("ok: SEND_STRING without NUL taken (data stages are acknowledged)")
    expect_stall(dev, "START after a string without NUL", 0x40, 53, 0, 0, None)
    get_protocol(dev)


def accessory_interface(dev):
    import usb.core
    import usb.util
    # Right after enumeration the host may not have configured it yet.
    for _ in range(100):
        try:
            cfg = dev.get_active_configuration()
            break
        except usb.core.USBError:
            time.sleep(0.05)
    else:
        die("the device has no active configuration")
    for intf in cfg:
        if (intf.bInterfaceClass, intf.bInterfaceSubClass,
                intf.bInterfaceProtocol) == (0xFF, 0xFF, 0):
            eps = list(intf)
            ep_in = [e for e in eps if usb.util.endpoint_direction(
                e.bEndpointAddress) == usb.util.ENDPOINT_IN]
            ep_out = [e for e in eps if usb.util.endpoint_direction(
                e.bEndpointAddress) == usb.util.ENDPOINT_OUT]
            if len(ep_in) != 1 or len(ep_out) != 1:
                die("accessory interface without two bulk endpoints")
            return intf, ep_in[0], ep_out[0]
    die("no FF/FF/00 interface")


def exchange(dev, total, bench=False):
    import usb.core
    import usb.util
    intf, ep_in, ep_out = accessory_interface(dev)
    name = usb.util.get_string(dev, intf.iInterface) if intf.iInterface else ""
    if name != "Android Accessory Interface":
        die("interface string is %r" % name)
    print("ok: interface string %r" % name)
    try:
        if dev.is_kernel_driver_active(intf.bInterfaceNumber):
            dev.detach_kernel_driver(intf.bInterfaceNumber)
    except (NotImplementedError, usb.core.USBError):
        pass
    usb.util.claim_interface(dev, intf.bInterfaceNumber)
    data = os.urandom(total)
    got = bytearray()
    err = []

    def reader():
        deadline = time.time() + 60
        while len(got) < total and time.time() < deadline:
            try:
                got.extend(ep_in.read(16384, timeout=5000))
            except usb.core.USBTimeoutError:
                continue
            except usb.core.USBError as e:
                err.append(str(e))
                return

    t = threading.Thread(target=reader)
    start = time.time()
    t.start()
    off = 0
    while off < total:
        off += ep_out.write(data[off:off + 16384], timeout=10000)
    t.join(70)
    secs = time.time() - start
    usb.util.release_interface(dev, intf.bInterfaceNumber)
    if err:
        die("bulk IN: " + err[0])
    if bytes(got) != data.upper():
        die("echo differs: sent %d bytes, got %d back" % (total, len(got)))
    print("ok: %d bytes sent and %d upper-cased bytes back intact" % (total, len(got)))
    if bench:
        print("BENCH accessory_echo_roundtrip %.2f MB/s" % (2 * total / secs / 1e6))


PROFILE = """gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "aoa test";
             serial = "AOA0001"; };
};
functions: {
  acm: { type = "acm"; };
  mtp: { type = "ffs"; plugin = "mtp";
         options: { storage0_path = "/srv/mtp"; storage0_create = true;
                    storage0_description = "Internal storage"; }; };
  adb: { type = "ffs"; plugin = "adb"; user = "root";
         options: { auth = "off"; product = "gadgetd";
                    model = "aoa_test"; device = "gadgetd"; }; };
  aoa: { type = "ffs"; plugin = "accessory";
         options: { mode = "control"; }; };
  aoaadb: { type = "ffs"; plugin = "accessory";
            options: { mode = "control"; with_adb = "true"; }; };
  accessory: { type = "ffs"; plugin = "accessory"; group = "plugdev";
               options: { mode = "data"; socket = "/run/gadgetd/accessory/accessory.sock";
                          socket_group = "plugdev";
                          disconnect_timeout_ms = "1500"; }; };
};
sets = (
  { functions = [ "acm", "aoa" ]; product_id = 0x0110; },
  { functions = [ "adb", "aoaadb" ]; product_id = 0x0111; },
  { functions = [ "mtp", "adb", "aoa" ]; product_id = 0x0112; },
  { functions = [ "accessory" ]; vendor_id = 0x18d1; product_id = 0x2d00; },
  { functions = [ "accessory", "adb" ]; vendor_id = 0x18d1; product_id = 0x2d01; }
);
default = "acm,aoa";
"""


def claim(dev):
    import usb.core
    import usb.util
    intf, ep_in, ep_out = accessory_interface(dev)
    try:
        if dev.is_kernel_driver_active(intf.bInterfaceNumber):
            dev.detach_kernel_driver(intf.bInterfaceNumber)
    except (NotImplementedError, usb.core.USBError):
        pass
    usb.util.claim_interface(dev, intf.bInterfaceNumber)
    return ep_in, ep_out


def bulk_read(ep_in, want, deadline):
    import usb.core
    got = 0
    last = b""
    while got < want and time.time() < deadline:
        try:
            chunk = ep_in.read(262144, timeout=5000)
        except usb.core.USBTimeoutError:
            continue
        got += len(chunk)
        if len(chunk):
            last = bytes(chunk[-1:])
    return got, last


def send(dev, total):
    ep_in, ep_out = claim(dev)
    block = os.urandom(262144)
    start = time.time()
    off = 0
    while off < total:
        n = min(len(block), total - off)
        off += ep_out.write(block[:n], timeout=20000)
    got, last = bulk_read(ep_in, 1, time.time() + 60)
    secs = time.time() - start
    if got != 1 or last != b"K":
        die("no acknowledgement from the board application")
    print("ok: %d bytes host->board" % total)
    print("BENCH accessory_host_to_board %.1f MB/s" % (total / secs / 1e6))


def recv(dev, total):
    ep_in, ep_out = claim(dev)
    start = time.time()
    got, _ = bulk_read(ep_in, total, time.time() + 300)
    secs = time.time() - start
    if got != total:
        die("got %d of %d bytes board->host" % (got, total))
    print("ok: %d bytes board->host" % total)
    print("BENCH accessory_board_to_host %.1f MB/s" % (total / secs / 1e6))


def app_sink(s, total, have):
    got = have
    while got < total:
        chunk = s.recv(1 << 20)
        if not chunk:
            die("app: connection ended after %d bytes" % got)
        got += len(chunk)
    s.sendall(b"K")


def app_source(s, total):
    block = b"s" * (1 << 20)
    sent = 0
    while sent < total:
        n = min(len(block), total - sent)
        s.sendall(block[:n])
        sent += n


def app(path, header_out, mode="echo", total=0):
    deadline = time.time() + 60
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            break
        except OSError:
            if time.time() > deadline:
                die("cannot connect to " + path)
            time.sleep(0.1)
    buf = b""
    while b"\n\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            die("connection ended inside the header")
        buf += chunk
    header, rest = buf.split(b"\n\n", 1)
    with open(header_out, "wb") as f:
        f.write(header + b"\n\n")
    if mode == "sink":
        app_sink(s, total, len(rest))
        s.recv(1)
        return
    if mode == "source":
        app_source(s, total)
        s.recv(1)
        return
    if rest:
        s.sendall(rest.upper())
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        s.sendall(chunk.upper())
    print("app: connection ended")


def main():
    if len(sys.argv) < 2 or (len(sys.argv) < 3 and sys.argv[1] != "profile"):
        die(__doc__)
    if sys.argv[1] == "profile":
        sys.stdout.write(PROFILE)
        return
    cmd, arg = sys.argv[1], sys.argv[2]
    if cmd == "app":
        mode = sys.argv[4] if len(sys.argv) > 4 else "echo"
        app(arg, sys.argv[3], mode, int(sys.argv[5]) if len(sys.argv) > 5 else 0)
        return
    wait = 0
    if "--wait" in sys.argv:
        wait = float(sys.argv[sys.argv.index("--wait") + 1])
    dev = find(arg, wait)
    if cmd == "handshake":
        handshake(dev, "--with-garbage" in sys.argv)
    elif cmd == "nonterm":
        nonterm(dev)
    elif cmd == "query":
        get_protocol(dev)
    elif cmd == "exchange":
        exchange(dev, int(sys.argv[3]), "--bench" in sys.argv)
    elif cmd == "send":
        send(dev, int(sys.argv[3]))
    elif cmd == "recv":
        recv(dev, int(sys.argv[3]))
    else:
        die("unknown command " + cmd)


if __name__ == "__main__":
    main()
