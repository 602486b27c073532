/*
 * console_unit: serial-getty@ttyGSN.service through systemd's D-Bus API
 * (console_unit.h).
 */
#include "console_unit.h"
#include "console.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

struct console_unit {
	struct loop *loop;
	struct console *console;
	sd_bus *bus;
	struct loop_watch *io, *timer;
};

/* What a start's reply is about. */
struct console_unit_call {
	struct console_unit *u;
	unsigned port;
};

static void console_unit_name(unsigned port, char *buf, size_t size)
{
	snprintf(buf, size, "serial-getty@ttyGS%u.service", port);
}

static void console_unit_drop(struct console_unit *u)
{
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

/* The unit's ActiveState is inactive or failed: its getty and systemd's
 * own reset of the tty after it are done. 1, 0, or -errno. */
static int console_unit_gone(struct console_unit *u, const char *unit)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	char *path = NULL, *state = NULL;
	int r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path);

	if (r >= 0)
		r = sd_bus_get_property_string(u->bus, "org.freedesktop.systemd1", path,
					       "org.freedesktop.systemd1.Unit",
					       "ActiveState", &err, &state);
	if (r >= 0)
		r = !strcmp(state, "inactive") || !strcmp(state, "failed");
	sd_bus_error_free(&err);
	free(state);
	free(path);
	return r;
}

/*
 * Stopped, and waited for, before gadgetd goes on to unbind and remove
 * the function: Linux 6.1's u_serial oopses (gs_close() on a port that
 * gs_open() did not find) when the tty is opened while its function is
 * being removed, and systemd opens it then, to restart the getty the
 * unbind's hangup killed or to reset the tty after it (seen on the bed,
 * docs/kernel.md). This one call blocks gadgetd's loop, for at most
 * CONSOLE_UNIT_STOP_MS, where an asynchronous stop would need the
 * transaction to wait for it as it waits for its workers.
 */
#define CONSOLE_UNIT_STOP_MS 5000

static void console_unit_stop(void *be, unsigned port)
{
	struct console_unit *u = be;
	sd_bus_error err = SD_BUS_ERROR_NULL;
	uint64_t end = loop_now_ms() + CONSOLE_UNIT_STOP_MS;
	char unit[64];
	int r;

	console_unit_name(port, unit, sizeof(unit));
	r = console_unit_connect(u);
	if (r >= 0)
		r = sd_bus_call_method(u->bus, "org.freedesktop.systemd1",
				       "/org/freedesktop/systemd1",
				       "org.freedesktop.systemd1.Manager", "StopUnit", &err,
				       NULL, "ss", unit, "replace");
	while (r >= 0 && (r = console_unit_gone(u, unit)) == 0 && loop_now_ms() < end)
		usleep(20000);
	if (r < 0)
		log_warnx("console: cannot stop %s: %s", unit,
			  err.message ? err.message : strerror(-r));
	else if (r == 0)
		log_warnx("console: %s not stopped within %u ms", unit, CONSOLE_UNIT_STOP_MS);
	sd_bus_error_free(&err);
	console_unit_rearm(u);
}

static void console_unit_free(void *be)
{
	struct console_unit *u = be;

	/* The stops console_free() asked for leave before the bus. */
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
