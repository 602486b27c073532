/* dbus: the connection to the system bus and the methods (see dbus.h). */
#include "dbus_int.h"
#include "config.h"
#include "ctl.h"
#include "dispatch.h"
#include "event.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dbus_connect(struct dbus *d);
static void dbus_drop(struct dbus *d);

static const char *dbus_error_name(int r)
{
	switch (-r) {
	case EINVAL:
		return SD_BUS_ERROR_INVALID_ARGS;
	case ENOENT:
		return DBUS_ERROR_NOT_FOUND;
	case EACCES:
	case EPERM:
		return SD_BUS_ERROR_ACCESS_DENIED;
	case EBUSY:
		return DBUS_ERROR_BUSY;
	case ENOMEM:
		return SD_BUS_ERROR_NO_MEMORY;
	}
	return DBUS_ERROR_FAILED;
}

static void dbus_req_free(struct dbus_req *q)
{
	struct dbus_req **pp;
	int i;

	for (pp = &q->d->reqs; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			q->d->n_reqs--;
			break;
		}
	if (q->submitted)
		dispatch_cancel(q->d->dispatch, q);
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->m);
	for (i = 0; i < q->argc; i++)
		free(q->argv[i]);
	free(q);
}

static int dbus_req_reply(struct dbus_req *q, int r, const char *msg)
{
	if (r >= 0)
		return sd_bus_reply_method_return(q->m, "s", msg);
	return sd_bus_reply_method_errorf(q->m, dbus_error_name(r), "%s", msg);
}

static int dbus_req_reply_ascii(struct dbus_req *q, int r, const char *msg)
{
	char *copy = strdup(msg), *p;
	int rr;

	if (!copy)
		return -ENOMEM;
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	rr = dbus_req_reply(q, r, copy);
	free(copy);
	return rr;
}

/* The answer to the caller, whatever the outcome; then the properties
 * tell what the call changed. */
static void dbus_req_done(int r, const char *msg, void *data)
{
	struct dbus_req *q = data;
	struct dbus *d = q->d;
	int rr;

	q->submitted = false;
	if (!msg[0] && r < 0)
		msg = strerror(-r);
	rr = dbus_req_reply(q, r, msg);
	/* D-Bus strings are UTF-8, and a message may quote a file or a
	 * plugin that is not: the caller gets it with such bytes as '?'. */
	if (rr == -EINVAL)
		rr = dbus_req_reply_ascii(q, r, msg);
	if (rr < 0)
		log_debug("dbus: cannot answer a call: %s", strerror(-rr));
	dbus_req_free(q);
	dbus_props_refresh(d);
	dbus_rearm(d);
}

/* The call is authorized (r == 0) or not (dbus_auth_done_fn): carry it
 * out, or answer it. */
static void dbus_req_authorized(struct dbus_req *q, int r, const char *why)
{
	char msg[4096] = "";

	q->slot = sd_bus_slot_unref(q->slot);
	if (r < 0) {
		dbus_req_done(r, why, q);
		return;
	}
	r = dispatch_submit(q->d->dispatch, &q->peer, &q->req, msg, sizeof(msg), NULL,
			    dbus_req_done, q);
	if (r == -EINPROGRESS) {
		q->submitted = true;
		return;
	}
	dbus_req_done(r, msg, q);
}

/* One of the request's strings, kept until it is freed. */
static int dbus_req_arg(struct dbus_req *q, const char *s)
{
	q->argv[q->argc] = strdup(s);
	if (!q->argv[q->argc])
		return -ENOMEM;
	q->argc++;
	return 0;
}

static struct dbus_req *dbus_req_new(struct dbus *d, sd_bus_message *m,
				     enum request_op op)
{
	struct dbus_req *q;

