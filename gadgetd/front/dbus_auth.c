/*
 * dbus_auth: may the caller do this? (see dbus.h)
 *
 * First the bus daemon says who the caller is (GetConnectionCredentials:
 * uid and groups, as the kernel gave them to the daemon), and access.h's
 * table, the control socket's, judges: root and admin_group may do
 * anything, group what the table lets it do. gadgetd checks group itself
 * rather than shipping a polkit rule because the group is gadgetd.conf's
 * setting: a rule would have to be kept in step with it by hand. What the
 * table refuses is asked of polkit, with the action that mirrors the
 * table's line, so that an active local session, an administrator who
 * authenticates, or a site's own rules.d rule can allow it.
 */
#include "dbus_int.h"
#include "ctl.h"
#include "dispatch.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DBUS_AUTH_POLKIT "org.freedesktop.PolicyKit1"
/* An administrator typing a password gets this long. */
#define DBUS_AUTH_INTERACTIVE_USEC (300ULL * 1000000)

static int dbus_auth_gids(sd_bus_message *m, const struct access_policy *p,
			  struct access_peer *peer)
{
	uint32_t gid;
	int r;

	r = sd_bus_message_enter_container(m, 'v', "au");
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "u");
	while (r >= 0 && (r = sd_bus_message_read(m, "u", &gid)) > 0) {
		if (p->group && gid == p->group_gid)
			peer->in_group = true;
		if (p->admin_group && gid == p->admin_gid)
			peer->in_admin = true;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r;
}

/* The credentials dictionary (a{sv}); -EBADMSG without a uid. */
static int dbus_auth_parse(sd_bus_message *m, const struct access_policy *p,
			   struct access_peer *peer)
{
	bool have_uid = false;
	const char *key;
	uint32_t u;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &key);
		if (r < 0)
			break;
		if (!strcmp(key, "UnixUserID") || !strcmp(key, "ProcessID")) {
			r = sd_bus_message_read(m, "v", "u", &u);
			if (r >= 0 && key[0] == 'U') {
				peer->uid = u;
				have_uid = true;
			} else if (r >= 0) {
				peer->pid = u;
			}
		} else if (!strcmp(key, "UnixGroupIDs")) {
			r = dbus_auth_gids(m, p, peer);
		} else {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	if (r < 0)
		return r;
	return have_uid ? 0 : -EBADMSG;
}

/*
 * The polkit action for q: the one of the table's line that lets group
 * do it (switching among the active profile's sets, a read-only plugin
 * command, one that drives a device the host sees: typing into the
 * host is not a query), else the administrator's for its kind.
 */
static const char *dbus_auth_action(struct dbus_req *q, const struct access_view *view)
{
	struct access_policy p = { .group = "group" };
	struct access_peer member = { .uid = 65534, .in_group = true };
	char why[256];
	bool open = !access_check(&p, &member, &q->req, view, why, sizeof(why));

	switch (q->req.op) {
	case REQUEST_SWITCH:
		return open ? "org.gadgetd1.switch" : "org.gadgetd1.switch-profile";
	case REQUEST_RELOAD:
		return "org.gadgetd1.reload";
	case REQUEST_OFF:
		return "org.gadgetd1.off";
	case REQUEST_WAKEUP:
		return "org.gadgetd1.drive";
	case REQUEST_LOCK:
		return "org.gadgetd1.lock";
	case REQUEST_COMMAND:
		switch (access_command_kind(view->plugin, q->req.command)) {
		case ACCESS_COMMAND_READ:
			return "org.gadgetd1.query";
		case ACCESS_COMMAND_DRIVE:
			return "org.gadgetd1.drive";
		case ACCESS_COMMAND_ADMIN:
			break;
		}
		return "org.gadgetd1.command";
	default:
		break;
	}
	return "org.gadgetd1.command";
}

/* What a rules.d rule may look at (action.lookup()). */
static int dbus_auth_details(struct dbus_req *q, sd_bus_message *m)
{
	int r = sd_bus_message_open_container(m, 'a', "{ss}");

	if (r < 0)
		return r;
	if (q->req.op == REQUEST_COMMAND)
		r = sd_bus_message_append(m, "{ss}{ss}", "function", q->req.function,
					  "command", q->req.command);
	else if (q->req.op == REQUEST_SWITCH && q->req.profile)
		r = sd_bus_message_append(m, "{ss}{ss}", "profile", q->req.profile, "set",
					  q->req.set ? q->req.set : "");
	else if (q->req.op == REQUEST_SWITCH)
		r = sd_bus_message_append(m, "{ss}", "set", q->req.set);
	if (r < 0)
		return r;
	return sd_bus_message_close_container(m);
}

static void dbus_auth_deny(struct dbus_req *q, const char *how)
{
	char why[sizeof(q->why) + 256];

	snprintf(why, sizeof(why), "%s; %s", q->why, how);
	if (log_burst_ok(&q->d->denied_log))
		log_info("dbus: refused %s: %s", sd_bus_message_get_sender(q->m), why);
	q->auth_done(q, -EACCES, why);
}

