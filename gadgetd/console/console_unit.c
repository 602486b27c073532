/*
 * console_unit: serial-getty@ttyGSN.service through systemd's D-Bus API
 * (console_unit.h).
 */
#include "console_unit.h"
#include "console.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-bus.h>

struct console_unit {
	struct loop *loop;
	struct console *console;
	sd_bus *bus;
	struct loop_watch *io, *timer;
	struct console_unit_stop *stops[CONSOLE_MAX]; /* under way */
};

/* What a start's reply is about. */
struct console_unit_call {
	struct console_unit *u;
	unsigned port;
};

static void console_unit_told(struct console_unit *u, unsigned port)
{
	console_stopped(u->console, port);
}

static void console_unit_name(unsigned port, char *buf, size_t size)
{
	snprintf(buf, size, "serial-getty@ttyGS%u.service", port);
}

static void console_unit_stop_done(struct console_unit_stop *st, bool tell);

/* Every stop under way ends: told (tell) or, at free, forgotten. */
static void console_unit_stops_end(struct console_unit *u, bool tell)
{
	unsigned i;

	for (i = 0; i < CONSOLE_MAX; i++)
		if (u->stops[i])
			console_unit_stop_done(u->stops[i], tell);
}

static void console_unit_drop(struct console_unit *u)
{
	/* Their replies will not come. */
	console_unit_stops_end(u, true);
	if (u->io)
		loop_watch_release(u->io);
	u->io = NULL;
	loop_timer_rearm(u->timer, 0);
	if (u->bus) {
		sd_bus_flush(u->bus);
		sd_bus_close(u->bus);
		u->bus = sd_bus_unref(u->bus);
	}
}

static void console_unit_rearm(struct console_unit *u)
{
	uint64_t usec, now;
	uint32_t ev = 0;
	int e;

	if (!u->bus)
		return;
	e = sd_bus_get_events(u->bus);
	if (e < 0) {
		console_unit_drop(u);
		return;
	}
	if (e & POLLIN)
		ev |= EPOLLIN;
	if (e & POLLOUT)
		ev |= EPOLLOUT;
	loop_watch_set_events(u->io, ev);
	if (sd_bus_get_timeout(u->bus, &usec) < 0 || usec == UINT64_MAX) {
		loop_timer_rearm(u->timer, 0);
		return;
	}
	now = loop_now_ms() * 1000;
	loop_timer_rearm(u->timer, usec > now ? (usec - now + 999) / 1000 : 1);
}

static void console_unit_process(struct console_unit *u)
{
	int r;

	while (u->bus) {
		r = sd_bus_process(u->bus, NULL);
		if (r < 0) {
			log_warnx("console: lost the system bus: %s", strerror(-r));
			console_unit_drop(u);
			return;
		}
		if (r == 0)
			break;
	}
	console_unit_rearm(u);
}

static void console_unit_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	console_unit_process(data);
}

static void console_unit_timeout(struct loop_watch *w, void *data)
{
	console_unit_process(data);
}

static int console_unit_connect(struct console_unit *u)
{
	int r, fd;

	if (u->bus)
		return 0;
	r = sd_bus_open_system(&u->bus);
	if (r < 0)
		return r;
	fd = sd_bus_get_fd(u->bus);
	u->io = fd < 0 ? NULL : loop_add_fd(u->loop, fd, EPOLLIN, console_unit_io, u);
	if (!u->io) {
		console_unit_drop(u);
		return fd < 0 ? fd : -ENOMEM;
	}
	return 0;
}

static int console_unit_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct console_unit_call *call = data;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	char unit[64];

	console_unit_name(call->port, unit, sizeof(unit));
	if (e)
		log_warnx("console: systemd refused to start %s: %s", unit,
			  e->message ? e->message : e->name);
	console_told(call->u->console, call->port, e ? CONSOLE_FAILED : CONSOLE_RUNNING);
	return 0;
}

static int console_unit_start(void *be, unsigned port)
{
	struct console_unit *u = be;
	struct console_unit_call *call = malloc(sizeof(*call));
	sd_bus_slot *slot = NULL;
	char unit[64];
	int r;

	if (!call)
		return -ENOMEM;
	*call = (struct console_unit_call){ .u = u, .port = port };
	console_unit_name(port, unit, sizeof(unit));
	r = console_unit_connect(u);
	if (r >= 0)
		r = sd_bus_call_method_async(u->bus, &slot, "org.freedesktop.systemd1",
					     "/org/freedesktop/systemd1",
					     "org.freedesktop.systemd1.Manager",
					     "StartUnit",
					     console_unit_reply, call, "ss", unit, "replace");
	if (r < 0) {
		free(call);
		return r;
	}
	/* The slot frees call with itself: after the reply, or when the
	 * bus goes. */
	sd_bus_slot_set_destroy_callback(slot, free);
	sd_bus_slot_set_floating(slot, 1);
	sd_bus_slot_unref(slot);
	console_unit_rearm(u);
	return 0;
}

/*
 * A stop is done once the unit is inactive (or failed) and only then does
 * gadgetd unbind and remove the function: Linux 6.1's u_serial oopses
 * (gs_close() on a port that gs_open() did not find) when the tty is
 * opened while its function is being removed, and systemd opens it then,
 * to restart the getty the unbind's hangup killed or to reset the tty
 * after it (seen on the bed, docs/kernel.md). StopUnit's reply comes once
 * the job is queued, so the unit's ActiveState is asked for every
 * CONSOLE_UNIT_POLL_MS, all asynchronously on the loop, until it is
 * inactive or CONSOLE_UNIT_STOP_MS have passed (then the transaction
 * goes on, with a warning).
 */
#define CONSOLE_UNIT_STOP_MS 5000
#define CONSOLE_UNIT_POLL_MS 20