	if (d->n_reqs >= DBUS_MAX_REQS) {
		errno = EBUSY;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->d = d;
	q->m = sd_bus_message_ref(m);
	q->req.op = op;
	q->next = d->reqs;
	d->reqs = q;
	d->n_reqs++;
	return q;
}

/* No request made: too many in progress, or no memory. */
static int dbus_req_none(sd_bus_error *err)
{
	if (errno == EBUSY)
		return sd_bus_error_setf(err, DBUS_ERROR_BUSY, "gadgetd is serving %d "
					 "calls already; try again", DBUS_MAX_REQS);
	return -ENOMEM;
}

/* Asked, now authorize it; the reply comes later (1: sd-bus sends none). */
static int dbus_req_begin(struct dbus_req *q, sd_bus_error *err)
{
	int r = dbus_auth_start(q, dbus_req_authorized);

	if (r < 0) {
		dbus_req_free(q);
		return sd_bus_error_set_errnof(err, -r, "cannot authorize the call: %s",
					       strerror(-r));
	}
	return 1;
}

static int dbus_check_name(const char *what, const char *s, size_t max,
			   sd_bus_error *err)
{
	if (!s[0] && strcmp(what, "set"))
		return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS, "empty %s", what);
	if (strlen(s) >= max)
		return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
					 "%s name longer than %zu bytes", what, max - 1);
	return 0;
}

static int dbus_method_switch(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct dbus_req *q;
	const char *set;
	int r = sd_bus_message_read(m, "s", &set);

	if (r < 0)
		return r;
	if (!set[0])
		return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
					 "Switch needs a set (SwitchProfile with \"\" "
					 "takes a profile's default)");
	r = dbus_check_name("set", set, 256, err);
	if (r < 0)
		return r;
	q = dbus_req_new(data, m, REQUEST_SWITCH);
	if (!q)
		return dbus_req_none(err);
	if (dbus_req_arg(q, set) < 0) {
		dbus_req_free(q);
		return -ENOMEM;
	}
	q->req.set = q->argv[0];
	return dbus_req_begin(q, err);
}

static int dbus_method_switch_profile(sd_bus_message *m, void *data,
				      sd_bus_error *err)
{
	const char *profile, *set;
	struct dbus_req *q;
	int r = sd_bus_message_read(m, "ss", &profile, &set);

	if (r < 0)
		return r;
	if (dbus_check_name("profile", profile, PROFILE_NAME_MAX, err) < 0 ||
	    dbus_check_name("set", set, 256, err) < 0)
		return -EINVAL;
	q = dbus_req_new(data, m, REQUEST_SWITCH);
	if (!q)
		return dbus_req_none(err);
	if (dbus_req_arg(q, profile) < 0 || dbus_req_arg(q, set) < 0) {
		dbus_req_free(q);
		return -ENOMEM;
	}
	q->req.profile = q->argv[0];
	/* "": the profile's default set. */
	q->req.set = q->argv[1][0] ? q->argv[1] : NULL;
	return dbus_req_begin(q, err);
}

static int dbus_method_plain(sd_bus_message *m, void *data, sd_bus_error *err,
			     enum request_op op)
{
	struct dbus_req *q = dbus_req_new(data, m, op);

	if (!q)
		return dbus_req_none(err);
	return dbus_req_begin(q, err);
}

static int dbus_method_reload(sd_bus_message *m, void *data, sd_bus_error *err)
{
	return dbus_method_plain(m, data, err, REQUEST_RELOAD);
}

static int dbus_method_off(sd_bus_message *m, void *data, sd_bus_error *err)
{
	return dbus_method_plain(m, data, err, REQUEST_OFF);
}

static int dbus_method_wakeup(sd_bus_message *m, void *data, sd_bus_error *err)
{
	return dbus_method_plain(m, data, err, REQUEST_WAKEUP);
}

static int dbus_method_lock_set(sd_bus_message *m, void *data, sd_bus_error *err,
				bool lock)
{
	struct dbus_req *q = dbus_req_new(data, m, REQUEST_LOCK);

	if (!q)
		return dbus_req_none(err);
	q->req.lock = lock;
	return dbus_req_begin(q, err);
}

static int dbus_method_lock(sd_bus_message *m, void *data, sd_bus_error *err)
{
	return dbus_method_lock_set(m, data, err, true);
}

