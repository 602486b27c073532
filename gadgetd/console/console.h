/*
 * console: logins on the board's side of the bound set's serial ports
 * (console = "getty" on an acm or gser function, gadgetd.conf(5)).
 *
 * It decides; a backend does. Its owner tells it, at each sync, which
 * ports want a login now (console_sync()): the functions of the bound
 * set with a console while the UDC is there, each with its port_num. A
 * port that is new is started, one that is gone (a switch away, the UDC
 * gone, off) is stopped, and one that stays is left alone, so a switch
 * that keeps the function keeps its login. The backend tells how a start
 * went (console_told()), for status.
 *
 * Two backends, chosen by console_system_new() (console_system.h): systemd's
 * serial-getty@ttyGSN.service through its D-Bus API where systemd is PID 1
 * (console_unit.h), else agetty run and restarted by gadgetd
 * (console_getty.h).
 */
#ifndef GADGETD_CONSOLE_H
#define GADGETD_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

struct config;
struct console;
struct loop;

/* The most ports with a login: a set's functions at most. */
#define CONSOLE_MAX 16
#define CONSOLE_FUNCTION_MAX 32

enum console_state {
	CONSOLE_STARTING, /* asked for, not confirmed yet */
	CONSOLE_RUNNING,  /* started (the unit's job queued; agetty running) */
	CONSOLE_FAILED,   /* refused or given up on, until the next start */
};

/* A port that wants a login: /dev/ttyGS<port>. */
struct console_want {
	char function[CONSOLE_FUNCTION_MAX];
	unsigned port;
};

/* What status shows of one port. */
struct console_info {
	char function[CONSOLE_FUNCTION_MAX];
	unsigned port;
	enum console_state state;
	const char *how; /* "systemd" or "agetty" */
};

struct console_ops {
	const char *name; /* "systemd", "agetty" */
	/* Start a login on ttyGS<port>: 0 (console_told() follows, or
	 * the state stays CONSOLE_STARTING until it does) or -errno. */
	int (*start)(void *be, unsigned port);
	/* Stop it; the backend calls console_stopped() once the port is
	 * free to go (from stop() itself, or later from the loop, within
	 * its own deadline). */
	void (*stop)(void *be, unsigned port);
	/* Every login stopped, the backend freed (gadgetd is stopping). */
	void (*free)(void *be);
};

/* A console on backend be (ops->free(be) at console_free()). NULL with
 * errno. */
struct console *console_new(const struct console_ops *ops, void *be);
/* Stops every login. NULL is fine. */
void console_free(struct console *c);

/* The n ports that want a login now (n 0: none, everything stops). */
void console_sync(struct console *c, const struct console_want *want, unsigned n);
/* The backend's word on ttyGS<port>'s last start. */
void console_told(struct console *c, unsigned port, enum console_state s);
/* The backend's word that ttyGS<port>'s stop is done. */
void console_stopped(struct console *c, unsigned port);
/* Before the serial functions are unbound and removed: 0 when no stop is
 * under way, else -EINPROGRESS and fn(data) follows, from the loop, once
 * every stop is done (one waiter; console_wait_cancel() forgets it). */
int console_wait_stopped(struct console *c, void (*fn)(void *data), void *data);
void console_wait_cancel(struct console *c);
/* Up to max ports with a login wanted, into out: how many. */
unsigned console_list(const struct console *c, struct console_info *out,
		      unsigned max);
/* "starting", "running", "failed". */
const char *console_state_name(enum console_state s);

#endif
