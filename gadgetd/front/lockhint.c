/*
 * lockhint: the lock follows logind's LockedHint of seat0's active
 * session (lockhint.h).
 */
#include "lockhint.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-bus.h>

#define LOCKHINT_RETRY_MS 10000
#define LOCKHINT_LOGIND "org.freedesktop.login1"
#define LOCKHINT_SEAT "/org/freedesktop/login1/seat/seat0"

struct lockhint {
	struct loop *loop;
	struct gadget *g;
	sd_bus *bus;
	struct loop_watch *io, *timer, *retry;
	sd_bus_slot *name_match, *seat_match, *session_match;
	sd_bus_slot *seat_call, *session_call; /* the Get under way */
	sd_bus_slot *class_call; /* the session's Class, asked first */
	char *session;  /* the active session's object path, or NULL */
	bool greeter;   /* it is a display manager's (class greeter) */
	int applied;    /* the last hint applied: -1 none, 0 or 1 */
	bool said_absent, said_nobus;
};

static void lockhint_drop(struct lockhint *h);

static void lockhint_rearm(struct lockhint *h)
{
	uint64_t usec, now;
	uint32_t ev = 0;
	int e;

	if (!h->bus)
		return;
	e = sd_bus_get_events(h->bus);
	if (e < 0) {
		lockhint_drop(h);
		return;
	}
	if (e & POLLIN)
		ev |= EPOLLIN;
	if (e & POLLOUT)
		ev |= EPOLLOUT;
	loop_watch_set_events(h->io, ev);
	if (sd_bus_get_timeout(h->bus, &usec) < 0 || usec == UINT64_MAX) {
		loop_timer_rearm(h->timer, 0);
		return;
	}
	now = loop_now_ms() * 1000;
	loop_timer_rearm(h->timer, usec > now ? (usec - now + 999) / 1000 : 1);
}

/* The gadget's lock, through the one path every front end takes, when
 * what logind says differs from what was last applied: a manual lock or
 * unlock in between stands until the hint changes. */
static void lockhint_apply(struct lockhint *h, bool locked, const char *why)
{
	char msg[512];

	if (h->applied == (int)locked)
		return;
	h->applied = locked;
	log_info("lock_follow: %s: %s", why, locked ? "locking" : "unlocking");
	if (gadget_lock(h->g, locked, msg, sizeof(msg)) < 0)
		log_warnx("lock_follow: %s", msg);
}

static void lockhint_forget_session(struct lockhint *h)
{
	h->session_match = sd_bus_slot_unref(h->session_match);
	h->session_call = sd_bus_slot_unref(h->session_call);
	h->class_call = sd_bus_slot_unref(h->class_call);
	free(h->session);
	h->session = NULL;
	h->greeter = false;
}

/* A Get of logind's property iface.name on path, without starting
 * logind: one that is not on the bus is waited for (NameOwnerChanged). */
static int lockhint_get(struct lockhint *h, sd_bus_slot **slot, const char *path,
			const char *iface, const char *name, sd_bus_message_handler_t fn)
{
	sd_bus_message *m = NULL;
	int r;

	*slot = sd_bus_slot_unref(*slot);
	r = sd_bus_message_new_method_call(h->bus, &m, LOCKHINT_LOGIND, path,
					   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", iface, name);
	if (r >= 0)
		r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0)
		r = sd_bus_call_async(h->bus, slot, m, fn, h, 0);
	sd_bus_message_unref(m);
	if (r < 0)
		log_warnx("lock_follow: cannot ask logind for %s: %s", name, strerror(-r));
	return r;
}

static int lockhint_hint_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	int hint = 0;

	h->session_call = sd_bus_slot_unref(h->session_call);
	if (h->greeter)
		return 0;
	if (e) {
		/* The session went: the seat's ActiveSession changes next. */
		log_warnx("lock_follow: %s's LockedHint: %s", h->session,
			  e->message ? e->message : e->name);
		return 0;
	}
	if (sd_bus_message_read(m, "v", "b", &hint) < 0) {
		log_warnx("lock_follow: %s's LockedHint is not a boolean", h->session);
		return 0;
	}
	lockhint_apply(h, hint, "the active session's LockedHint");
	return 0;
}

