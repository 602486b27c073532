/* dispatch: run, queue or busy, for every front end (see dispatch.h). */
#include "dispatch.h"
#include "access.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "profile.h"
#include "request.h"
#include "storage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A client's switch, reload or off waiting for its turn: its own copy of
 * the request (the strings owned), and who asked, to judge it again. */
struct dispatch_entry {
	struct dispatch *d;
	struct request req;
	struct access_peer peer;
	gadget_done_fn fn;
	void *data;
	struct loop_watch *timer;   /* switch_queue_timeout */
	struct dispatch_entry *next;
};

struct dispatch {
	struct loop *loop;
	const struct config *cfg;
	struct access_policy policy;
	struct gadget *g;
	/* In the order they came, but an off goes first. */
	struct dispatch_entry *head;
	unsigned n;
};

static const char *dispatch_op_name(const struct request *req)
{
	return req->op == REQUEST_RELOAD ? "reload" : req->op == REQUEST_OFF ? "off" : "switch";
}

static void dispatch_entry_free(struct dispatch_entry *e)
{
	loop_watch_remove(e->timer);
	free((char *)e->req.profile);
	free((char *)e->req.set);
	free(e);
}

static void dispatch_unlink(struct dispatch *d, struct dispatch_entry *e)
{
	struct dispatch_entry **p;

	for (p = &d->head; *p && *p != e; p = &(*p)->next)
		;
	*p = e->next;
	d->n--;
}

void dispatch_view(struct dispatch *d, const struct request *req,
		   struct access_view *view)
{
	*view = (struct access_view){ .active = gadget_profile_name(d->g) };
	if (req->function)
		view->plugin = gadget_function_plugin(d->g, req->function);
	if (req->op == REQUEST_STORAGE)
		view->group_media = !req->bad[0] &&
				    gadget_storage_group_open(d->g, req->storage.function);
}

int dispatch_check(struct dispatch *d, const struct access_peer *peer,
		   const struct request *req, char *why, size_t size)
{
	struct access_view view;

	dispatch_view(d, req, &view);
	return access_check(&d->policy, peer, req, &view, why, size);
}

/* A member of group changes media as themself; root and admin_group as
 * gadgetd. */
static int dispatch_storage(struct dispatch *d, const struct access_peer *peer,
			    const struct request *req, char *msg, size_t size, FILE *out)
{
	struct storage_cred member = { .uid = peer->uid, .gid = peer->gid };
	bool confined = access_role(peer) == ACCESS_GROUP;

	return gadget_storage(d->g, confined ? &member : NULL, &req->storage, msg,
			      size, out);
}

/* req now, on the gadget's own terms. */
static int dispatch_run(struct dispatch *d, const struct access_peer *peer,
			const struct request *req, char *msg, size_t size, FILE *out,
			gadget_done_fn fn, void *data)
{
	switch (req->op) {
	case REQUEST_SWITCH:
		return gadget_switch(d->g, req->profile, req->set, msg, size, fn, data);
	case REQUEST_OFF:
		return gadget_off(d->g, msg, size, fn, data);
	case REQUEST_RELOAD:
		return gadget_reload(d->g, msg, size, fn, data);
	case REQUEST_COMMAND:
		return gadget_command(d->g, req->argc, req->argv, msg, size, fn, data);
	case REQUEST_STORAGE:
		return dispatch_storage(d, peer, req, msg, size, out);
	case REQUEST_WAKEUP:
		return gadget_wakeup(d->g, msg, size, fn, data);
	case REQUEST_LOCK:
		return gadget_lock(d->g, req->lock, msg, size);
	case REQUEST_UNKNOWN:
		/* Judged as a change (a newer gadgetctl's, say): refused as
		 * busy first, then as unknown. */
		snprintf(msg, size, "unknown request type %u", req->type);
		return -EBADMSG;
	case REQUEST_LIST:
	case REQUEST_STATUS:
	case REQUEST_MONITOR:
	case REQUEST_WAIT:
		break;
	}
	snprintf(msg, size, "not a request that changes the gadget");
	return -EINVAL;
}

/*
 * The entry's request, judged again now that it runs, on the gadget as
 * it is now: a member may only switch among the active profile's sets,
 * and naming the active profile was allowed when it was queued; if an
 * administrator's switch to another profile ran first, it is refused
 * now, else the member's request would undo the administrator's.
 */
