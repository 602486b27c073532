# t-console.sh on the light bed: a login over USB serial where systemd is
# not PID 1, so gadgetd -f runs agetty on ttyGS0 itself (gadgetd/console/
# console_getty.h) and starts it again after each logout and after the
# cable's hangup. Everything else as t-console.sh says.
# bed: light - agetty run by gadgetd itself, the path of a board without systemd as PID 1
. "$SRC/tests/loopback/t-console.sh"
