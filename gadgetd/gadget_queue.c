#include "gadget_int.h"
#include "log.h"
#include "loop.h"
#include "profile.h"
#include "plugin_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What runs from the queue reports to the log; data names who asked. */
/* No client waits for a queued reload (SIGHUP, `systemctl reload`) or a
 * plugin's switch: the log and status say how it went. */
static void gadget_queue_log_done(int r, const char *msg, void *data)
{
	struct gadget *g = data;

	if (r >= 0) {
		log_info("%s: %s", g->queued_what, msg);
		return;
	}
	log_warnx("%s: %s", g->queued_what, msg);
	g->failed_when = time(NULL);
	snprintf(g->failed, sizeof(g->failed), "%s: %s", g->queued_what, msg);
}

static int gadget_queue_request(struct gadget *g, char *msg, size_t size)
{
	char req[GADGET_SET_MAX], prof[64] = "", cur[GADGET_SET_MAX] = "";

	snprintf(req, sizeof(req), "%s", g->pending);
	g->pending[0] = '\0';
	if (!strcmp(req, "revert")) {
		if (!g->revert_set[0]) {
			snprintf(msg, size, "asked to revert, but there is nothing to revert to");
			return -ENOENT;
		}
		snprintf(prof, sizeof(prof), "%s", g->revert_profile);
		snprintf(req, sizeof(req), "%s", g->revert_set);
		g->revert_set[0] = '\0';
	} else if (g->set >= 0) {
		profile_set_name(g->profile, g->set, cur, sizeof(cur));
		snprintf(g->revert_profile, sizeof(g->revert_profile), "%s",
			 g->profile->name);
		snprintf(g->revert_set, sizeof(g->revert_set), "%s", cur);
	}
	/* Ahead of the clients' queue: an accessory waits on the host. */
	return gadget_switch_save(g, prof[0] ? prof : NULL, req, true, msg, size,
				  gadget_queue_log_done, g);
}

static void gadget_queue_client_free(struct gadget_queued *q)
{
	loop_watch_remove(q->timer);
	free(q);
}

/*
 * A member's request, judged again now that it runs: a member may only
 * switch among the active profile's sets, and naming the active profile
 * was allowed when it was queued; if another profile became active in
 * the meantime (an administrator's switch ran first), it is refused now,
 * else the member's request would undo the administrator's.
 */
static int gadget_queue_still_allowed(const struct gadget *g,
				      const struct gadget_queued *q, char *msg,
				      size_t size)
{
	if (q->who != GADGET_MEMBER || q->kind != GADGET_QUEUE_SWITCH || !q->has_profile)
		return 0;
	if (g->profile && !strcmp(g->profile->name, q->profile))
		return 0;
	snprintf(msg, size, "permission denied: while this switch waited, the active "
		 "profile became %s; choosing another profile (switch --profile %s) is "
		 "for root and admin_group; nothing was changed",
		 g->profile ? g->profile->name : "none (off)", q->profile);
	return -EACCES;
}

/* The head of the clients' queue, run now: on until one goes on (a
 * transaction) or none is left. Each is answered from here when it ends
 * at once, as gadget.h promises (never from inside the call that queued
 * it). */
static void gadget_queue_client_next(struct gadget *g)
{
	char msg[4096];
	int r;

	while (g->queued && !gadget_busy(g) && !g->freeing) {
		struct gadget_queued *q = g->queued;
		gadget_done_fn fn = q->fn;
		void *data = q->data;

		g->queued = q->next;
		g->n_queued--;
		msg[0] = '\0';
		r = gadget_queue_still_allowed(g, q, msg, sizeof(msg));
		if (r < 0)
			log_info("a queued switch: %s", msg);
		else if (q->kind == GADGET_QUEUE_RELOAD)
			r = gadget_reload_now(g, msg, sizeof(msg), fn, data);
		else if (q->kind == GADGET_QUEUE_OFF)
			r = gadget_off(g, msg, sizeof(msg));
		else
			r = gadget_switch_save(g, q->has_profile ? q->profile : NULL,
					       q->has_set ? q->set : NULL, true, msg,
					       sizeof(msg), fn, data);
		gadget_queue_client_free(q);
		if (r == -EINPROGRESS)
			return;
		fn(r, msg, data);
	}
}