static int dbus_method_unlock(sd_bus_message *m, void *data, sd_bus_error *err)
{
	return dbus_method_lock_set(m, data, err, false);
}

/* The arguments, read one by one: a huge array is refused at the first
 * string past the bound, before anything is kept. */
static int dbus_command_args(struct dbus_req *q, sd_bus_message *m,
			     sd_bus_error *err)
{
	size_t bytes = 0;
	const char *s;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "s");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(m, "s", &s)) > 0) {
		bytes += strlen(s) + 1;
		if (q->argc >= DBUS_MAX_ARGS || bytes > DBUS_MAX_ARG_BYTES)
			return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
						 "a command takes at most %d arguments of "
						 "%d bytes together", DBUS_MAX_ARGS - 1,
						 DBUS_MAX_ARG_BYTES);
		if (dbus_req_arg(q, s) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

static int dbus_method_command(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct dbus_req *q;
	const char *fn;
	int r = sd_bus_message_read(m, "s", &fn);

	if (r < 0)
		return r;
	r = dbus_check_name("function", fn, PROFILE_NAME_MAX, err);
	if (r < 0)
		return r;
	q = dbus_req_new(data, m, REQUEST_COMMAND);
	if (!q)
		return dbus_req_none(err);
	r = dbus_req_arg(q, fn);
	if (r >= 0)
		r = dbus_command_args(q, m, err);
	if (r >= 0 && q->argc < 2)
		r = sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
				      "Command needs the command's name in args");
	if (r < 0) {
		dbus_req_free(q);
		return r;
	}
	q->req.function = q->argv[0];
	q->req.command = q->argv[1];
	q->req.argc = q->argc;
	q->req.argv = q->argv;
	return dbus_req_begin(q, err);
}

static void dbus_list_entry(const struct config_profile_entry *e, void *data)
{
	sd_bus_message *reply = data;

	if (e->name && e->regular)
		sd_bus_message_append(reply, "s", e->name);
}

static int dbus_method_list_profiles(sd_bus_message *m, void *data,
				     sd_bus_error *err)
{
	struct dbus *d = data;
	sd_bus_message *reply = NULL;
	int r = sd_bus_message_new_method_return(m, &reply);

	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "s");
	if (r >= 0)
		r = config_profile_scan(d->cfg, dbus_list_entry, reply);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	if (r < 0)
		return sd_bus_error_set_errnof(err, -r, "cannot list the profiles: %s",
					       strerror(-r));
	return 1;
}

static void dbus_list_set(const char *set, bool is_default, bool active, void *data)
{
	sd_bus_message_append(data, "s", set);
}

static int dbus_method_list_sets(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct dbus *d = data;
	sd_bus_message *reply = NULL;
	int r = sd_bus_message_new_method_return(m, &reply);

	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "s");
	if (r >= 0) {
		gadget_list_sets(d->gadget, dbus_list_set, reply);
		r = sd_bus_message_close_container(reply);
	}
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 1;
}