static int dispatch_recheck(struct dispatch *d, const struct dispatch_entry *e,
			    char *msg, size_t size)
{
	const char *active = gadget_profile_name(d->g);
	char why[512];

	if (!dispatch_check(d, &e->peer, &e->req, why, sizeof(why)))
		return 0;
	if (e->req.op == REQUEST_SWITCH && e->req.profile)
		snprintf(msg, size, "permission denied: while this switch waited, the "
			 "active profile became %s; choosing another profile (switch "
			 "--profile %s) is for root and admin_group; nothing was changed",
			 active ? active : "none (off)", e->req.profile);
	else
		snprintf(msg, size, "%s; nothing was changed", why);
	log_info("a queued %s: %s", dispatch_op_name(&e->req), msg);
	return -EACCES;
}

/* The gadget is idle, its own work begun or done: the head of the queue
 * runs, and the next, until one goes on or none is left. Each is
 * answered from here when it ends at once: never from inside the call
 * that queued it. */
static void dispatch_idle(void *data)
{
	struct dispatch *d = data;
	char msg[4096];
	int r;

	while (d->head && !gadget_busy(d->g)) {
		struct dispatch_entry *e = d->head;
		gadget_done_fn fn = e->fn;
		void *fn_data = e->data;

		dispatch_unlink(d, e);
		msg[0] = '\0';
		r = dispatch_recheck(d, e, msg, sizeof(msg));
		if (!r)
			r = dispatch_run(d, &e->peer, &e->req, msg, sizeof(msg), NULL, fn,
					 fn_data);
		dispatch_entry_free(e);
		if (r == -EINPROGRESS)
			return;
		fn(r, msg, fn_data);
	}
}

static unsigned dispatch_waiting(void *data)
{
	return dispatch_queued(data);
}

static const struct gadget_waiters dispatch_waiters = {
	.idle = dispatch_idle,
	.queued = dispatch_waiting,
};

static void dispatch_expired(struct loop_watch *w, void *data)
{
	struct dispatch_entry *e = data;
	struct dispatch *d = e->d;
	char msg[256];

	dispatch_unlink(d, e);
	snprintf(msg, sizeof(msg), "waited %u s for the switches before it; "
		 "nothing was changed (switch_queue_timeout)",
		 d->cfg->switch_queue_timeout_ms / 1000);
	log_warnx("a queued %s %s", dispatch_op_name(&e->req), msg);
	e->fn(-ETIME, msg, e->data);
	dispatch_entry_free(e);
}

/* Take data's entries (NULL: every one) out of the queue; each is
 * answered -ECANCELED with why, unless why is NULL. */
static void dispatch_drop(struct dispatch *d, void *data, const char *why)
{
	struct dispatch_entry **p = &d->head;

	while (*p) {
		struct dispatch_entry *e = *p;

		if (data && e->data != data) {
			p = &e->next;
			continue;
		}
		*p = e->next;
		d->n--;
		if (why)
			e->fn(-ECANCELED, why, e->data);
		dispatch_entry_free(e);
	}
}

/*
 * Would req be refused at once? Only a switch to a set of the profile in
 * use, when nothing ahead of it may change the profile: no queued
 * request, and no transaction to another profile (nor a reload, which
 * reads the file again: a struct of its own) that may yet fail.
 */
static int dispatch_refused_now(struct dispatch *d, const struct request *req,
				char *msg, size_t size)
{
	const char *active = gadget_profile_name(d->g);
	const struct profile *to = gadget_target_profile(d->g);
	const struct dispatch_entry *e;

	if (req->op != REQUEST_SWITCH || req->profile || !req->set || !active)
		return 0;
	for (e = d->head; e; e = e->next)
		if (e->req.op != REQUEST_SWITCH || e->req.profile)
			return 0;
	/* The same struct as the active profile, not only the same name. */
	if (!to || to->name != active)
		return 0;
	return profile_set_find(to, req->set, msg, size) < 0 ? -EINVAL : 0;
}

/* How many may wait when peer asks: a member leaves the last
 * DISPATCH_QUEUE_RESERVED places to administrators, as the control
 * socket keeps its last slots. */
static unsigned dispatch_limit(const struct dispatch *d, const struct access_peer *peer)
{
	unsigned n = d->cfg->switch_queue;

	if (access_role(peer) != ACCESS_GROUP)
		return n;
	return n > DISPATCH_QUEUE_RESERVED ? n - DISPATCH_QUEUE_RESERVED : 0;
}