static void gadget_queue_client_expired(struct loop_watch *w, void *data)
{
	struct gadget_queued *q = data, **p;
	struct gadget *g = q->g;
	char msg[256];

	for (p = &g->queued; *p && *p != q; p = &(*p)->next)
		;
	*p = q->next;
	g->n_queued--;
	snprintf(msg, sizeof(msg), "waited %u s for the switches before it; "
		 "nothing was changed (switch_queue_timeout)",
		 g->cfg->switch_queue_timeout_ms / 1000);
	log_warnx("a queued %s %s", q->kind == GADGET_QUEUE_RELOAD ? "reload" :
		  q->kind == GADGET_QUEUE_OFF ? "off" : "switch", msg);
	q->fn(-ETIME, msg, q->data);
	gadget_queue_client_free(q);
}

/* Would set be refused at once? Only when no request ahead of it may
 * change the profile: then it is the active profile's. */
static int gadget_queue_check(struct gadget *g, const char *profile,
			      const char *set, char *msg, size_t size)
{
	const struct gadget_queued *q;

	if (profile || !set || !g->profile)
		return 0;
	for (q = g->queued; q; q = q->next)
		if (q->kind != GADGET_QUEUE_SWITCH || q->has_profile)
			return 0;
	if (g->txn && g->txn->p && g->txn->p != g->profile)
		return 0;
	return profile_set_find(g->profile, set, msg, size) < 0 ? -EINVAL : 0;
}

/* Take data's queued requests (NULL: every one) out of the queue; each
 * is answered -ECANCELED with why, unless why is NULL. */
static void gadget_queue_drop(struct gadget *g, void *data, const char *why)
{
	struct gadget_queued **p = &g->queued;

	while (*p) {
		struct gadget_queued *q = *p;

		if (data && q->data != data) {
			p = &q->next;
			continue;
		}
		*p = q->next;
		g->n_queued--;
		if (why)
			q->fn(-ECANCELED, why, q->data);
		gadget_queue_client_free(q);
	}
}

/* An off runs before what waited: those are answered, not run. */
static void gadget_queue_cancel_for_off(struct gadget *g)
{
	gadget_queue_drop(g, NULL, "an administrator turned the gadget off before "
			  "this request ran; nothing was changed");
}

/* How many may wait when who asks: a member leaves the last
 * GADGET_QUEUE_RESERVED places to administrators, as the control
 * socket keeps its last slots. */
static unsigned gadget_queue_limit(const struct gadget *g, enum gadget_who who)
{
	unsigned n = g->cfg->switch_queue;

	if (who == GADGET_ADMIN)
		return n;
	return n > GADGET_QUEUE_RESERVED ? n - GADGET_QUEUE_RESERVED : 0;
}