/* The properties are the snapshot's fields (dbus_props.c). */
#define DBUS_PROP(name, sig, kind, field) \
	SD_BUS_PROPERTY(name, sig, dbus_props_get_##kind, \
			offsetof(struct dbus, snap.field), \
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

static const sd_bus_vtable dbus_manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_NAMES("Switch", "s", SD_BUS_PARAM(set), "s",
				 SD_BUS_PARAM(message), dbus_method_switch,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("SwitchProfile", "ss", SD_BUS_PARAM(profile)
				 SD_BUS_PARAM(set), "s", SD_BUS_PARAM(message),
				 dbus_method_switch_profile, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Reload", "", , "s", SD_BUS_PARAM(message),
				 dbus_method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Off", "", , "s", SD_BUS_PARAM(message),
				 dbus_method_off, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Wakeup", "", , "s", SD_BUS_PARAM(message),
				 dbus_method_wakeup, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Lock", "", , "s", SD_BUS_PARAM(message),
				 dbus_method_lock, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Unlock", "", , "s", SD_BUS_PARAM(message),
				 dbus_method_unlock, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("ListProfiles", "", , "as", SD_BUS_PARAM(profiles),
				 dbus_method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("ListSets", "", , "as", SD_BUS_PARAM(sets),
				 dbus_method_list_sets, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Command", "sas", SD_BUS_PARAM(function)
				 SD_BUS_PARAM(args), "s", SD_BUS_PARAM(reply),
				 dbus_method_command, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_NAMES("HostWaiting", "s", SD_BUS_PARAM(set), 0),
	DBUS_PROP("Profile", "s", str, profile),
	DBUS_PROP("Set", "s", str, set),
	DBUS_PROP("State", "s", str, state),
	DBUS_PROP("LastError", "s", str, last_error),
	DBUS_PROP("Switches", "u", u32, switches),
	DBUS_PROP("UDC", "s", str, udc),
	DBUS_PROP("UDCState", "s", str, udc_state),
	DBUS_PROP("Speed", "s", str, speed),
	DBUS_PROP("Bus", "s", str, bus),
	DBUS_PROP("RemoteWakeup", "b", bool, remote_wakeup),
	DBUS_PROP("Locked", "b", bool, locked),
	SD_BUS_PROPERTY("Functions", "ao", dbus_props_get_functions,
			offsetof(struct dbus, snap), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("UDCs", "ao", dbus_props_get_udcs,
			offsetof(struct dbus, snap), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_VTABLE_END
};

/* sd-bus wants its fd watched for what it says, and to be called back
 * at the time it gives (an absolute CLOCK_MONOTONIC time in µs). */
void dbus_rearm(struct dbus *d)
{
	uint64_t usec, now;
	uint32_t ev = 0;
	int e;

	if (!d->bus || !d->io)
		return;
	e = sd_bus_get_events(d->bus);
	if (e < 0) {
		dbus_drop(d);
		return;
	}
	if (e & POLLIN)
		ev |= EPOLLIN;
	if (e & POLLOUT)
		ev |= EPOLLOUT;
	loop_watch_set_events(d->io, ev);
	if (sd_bus_get_timeout(d->bus, &usec) < 0 || usec == UINT64_MAX) {
		loop_timer_rearm(d->timer, 0);
		return;
	}
	now = loop_now_ms() * 1000;
	loop_timer_rearm(d->timer, usec > now ? (usec - now + 999) / 1000 : 1);
}

static void dbus_process(struct dbus *d)
{
	int r;

	while (d->bus) {
		r = sd_bus_process(d->bus, NULL);
		if (r < 0) {
			log_warnx("dbus: lost the system bus (%s); trying again every "
				  "%u s", strerror(-r), d->retry_ms / 1000);
			/* The tries until it is back say nothing more. */
			d->absent_logged = true;
			dbus_drop(d);
			return;
		}
		if (r == 0)
			break;
	}
	dbus_rearm(d);
}

static void dbus_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	dbus_process(data);
}

static void dbus_timeout(struct loop_watch *w, void *data)
{
	dbus_process(data);
}

static void dbus_retry(struct loop_watch *w, void *data)
{
	dbus_connect(data);
}

/* Every caller waiting gets an answer, if the bus can still carry it. */
static void dbus_drop(struct dbus *d)
{
	while (d->reqs) {
		if (d->bus)
			sd_bus_reply_method_errorf(d->reqs->m, DBUS_ERROR_FAILED,
						   "gadgetd is leaving the bus");
		dbus_req_free(d->reqs);
	}
	if (d->io)
		loop_watch_release(d->io);
	d->io = NULL;
	loop_timer_rearm(d->timer, 0);
	if (d->bus) {
		sd_bus_close(d->bus);
		d->bus = sd_bus_unref(d->bus);
	}
	d->named = false;
	loop_timer_rearm(d->retry, d->retry_ms);
}

static int dbus_named(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);
	struct dbus *d = data;

	if (e) {
		/* Not ours to have: gadgetd goes on without the bus, and the
		 * next try logs nothing until it works again. */
		log_warnx("dbus: cannot own %s on the system bus: %s (is "
			  "/usr/share/dbus-1/system.d/%s.conf installed?); D-Bus API "
			  "off", DBUS_NAME, e->message ? e->message : e->name, DBUS_NAME);
		d->absent_logged = true;
		dbus_drop(d);
		return 0;
	}
	d->named = true;
	d->absent_logged = false;
	log_info("dbus: on the system bus as %s", DBUS_NAME);
	return 0;
}

static int dbus_attach(struct dbus *d)
{
	int r, fd;

	r = sd_bus_add_object_vtable(d->bus, NULL, DBUS_PATH, DBUS_MANAGER_IFACE,
				     dbus_manager_vtable, d);
	if (r >= 0)
		r = dbus_props_add(d);
	if (r >= 0)
		r = sd_bus_request_name_async(d->bus, NULL, DBUS_NAME, 0, dbus_named, d);
	if (r < 0)
		return r;
	fd = sd_bus_get_fd(d->bus);
	if (fd < 0)
		return fd;
	d->io = loop_add_fd(d->loop, fd, EPOLLIN, dbus_io, d);
	return d->io ? 0 : -ENOMEM;
}

static void dbus_connect(struct dbus *d)
{
	int r = sd_bus_open_system(&d->bus);

	if (r >= 0)
		r = dbus_attach(d);
	if (r < 0) {
		if (!d->absent_logged)
			log_info("dbus: no system bus (%s); D-Bus API off, trying again "
				 "every %u s", strerror(-r), d->retry_ms / 1000);
		d->absent_logged = true;
		dbus_drop(d);
		return;
	}
	dbus_props_refresh(d);
	dbus_rearm(d);
}

static void dbus_on_event(const struct event *ev, void *data)
{
	struct dbus *d = data;
	int r;

	if (ev->kind == EVENT_ASK && d->bus) {
		r = sd_bus_emit_signal(d->bus, DBUS_PATH, DBUS_MANAGER_IFACE,
				       "HostWaiting", "s", ev->detail);
		if (r < 0)
			log_warnx("dbus: cannot emit HostWaiting: %s", strerror(-r));
	}
	dbus_props_refresh(d);
	dbus_rearm(d);
}

static char *dbus_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct dbus *dbus_new(struct loop *l, const struct config *cfg,
		      const struct access_policy *policy, struct gadget *g,
		      struct dispatch *dispatch)
{
	struct dbus *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->loop = l;
	d->cfg = cfg;
	d->retry_ms = DBUS_RETRY_MS;
	d->denied_log = (struct log_burst)LOG_BURST_INIT("lines about denied D-Bus calls",
							 1, DBUS_LOG_S);
	d->gadget = g;
	d->dispatch = dispatch;
	d->policy = *policy;
	d->policy.group = dbus_strdup(policy->group);
	d->policy.admin_group = dbus_strdup(policy->admin_group);
	d->timer = loop_add_timer(l, 0, dbus_timeout, d);
	d->retry = loop_add_timer(l, 0, dbus_retry, d);
	d->sub = event_subscribe(dbus_on_event, d);
	if (!d->timer || !d->retry || !d->sub ||
	    (policy->group && !d->policy.group) ||
	    (policy->admin_group && !d->policy.admin_group)) {
		dbus_free(d);
		return NULL;
	}
	dbus_connect(d);
	return d;
}

void dbus_set_retry_ms(struct dbus *d, unsigned ms)
{
	d->retry_ms = ms;
	if (!d->bus)
		loop_timer_rearm(d->retry, ms);
}

void dbus_free(struct dbus *d)
{
	if (!d)
		return;
	dbus_drop(d);
	if (d->sub)
		event_unsubscribe(d->sub);
	loop_watch_remove(d->timer);
	loop_watch_remove(d->retry);
	free((char *)d->policy.group);
	free((char *)d->policy.admin_group);
	free(d);
}
