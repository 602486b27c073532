/*
 * console_unit: a console backend (console.h) that asks systemd, over
 * its D-Bus API (org.freedesktop.systemd1.Manager StartUnit and StopUnit,
 * mode "replace"), to start and stop serial-getty@ttyGSN.service.
 *
 * systemd's own getty unit is not bound by gadgetd.service's sandbox (its
 * private /dev has no ttyGS), restarts agetty after each logout, and
 * stops it when the tty goes (BindsTo its device). A start is
 * asynchronous, on a system bus connection of the backend's own served
 * from gadgetd's loop; its reply tells the state (running: the start job
 * was queued; failed: refused, logged with systemd's message). A stop
 * is done (console_stopped()) once the unit is inactive, at most 5 s
 * later, asked for on the loop as well (console_unit.c says why).
 */
#ifndef GADGETD_CONSOLE_UNIT_H
#define GADGETD_CONSOLE_UNIT_H

struct console;
struct loop;

/* NULL with errno. */
struct console *console_unit_new(struct loop *l);

#endif
