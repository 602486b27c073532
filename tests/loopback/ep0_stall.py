#!/usr/bin/python3
"""A host that starts a control request and never sends its data stage.

  ep0_stall.py VID:PID FUNCTION

Finds VID:PID, then sends AOA's SEND_STRING (0x40/52, wLength 8), which
the accessory plugin accepts, and leaves its data stage unsent. One
round a run: libusb keeps the device list of its first scan when no
hotplug events reach it (no udevd on the bed), so a gadget that
enumerated again needs a new process.

dummy_hcd hands an OUT request's data to the gadget together with its
SETUP, in one URB, so a libusb host cannot hold the data back from a
worker that reads at once. The driver therefore stops FUNCTION's worker
(SIGSTOP, pid from `gadgetctl status --json`) for the 0.3 s in which its
transfer times out and libusb cancels the URB, then lets it go on: f_fs
then holds a SETUP whose data stage never comes, the state a hostile
host on a real bus makes by not sending the DATA packets at all.

Exit 0 when it left such a request, 1 with the reason otherwise.
"""
import json
import os
import signal
import subprocess
import sys
import time

import usb_find


def worker_pid(function, wait):
    """The pid of FUNCTION's worker once it is ready or enabled."""
    deadline = time.time() + wait
    while time.time() < deadline:
        out = subprocess.run(["gadgetctl", "status", "--json"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            for p in json.loads(out.stdout).get("plugins", []):
                if p.get("name") == function and \
                        p.get("state") in ("ready", "enabled") and p.get("pid"):
                    return p["pid"]
        time.sleep(0.2)
    return 0


def one_round(vidpid, function):
    import usb.core
    import usb.util

    dev = usb_find.device(vidpid, 20)
    wpid = worker_pid(function, 15)
    if dev is None or not wpid:
        return "no device %s or no %s worker" % (vidpid, function)
    os.kill(wpid, signal.SIGSTOP)
    try:
        dev.ctrl_transfer(0x40, 52, 0, 0, b"stalled\0", timeout=300)
        took = "the data stage went through"
    except usb.core.USBTimeoutError:
        took = None
    except usb.core.USBError as e:
        took = "the request failed: %s" % e
    finally:
        os.kill(wpid, signal.SIGCONT)
    usb.util.dispose_resources(dev)
    if took:
        return took
    print("worker %d: SETUP sent, data stage withheld" % wpid, flush=True)
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    why = one_round(sys.argv[1], sys.argv[2])
    if why:
        print("ep0_stall: " + why)
        sys.exit(1)
    sys.exit(0)


if __name__ == "__main__":
    main()
