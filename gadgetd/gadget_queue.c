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
		r = gadget_reload(g, msg, sizeof(msg), gadget_queue_log_done, g);
	} else if (g->pending[0]) {
		snprintf(g->queued_what, sizeof(g->queued_what), "switch requested by %s",
			 g->pending_from);
		r = gadget_queue_request(g, msg, sizeof(msg));
	} else {
		/* Nothing of the gadget's own: the clients' turn. */
		g->waiters_kicked = false;
		if (g->waiters)
			g->waiters->idle(g->waiters_data);
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
	if (!g->n_restarts && !g->reload_pending && !g->pending[0] && !g->waiters_kicked)
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