int gadget_queue_client(struct gadget *g, enum gadget_queue_kind kind,
			enum gadget_who who, const char *profile, const char *set,
			char *msg, size_t size, gadget_done_fn fn, void *data)
{
	struct gadget_queued *q, **p;
	unsigned limit = gadget_queue_limit(g, who);
	int r;

	r = gadget_queue_check(g, profile, set, msg, size);
	if (r < 0)
		return r;
	if (kind == GADGET_QUEUE_OFF)
		gadget_queue_cancel_for_off(g);
	if (g->n_queued >= limit) {
		size_t n;

		if (gadget_busy(g))
			gadget_refuse_busy(g, msg, size);
		else
			snprintf(msg, size, "another switch is waiting; try again");
		n = strlen(msg);
		snprintf(msg + n, size - n, " (%u more wait, switch_queue = %u%s)",
			 g->n_queued, g->cfg->switch_queue,
			 who == GADGET_MEMBER && limit < g->cfg->switch_queue ?
			 ", the last places kept for root and admin_group" : "");
		return -EBUSY;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	q->g = g;
	q->kind = kind;
	q->who = who;
	q->has_profile = profile != NULL;
	q->has_set = set != NULL;
	snprintf(q->profile, sizeof(q->profile), "%s", profile ? profile : "");
	snprintf(q->set, sizeof(q->set), "%s", set ? set : "");
	q->fn = fn;
	q->data = data;
	q->timer = loop_add_timer(g->loop, g->cfg->switch_queue_timeout_ms,
				  gadget_queue_client_expired, q);
	if (!q->timer) {
		free(q);
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (p = &g->queued; *p; p = &(*p)->next)
		;
	*p = q;
	g->n_queued++;
	gadget_queue_kick(g);
	return -EINPROGRESS;
}

void gadget_queue_cancel(struct gadget *g, void *data)
{
	gadget_queue_drop(g, data, data ? NULL :
			  "gadgetd is stopping; the request did not run");
}

/* Start what was queued, one transaction at a time. A crashed worker
 * comes first: the gadget is down until it is back. */
static void gadget_queue_run(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	char msg[4096];
	int r;

	g->queue = NULL;
	while (!g->txn && g->n_restarts) {
		char function[PROFILE_NAME_MAX];
		snprintf(function, sizeof(function), "%s", g->restarts[0]);
		memmove(g->restarts[0], g->restarts[1],
			--g->n_restarts * sizeof(g->restarts[0]));
		gadget_restart_begin(g, function);
	}
	if (gadget_busy(g))
		return;
	if (g->reload_pending) {
		g->reload_pending = false;
		snprintf(g->queued_what, sizeof(g->queued_what), "reload");
		r = gadget_reload_now(g, msg, sizeof(msg), gadget_queue_log_done, g);
	} else if (g->pending[0]) {
		snprintf(g->queued_what, sizeof(g->queued_what), "switch requested by %s",
			 g->pending_from);
		r = gadget_queue_request(g, msg, sizeof(msg));
	} else {
		gadget_queue_client_next(g);
		return;
	}
	if (r != -EINPROGRESS) {
		gadget_queue_log_done(r, msg, g);
		gadget_queue_kick(g);
	}
}

/* Look at the queue after this round. */
void gadget_queue_kick(struct gadget *g)
{
	if (g->queue || g->freeing)
		return;
	if (!g->n_restarts && !g->reload_pending && !g->pending[0] && !g->queued)
		return;
	g->queue = loop_add_idle(g->loop, gadget_queue_run, g);
	if (!g->queue)
		log_warnx("cannot schedule queued requests: %s", strerror(errno));
}

/* Right when a transaction or command ends, before the next round's
 * clients: what waited in the queue goes first. */
void gadget_queue_run_now(struct gadget *g)
{
	if (g->freeing)
		return;
	loop_watch_remove(g->queue);
	gadget_queue_run(NULL, g);
}

void gadget_queue_reload(struct gadget *g)
{
	if (gadget_busy(g))
		log_info("reload: after the switch or command in progress");
	g->reload_pending = true;
	gadget_queue_kick(g);
}

/* profile_option() in the shape plugin_meta's switch_set takes. */
static const char *gadget_queue_option(const char *key, const void *ctx)
{
	return profile_option(ctx, key);
}

/*
 * Whether function's worker may ask for request: only a plugin whose
 * declaration has a switch_set (the accessory), of the set that runs, and
 * only for that set or "revert". The
 * worker parses what a USB host sends and may be subverted; what it may
 * ask is read from the profile gadgetd loaded, never from the worker.
 * 0, or -EPERM with why in msg.
 */
static int gadget_queue_allowed(const struct gadget *g, const char *function,
				 const char *request, char *msg, size_t size)
{
	const struct profile_function *f =
		g->profile ? profile_function_find(g->profile, function) : NULL;
	const struct plugin_meta *m = f ? plugin_list_find(f->plugin) : NULL;
	const char *set;
	char err[256];
	unsigned i;
	int want;

	if (!m || !m->switch_set) {
		snprintf(msg, size, "its plugin may not ask for a switch");
		return -EPERM;
	}
	for (i = 0; g->set >= 0 && i < g->profile->sets[g->set].n_functions; i++)
		if (&g->profile->functions[g->profile->sets[g->set].functions[i]] == f)
			break;
	if (g->set < 0 || i == g->profile->sets[g->set].n_functions) {
		snprintf(msg, size, "function %s is not in the active set", function);
		return -EPERM;
	}
	if (!strcmp(request, "revert"))
		return 0;
	set = m->switch_set(gadget_queue_option, f);
	want = profile_set_find(g->profile, set, err, sizeof(err));
	if (want < 0 || profile_set_find(g->profile, request, err, sizeof(err)) != want) {
		snprintf(msg, size, "it may only ask for %s or revert", set);
		return -EPERM;
	}
	return 0;
}

void gadget_queue_plugin_request(const char *function, const char *request,
				  void *data)
{
	struct gadget *g = data;
	char why[GADGET_SET_MAX + 96];

	if (gadget_queue_allowed(g, function, request, why, sizeof(why)) < 0) {
		if (log_burst_ok(&g->refused_log))
			log_warnx("%s: switch to \"%.64s\" refused: %s", function,
				  request, why);
		return;
	}
	snprintf(g->pending, sizeof(g->pending), "%s", request);
	snprintf(g->pending_from, sizeof(g->pending_from), "%s", function);
	gadget_queue_kick(g);
}