static int lockhint_session_changed(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;

	/* A greeter's hint is not followed; before its Class is known the
	 * Class reply asks for the hint. */
	if (h->greeter || h->class_call)
		return 0;
	/* Asked again rather than read from the signal: a value that comes
	 * back equal to the one applied changes nothing. */
	if (h->session)
		lockhint_get(h, &h->session_call, h->session, "org.freedesktop.login1.Session",
			     "LockedHint", lockhint_hint_reply);
	lockhint_rearm(h);
	return 0;
}

/* A greeter's session (a login screen) counts as no session: locked,
 * whatever its hint; another session's LockedHint is asked next. */
static int lockhint_class_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;
	const char *cls = NULL;

	h->class_call = sd_bus_slot_unref(h->class_call);
	if (!sd_bus_message_is_method_error(m, NULL) &&
	    sd_bus_message_read(m, "v", "s", &cls) >= 0 && cls && !strcmp(cls, "greeter")) {
		h->greeter = true;
		lockhint_apply(h, true, "seat0's active session is a greeter's");
		return 0;
	}
	lockhint_session_changed(NULL, h, NULL);
	return 0;
}

/* seat0's active session is path ("/" or NULL: none). */
static void lockhint_set_session(struct lockhint *h, const char *path)
{
	char *match = NULL;
	int r;

	if (path && !strcmp(path, "/"))
		path = NULL;
	if (path && h->session && !strcmp(path, h->session))
		return;
	lockhint_forget_session(h);
	/* Another session: its hint is applied, whatever came before. */
	h->applied = -1;
	if (!path) {
		lockhint_apply(h, true, "no active session on seat0");
		return;
	}
	h->session = strdup(path);
	if (!h->session || asprintf(&match, "type='signal',sender='" LOCKHINT_LOGIND "',"
				    "path='%s',interface='org.freedesktop.DBus.Properties',"
				    "member='PropertiesChanged',arg0='org.freedesktop.login1.Session'",
				    path) < 0) {
		log_warnx("lock_follow: out of memory");
		return;
	}
	r = sd_bus_add_match_async(h->bus, &h->session_match, match,
				   lockhint_session_changed, NULL, h);
	free(match);
	if (r < 0)
		log_warnx("lock_follow: cannot follow %s: %s", path, strerror(-r));
	log_info("lock_follow: seat0's active session is %s", path);
	lockhint_get(h, &h->class_call, path, "org.freedesktop.login1.Session", "Class",
		     lockhint_class_reply);
}

static int lockhint_seat_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	const char *id = NULL, *path = NULL;

	h->seat_call = sd_bus_slot_unref(h->seat_call);
	if (e && (sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.ServiceUnknown") ||
		  sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.NameHasNoOwner"))) {
		if (!h->said_absent)
			log_warnx("lock_follow: logind (" LOCKHINT_LOGIND ") is not on the "
				  "system bus; the lock is left as it is until it is");
		h->said_absent = true;
		return 0;
	}
	if (!e && sd_bus_message_read(m, "v", "(so)", &id, &path) < 0)
		path = NULL;
	if (e)
		log_warnx("lock_follow: seat0: %s", e->message ? e->message : e->name);
	lockhint_set_session(h, path);
	lockhint_rearm(h);
	return 0;
}

static int lockhint_seat_changed(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;

	lockhint_get(h, &h->seat_call, LOCKHINT_SEAT, "org.freedesktop.login1.Seat",
		     "ActiveSession", lockhint_seat_reply);
	lockhint_rearm(h);
	return 0;
}

static int lockhint_owner_changed(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct lockhint *h = data;
	const char *name, *old, *owner;

	if (sd_bus_message_read(m, "sss", &name, &old, &owner) < 0)
		return 0;
	if (!*owner) {
		log_warnx("lock_follow: logind left the system bus; the lock is left as it is");
		h->said_absent = true;
		return 0;
	}
	log_info("lock_follow: logind is on the system bus");
	h->said_absent = false;
	/* A new logind: its sessions are taken as they are now. */
	lockhint_forget_session(h);
	h->applied = -1;
	return lockhint_seat_changed(m, h, err);
}