struct console_unit_stop {
	struct console_unit *u;
	unsigned port;
	uint64_t end;
	sd_bus_slot *slot;        /* the call under way */
	struct loop_watch *timer; /* the next ask, or the deadline */
};

static void console_unit_stop_done(struct console_unit_stop *st, bool tell)
{
	struct console_unit *u = st->u;
	unsigned port = st->port, i;

	sd_bus_slot_unref(st->slot);
	loop_watch_remove(st->timer);
	for (i = 0; i < CONSOLE_MAX; i++)
		if (u->stops[i] == st)
			u->stops[i] = NULL;
	free(st);
	if (tell)
		console_unit_told(u, port);
}

static int console_unit_state(sd_bus_message *m, void *data, sd_bus_error *err);

/* Ask for the unit's ActiveState; the reply goes to console_unit_state. */
static void console_unit_ask(struct console_unit_stop *st)
{
	char unit[64], *path = NULL;
	int r;

	st->slot = sd_bus_slot_unref(st->slot);
	console_unit_name(st->port, unit, sizeof(unit));
	r = st->u->bus ? sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path)
		       : -ENOTCONN;
	if (r >= 0)
		r = sd_bus_call_method_async(st->u->bus, &st->slot, "org.freedesktop.systemd1",
					     path, "org.freedesktop.DBus.Properties", "Get",
					     console_unit_state, st, "ss",
					     "org.freedesktop.systemd1.Unit", "ActiveState");
	free(path);
	if (r < 0) {
		log_warnx("console: cannot ask for %s's state: %s", unit, strerror(-r));
		console_unit_stop_done(st, true);
		return;
	}
	loop_timer_rearm(st->timer, st->end > loop_now_ms() ? st->end - loop_now_ms() : 1);
	console_unit_rearm(st->u);
}

static int console_unit_state(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct console_unit_stop *st = data;
	const char *state = NULL;
	uint64_t now = loop_now_ms();

	st->slot = sd_bus_slot_unref(st->slot);
	if (sd_bus_message_is_method_error(m, NULL) ||
	    sd_bus_message_read(m, "v", "s", &state) < 0 || !state ||
	    !strcmp(state, "inactive") || !strcmp(state, "failed")) {
		console_unit_stop_done(st, true);
		return 0;
	}
	/* Still deactivating: ask again soon, or the deadline comes. */
	loop_timer_rearm(st->timer, st->end - now < CONSOLE_UNIT_POLL_MS
					    ? (st->end > now ? st->end - now : 1)
					    : CONSOLE_UNIT_POLL_MS);
	return 0;
}

static int console_unit_stop_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct console_unit_stop *st = data;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	char unit[64];

	if (e) {
		console_unit_name(st->port, unit, sizeof(unit));
		log_warnx("console: cannot stop %s: %s", unit, e->message ? e->message : e->name);
	}
	console_unit_ask(st);
	return 0;
}

/* The timer: time to ask again, or the deadline passed. */
static void console_unit_stop_timer(struct loop_watch *w, void *data)
{
	struct console_unit_stop *st = data;
	char unit[64];

	loop_timer_rearm(w, 0);
	if (loop_now_ms() >= st->end) {
		console_unit_name(st->port, unit, sizeof(unit));
		log_warnx("console: %s not stopped within %u ms", unit, CONSOLE_UNIT_STOP_MS);
		console_unit_stop_done(st, true);
		return;
	}
	if (!st->slot)
		console_unit_ask(st);
}

static void console_unit_stop(void *be, unsigned port)
{
	struct console_unit *u = be;
	struct console_unit_stop *st = calloc(1, sizeof(*st));
	char unit[64];
	unsigned i;
	int r = st ? console_unit_connect(u) : -ENOMEM;

	console_unit_name(port, unit, sizeof(unit));
	for (i = 0; r >= 0 && i < CONSOLE_MAX && u->stops[i]; i++)
		;
	if (r >= 0 && i == CONSOLE_MAX)
		r = -ENOSPC;
	if (r >= 0) {
		*st = (struct console_unit_stop){ .u = u, .port = port,
						  .end = loop_now_ms() + CONSOLE_UNIT_STOP_MS };
		st->timer = loop_add_timer(u->loop, CONSOLE_UNIT_STOP_MS,
					   console_unit_stop_timer, st);
		r = st->timer ? 0 : -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_call_method_async(u->bus, &st->slot, "org.freedesktop.systemd1",
					     "/org/freedesktop/systemd1",
					     "org.freedesktop.systemd1.Manager", "StopUnit",
					     console_unit_stop_reply, st, "ss", unit, "replace");
	if (r < 0) {
		log_warnx("console: cannot stop %s: %s", unit, strerror(-r));
		if (st)
			loop_watch_remove(st->timer);
		free(st);
		console_unit_told(u, port);
		return;
	}
	u->stops[i] = st;
	console_unit_rearm(u);
}

static void console_unit_free(void *be)
{
	struct console_unit *u = be;

	/* The stops console_free() asked for leave before the bus; no one
	 * waits for them any more. */
	console_unit_stops_end(u, false);
	console_unit_drop(u);
	loop_watch_remove(u->timer);
	free(u);
}

static const struct console_ops console_unit_ops = {
	.name = "systemd",
	.start = console_unit_start,
	.stop = console_unit_stop,
	.free = console_unit_free,
};

struct console *console_unit_new(struct loop *l)
{
	struct console_unit *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->loop = l;
	u->timer = loop_add_timer(l, 0, console_unit_timeout, u);
	u->console = u->timer ? console_new(&console_unit_ops, u) : NULL;
	if (!u->console) {
		loop_watch_remove(u->timer);
		free(u);
		return NULL;
	}
	return u->console;
}
