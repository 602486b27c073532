/*
 * console_getty: a console backend (console.h) for a board without
 * systemd as PID 1: gadgetd runs "agetty -L ttyGSN 115200 vt102" itself
 * (netproc.h: a child watched by the loop, its pid file in run_dir), and
 * starts it again when it exits, as it does at each logout and when the
 * host's side hangs up (u_serial hangs the tty up at a disconnect).
 */
#ifndef GADGETD_CONSOLE_GETTY_H
#define GADGETD_CONSOLE_GETTY_H

struct config;
struct console;
struct loop;

/* NULL with errno. */
struct console *console_getty_new(struct loop *l, const struct config *cfg);

#endif
