"""Switch latencies from the kernel's log of b-switch.sh (median of all).

Usage: switch_times.py NAME DMESG. For each "bench: switch VID:PID" mark,
the time until usbcore logs "New USB device found" with those ids (the
host has read every descriptor), until the old device's "USB disconnect"
and, for the floor, from its "floor: bind" mark until usbcore's "new
high-speed USB device" (the connection seen, debounced and the port
reset) and on to the descriptors. Prints BENCH lines.
"""
import re
import statistics
import sys

name, path = sys.argv[1], sys.argv[2]
prefix = "switch" if name == "gadgetd" else "switch_" + name
spans = {k: [] for k in ("to_host", "to_disconnect", "bind_to_reset", "reset_to_found")}
mark = want = bind = reset = gone = None
for line in open(path, errors="replace"):
    m = re.match(r"\[\s*([0-9.]+)\] (.*)", line)
    if not m:
        continue
    t, msg = float(m.group(1)), m.group(2)
    s = re.match(r"bench: switch ([0-9a-f]{4}):([0-9a-f]{4})", msg)
    if s:
        mark, want, bind, reset, gone = t, s.groups(), None, None, None
    elif mark is None:
        continue
    elif msg.startswith("floor: bind"):
        bind = t
    elif "USB disconnect" in msg and gone is None:
        gone = t
    elif "new high-speed USB device" in msg or "new full-speed USB device" in msg:
        reset = t
    else:
        f = re.search(r"New USB device found, idVendor=([0-9a-f]{4}), idProduct=([0-9a-f]{4})", msg)
        if f and f.groups() == want:
            spans["to_host"].append(t - mark)
            if gone is not None:
                spans["to_disconnect"].append(gone - mark)
            if bind is not None and reset is not None:
                spans["bind_to_reset"].append(reset - bind)
                spans["reset_to_found"].append(t - reset)
            mark = None
if not spans["to_host"]:
    sys.exit("%s: no switch found in %s" % (name, path))
for k, v in spans.items():
    if v:
        print("BENCH %s_%s_ms_median %.0f ms (n=%d)" % (prefix, k, 1000 * statistics.median(v), len(v)))