static int dispatch_full(struct dispatch *d, unsigned limit, char *msg, size_t size)
{
	size_t n;

	if (gadget_busy(d->g))
		gadget_refuse_busy(d->g, msg, size);
	else
		snprintf(msg, size, "another switch is waiting; try again");
	n = strlen(msg);
	snprintf(msg + n, size - n, " (%u more wait, switch_queue = %u%s)", d->n,
		 d->cfg->switch_queue, limit < d->cfg->switch_queue ?
		 ", the last places kept for root and admin_group" : "");
	return -EBUSY;
}

static struct dispatch_entry *dispatch_entry_new(struct dispatch *d,
						 const struct access_peer *peer,
						 const struct request *req,
						 gadget_done_fn fn, void *data)
{
	struct dispatch_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->d = d;
	e->req = (struct request){ .op = req->op, .type = req->type };
	e->req.profile = req->profile ? strdup(req->profile) : NULL;
	e->req.set = req->set ? strdup(req->set) : NULL;
	e->peer = *peer;
	e->fn = fn;
	e->data = data;
	e->timer = loop_add_timer(d->loop, d->cfg->switch_queue_timeout_ms,
				  dispatch_expired, e);
	if (!e->timer || (req->profile && !e->req.profile) || (req->set && !e->req.set)) {
		dispatch_entry_free(e);
		return NULL;
	}
	return e;
}

/* A switch, reload or off behind what runs or waits: -EINPROGRESS, or
 * refused now (a set the profile lacks, the queue full). */
static int dispatch_queue(struct dispatch *d, const struct access_peer *peer,
			  const struct request *req, char *msg, size_t size,
			  gadget_done_fn fn, void *data)
{
	unsigned limit = dispatch_limit(d, peer);
	struct dispatch_entry *e, **p;
	int r;

	r = dispatch_refused_now(d, req, msg, size);
	if (r < 0)
		return r;
	/* An off runs before what waited: those are answered, not run. */
	if (req->op == REQUEST_OFF)
		dispatch_drop(d, NULL, "an administrator turned the gadget off before "
			      "this request ran; nothing was changed");
	if (d->n >= limit)
		return dispatch_full(d, limit, msg, size);
	e = dispatch_entry_new(d, peer, req, fn, data);
	if (!e) {
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (p = &d->head; *p; p = &(*p)->next)
		;
	*p = e;
	d->n++;
	gadget_kick_waiters(d->g);
	return -EINPROGRESS;
}

/* A switch or reload waits while anything runs or waits (nobody
 * overtakes the queue); an off only while something runs. */
static bool dispatch_must_wait(const struct dispatch *d, const struct request *req)
{
	if (!request_waits(req))
		return false;
	return gadget_busy(d->g) || (req->op != REQUEST_OFF && d->head);
}

int dispatch_submit(struct dispatch *d, const struct access_peer *peer,
		    const struct request *req, char *msg, size_t size, FILE *out,
		    gadget_done_fn fn, void *data)
{
	if (dispatch_must_wait(d, req))
		return dispatch_queue(d, peer, req, msg, size, fn, data);
	if (request_changes(req) && gadget_busy(d->g))
		return gadget_refuse_busy(d->g, msg, size);
	return dispatch_run(d, peer, req, msg, size, out, fn, data);
}

void dispatch_cancel(struct dispatch *d, void *data)
{
	dispatch_drop(d, data, NULL);
	gadget_cancel(d->g, data);
}

unsigned dispatch_queued(const struct dispatch *d)
{
	return d->n;
}

struct dispatch *dispatch_new(struct loop *l, const struct config *cfg,
			      const struct access_policy *policy, struct gadget *g)
{
	struct dispatch *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->loop = l;
	d->cfg = cfg;
	d->g = g;
	d->policy = *policy;
	d->policy.group = policy->group ? strdup(policy->group) : NULL;
	d->policy.admin_group = policy->admin_group ? strdup(policy->admin_group) : NULL;
	if ((policy->group && !d->policy.group) ||
	    (policy->admin_group && !d->policy.admin_group)) {
		dispatch_free(d);
		return NULL;
	}
	gadget_set_waiters(g, &dispatch_waiters, d);
	return d;
}

void dispatch_free(struct dispatch *d)
{
	if (!d)
		return;
	dispatch_drop(d, NULL, "gadgetd is stopping; the request did not run");
	gadget_set_waiters(d->g, NULL, NULL);
	free((char *)d->policy.group);
	free((char *)d->policy.admin_group);
	free(d);
}