static int dbus_auth_polkit_done(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);
	struct dbus_req *q = data;
	int yes = 0, challenge = 0, r;
	char how[256];

	if (e) {
		snprintf(how, sizeof(how), "polkit could not be asked (%s)",
			 e->message ? e->message : e->name);
		dbus_auth_deny(q, how);
		return 0;
	}
	r = sd_bus_message_enter_container(m, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(m, "bb", &yes, &challenge);
	if (r >= 0 && yes) {
		access_grant(&q->peer, strcmp(q->action, "org.gadgetd1.switch") ?
				    ACCESS_ADMIN : ACCESS_GROUP);
		q->auth_done(q, 0, "");
		return 0;
	}
	snprintf(how, sizeof(how), "polkit did not authorize %s%s", q->action,
		 r < 0 ? " (a malformed answer)" : challenge ?
		 " without authentication (call with interactive authorization)" : "");
	dbus_auth_deny(q, how);
	return 0;
}

static int dbus_auth_polkit(struct dbus_req *q)
{
	sd_bus *bus = sd_bus_message_get_bus(q->m);
	int interactive = sd_bus_message_get_allow_interactive_authorization(q->m) > 0;
	sd_bus_message *call = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &call, DBUS_AUTH_POLKIT,
					   "/org/freedesktop/PolicyKit1/Authority",
					   "org.freedesktop.PolicyKit1.Authority",
					   "CheckAuthorization");
	if (r >= 0)
		r = sd_bus_message_append(call, "(sa{sv})s", "system-bus-name", 1, "name",
					  "s", sd_bus_message_get_sender(q->m), q->action);
	if (r >= 0)
		r = dbus_auth_details(q, call);
	if (r >= 0)
		r = sd_bus_message_append(call, "us", (uint32_t)interactive, "");
	if (r >= 0)
		r = sd_bus_call_async(bus, &q->slot, call, dbus_auth_polkit_done, q,
				      interactive ? DBUS_AUTH_INTERACTIVE_USEC : 0);
	sd_bus_message_unref(call);
	return r;
}

/*
 * q's caller is uid: true (and q answered Busy) when that user has
 * DBUS_MAX_REQS_PER_UID calls in progress already, root excepted.
 */
static bool dbus_auth_over_share(struct dbus_req *q, uid_t uid)
{
	const struct dbus_req *o;
	unsigned n = 0;

	q->identified = true;
	if (uid == 0)
		return false;
	for (o = q->d->reqs; o; o = o->next)
		if (o != q && o->identified && o->peer.uid == uid)
			n++;
	if (n < DBUS_MAX_REQS_PER_UID)
		return false;
	snprintf(q->why, sizeof(q->why), "uid %u has %u calls in progress already "
		 "(at most %u a user); try again", (unsigned)uid, n,
		 DBUS_MAX_REQS_PER_UID);
	if (log_burst_ok(&q->d->denied_log))
		log_info("dbus: refused %s: %s", sd_bus_message_get_sender(q->m), q->why);
	q->auth_done(q, -EBUSY, q->why);
	return true;
}

static int dbus_auth_creds_done(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct dbus_req *q = data;
	struct dbus *d = q->d;
	struct access_view view;
	char how[128];
	int r;

	q->slot = sd_bus_slot_unref(q->slot);
	r = sd_bus_message_get_error(m) ? -ESRCH : dbus_auth_parse(m, &d->policy, &q->peer);
	if (r < 0) {
		snprintf(q->why, sizeof(q->why), "permission denied: the bus cannot say "
			 "who the caller is");
		q->auth_done(q, -EACCES, q->why);
		return 0;
	}
	if (dbus_auth_over_share(q, q->peer.uid))
		return 0;
	r = dispatch_check(d->dispatch, &q->peer, &q->req, q->why, sizeof(q->why));
	if (!r) {
		q->auth_done(q, 0, "");
		return 0;
	}
	dispatch_view(d->dispatch, &q->req, &view);
	q->action = dbus_auth_action(q, &view);
	r = dbus_auth_polkit(q);
	if (r < 0) {
		snprintf(how, sizeof(how), "polkit could not be asked (%s)", strerror(-r));
		dbus_auth_deny(q, how);
	}
	return 0;
}

int dbus_auth_start(struct dbus_req *q, dbus_auth_done_fn done)
{
	sd_bus *bus = sd_bus_message_get_bus(q->m);
	const char *sender = sd_bus_message_get_sender(q->m);

	if (!sender)
		return -EBADMSG;
	q->auth_done = done;
	return sd_bus_call_method_async(bus, &q->slot, "org.freedesktop.DBus",
					"/org/freedesktop/DBus", "org.freedesktop.DBus",
					"GetConnectionCredentials", dbus_auth_creds_done, q,
					"s", sender);
}