static void lockhint_drop(struct lockhint *h)
{
	lockhint_forget_session(h);
	h->name_match = sd_bus_slot_unref(h->name_match);
	h->seat_match = sd_bus_slot_unref(h->seat_match);
	h->seat_call = sd_bus_slot_unref(h->seat_call);
	if (h->io)
		loop_watch_release(h->io);
	h->io = NULL;
	loop_timer_rearm(h->timer, 0);
	if (h->bus) {
		sd_bus_flush(h->bus);
		sd_bus_close(h->bus);
		h->bus = sd_bus_unref(h->bus);
		loop_timer_rearm(h->retry, LOCKHINT_RETRY_MS);
	}
}

static void lockhint_process(struct lockhint *h)
{
	int r;

	while (h->bus) {
		r = sd_bus_process(h->bus, NULL);
		if (r < 0) {
			log_warnx("lock_follow: lost the system bus: %s; trying again "
				  "every %u s", strerror(-r), LOCKHINT_RETRY_MS / 1000);
			lockhint_drop(h);
			return;
		}
		if (r == 0)
			break;
	}
	lockhint_rearm(h);
}

static void lockhint_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	lockhint_process(data);
}

static void lockhint_timeout(struct loop_watch *w, void *data)
{
	lockhint_process(data);
}

static int lockhint_match(struct lockhint *h, sd_bus_slot **slot, const char *match,
			  sd_bus_message_handler_t fn)
{
	return sd_bus_add_match_async(h->bus, slot, match, fn, NULL, h);
}

static int lockhint_connect(struct lockhint *h)
{
	int r, fd;

	r = sd_bus_open_system(&h->bus);
	fd = r < 0 ? r : sd_bus_get_fd(h->bus);
	h->io = fd < 0 ? NULL : loop_add_fd(h->loop, fd, EPOLLIN, lockhint_io, h);
	r = fd < 0 ? fd : h->io ? 0 : -ENOMEM;
	if (r >= 0)
		r = lockhint_match(h, &h->name_match,
				   "type='signal',sender='org.freedesktop.DBus',"
				   "path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
				   "member='NameOwnerChanged',arg0='" LOCKHINT_LOGIND "'",
				   lockhint_owner_changed);
	if (r >= 0)
		r = lockhint_match(h, &h->seat_match,
				   "type='signal',sender='" LOCKHINT_LOGIND "',path='" LOCKHINT_SEAT
				   "',interface='org.freedesktop.DBus.Properties',"
				   "member='PropertiesChanged',arg0='org.freedesktop.login1.Seat'",
				   lockhint_seat_changed);
	if (r >= 0)
		r = lockhint_get(h, &h->seat_call, LOCKHINT_SEAT, "org.freedesktop.login1.Seat",
				 "ActiveSession", lockhint_seat_reply);
	if (r < 0) {
		lockhint_drop(h);
		return r;
	}
	h->said_nobus = false;
	lockhint_rearm(h);
	return 0;
}

static void lockhint_retry(struct loop_watch *w, void *data)
{
	struct lockhint *h = data;
	int r;

	loop_timer_rearm(w, 0);
	if (h->bus)
		return;
	r = lockhint_connect(h);
	if (r < 0) {
		if (!h->said_nobus)
			log_warnx("lock_follow: no system bus (%s); trying again every %u s",
				  strerror(-r), LOCKHINT_RETRY_MS / 1000);
		h->said_nobus = true;
		loop_timer_rearm(w, LOCKHINT_RETRY_MS);
	}
}

struct lockhint *lockhint_new(struct loop *l, struct gadget *g)
{
	struct lockhint *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	*h = (struct lockhint){ .loop = l, .g = g, .applied = -1 };
	h->timer = loop_add_timer(l, 0, lockhint_timeout, h);
	h->retry = h->timer ? loop_add_timer(l, 0, lockhint_retry, h) : NULL;
	if (!h->retry) {
		loop_watch_remove(h->timer);
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	log_info("lock_follow: the lock follows seat0's active session's LockedHint");
	lockhint_retry(h->retry, h);
	return h;
}

void lockhint_free(struct lockhint *h)
{
	if (!h)
		return;
	lockhint_drop(h);
	loop_watch_remove(h->retry);
	loop_watch_remove(h->timer);
	free(h);
}
