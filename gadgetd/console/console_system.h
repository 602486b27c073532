/*
 * console_system: the console backend that fits the system gadgetd runs
 * on: systemd's serial-getty@ttyGSN.service when systemd is PID 1
 * (console_unit.h), else agetty run by gadgetd (console_getty.h).
 */
#ifndef GADGETD_CONSOLE_SYSTEM_H
#define GADGETD_CONSOLE_SYSTEM_H

struct config;
struct console;
struct loop;

/* NULL with errno. */
struct console *console_system_new(struct loop *l, const struct config *cfg);

#endif
