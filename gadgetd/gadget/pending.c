/*
 * pending: the gadget's own waiting work (pending.h).
 */
#include "pending.h"
#include "log.h"
#include "loop.h"
#include "plan.h"
#include "plugin_list.h"
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pending {
	struct loop *loop;
	const struct pending_ops *ops;
	void *ops_data;
	bool stopping;
	struct loop_watch *run;
	/* The set before a plugin asked for a switch, for "revert". */
	char revert_profile[64];
	char revert_set[PROFILE_SET_NAME_MAX];
	/* A plugin's switch request (the last one wins), SIGHUP, crashed
	 * workers. */
	char request[PROFILE_SET_NAME_MAX];
	char request_from[PROFILE_NAME_MAX];
	/* Requests refused by pending_allowed(): a subverted worker can
	 * send them at will. */
	struct log_burst refused_log;
	bool reload;
	unsigned n_restarts;
	char restarts[PLAN_MAX][PROFILE_NAME_MAX];
	/* The clients' queue asked to hear when the gadget is idle. */
	bool waiters_kicked;
	/* What runs, for the log: "reload", "switch requested by ...". */
	char what[PROFILE_NAME_MAX + 32];
};

static void pending_view(const struct pending *pd, struct pending_view *v)
{
	memset(v, 0, sizeof(*v));
	v->set = -1;
	pd->ops->view(v, pd->ops_data);
}

/* No client waits for a queued reload (SIGHUP, `systemctl reload`) or a
 * plugin's switch: the log and status say how it went. */
static void pending_log_done(int r, const char *msg, void *data)
{
	struct pending *pd = data;

	if (r >= 0) {
		log_info("%s: %s", pd->what, msg);
		return;
	}
	log_warnx("%s: %s", pd->what, msg);
	pd->ops->failed(pd->what, msg, pd->ops_data);
}

static int pending_run_request(struct pending *pd, char *msg, size_t size)
{
	char req[PROFILE_SET_NAME_MAX], prof[64] = "", cur[PROFILE_SET_NAME_MAX] = "";
	struct pending_view v;

	pending_view(pd, &v);
	snprintf(req, sizeof(req), "%s", pd->request);
	pd->request[0] = '\0';
	if (!strcmp(req, "revert")) {
		if (!pd->revert_set[0]) {
			snprintf(msg, size, "asked to revert, but there is nothing to revert to");
			return -ENOENT;
		}
		snprintf(prof, sizeof(prof), "%s", pd->revert_profile);
		snprintf(req, sizeof(req), "%s", pd->revert_set);
		pd->revert_set[0] = '\0';
	} else if (v.set >= 0) {
		profile_set_name(v.profile, v.set, cur, sizeof(cur));
		snprintf(pd->revert_profile, sizeof(pd->revert_profile), "%s",
			 v.profile->name);
		snprintf(pd->revert_set, sizeof(pd->revert_set), "%s", cur);
	}
	/* Ahead of the clients' queue: an accessory waits on the host. */
	return pd->ops->switch_to(prof[0] ? prof : NULL, req, msg, size,
				  pending_log_done, pd, pd->ops_data);
}

/* Start what waits, one transaction at a time. A crashed worker comes
 * first: the gadget is down until it is back. */
static void pending_run(struct loop_watch *w, void *data)
{
	struct pending *pd = data;
	struct pending_view v;
	char msg[4096];
	int r;

	pd->run = NULL;
	for (pending_view(pd, &v); !v.txn && pd->n_restarts; pending_view(pd, &v)) {
		char function[PROFILE_NAME_MAX];
		snprintf(function, sizeof(function), "%s", pd->restarts[0]);
		memmove(pd->restarts[0], pd->restarts[1],
			--pd->n_restarts * sizeof(pd->restarts[0]));
		pd->ops->restart(function, pd->ops_data);
	}
	if (v.busy)
		return;
	if (pd->reload) {
		pd->reload = false;
		snprintf(pd->what, sizeof(pd->what), "reload");
		r = pd->ops->reload(msg, sizeof(msg), pending_log_done, pd, pd->ops_data);
	} else if (pd->request[0]) {
		snprintf(pd->what, sizeof(pd->what), "switch requested by %s",
			 pd->request_from);
		r = pending_run_request(pd, msg, sizeof(msg));
	} else {
		/* Nothing of the gadget's own: the clients' turn. */
		pd->waiters_kicked = false;
		pd->ops->idle(pd->ops_data);
		return;
	}
	if (r != -EINPROGRESS) {
		pending_log_done(r, msg, pd);
		pending_kick(pd);
	}
}

void pending_kick(struct pending *pd)
{
	if (pd->run || pd->stopping)
		return;
	if (!pd->n_restarts && !pd->reload && !pd->request[0] && !pd->waiters_kicked)
		return;
	pd->run = loop_add_idle(pd->loop, pending_run, pd);
	if (!pd->run)
		log_warnx("cannot schedule queued requests: %s", strerror(errno));
}

void pending_kick_waiters(struct pending *pd)
{
	pd->waiters_kicked = true;
	pending_kick(pd);
}

void pending_run_now(struct pending *pd)
{
	if (pd->stopping)
		return;
	loop_watch_remove(pd->run);
	pending_run(NULL, pd);
}

int pending_restart(struct pending *pd, const char *function)
{
	int r = 0;

	if (pd->n_restarts < PLAN_MAX)
		snprintf(pd->restarts[pd->n_restarts++], PROFILE_NAME_MAX, "%s", function);
	else
		r = -ENOSPC;
	pending_kick(pd);
	return r;
}

void pending_reload(struct pending *pd)
{
	struct pending_view v;

	pending_view(pd, &v);
	if (v.busy)
		log_info("reload: after the switch or command in progress");
	pd->reload = true;
	pending_kick(pd);
}

/* profile_option() in the shape plugin_meta's switch_set takes. */
static const char *pending_option(const char *key, const void *ctx)
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
static int pending_allowed(const struct pending_view *v, const char *function,
			   const char *request, char *msg, size_t size)
{
	const struct profile *p = v->profile;
	const struct profile_function *f = p ? profile_function_find(p, function) : NULL;
	const struct plugin_meta *m = f ? plugin_list_find(f->plugin) : NULL;
	const char *set;
	char err[256];
	unsigned i;
	int want;

	if (!m || !m->switch_set) {
		snprintf(msg, size, "its plugin may not ask for a switch");
		return -EPERM;
	}
	for (i = 0; v->set >= 0 && i < p->sets[v->set].n_functions; i++)
		if (&p->functions[p->sets[v->set].functions[i]] == f)
			break;
	if (v->set < 0 || i == p->sets[v->set].n_functions) {
		snprintf(msg, size, "function %s is not in the active set", function);
		return -EPERM;
	}
	if (!strcmp(request, "revert"))
		return 0;
	set = m->switch_set(pending_option, f);
	want = profile_set_find(p, set, err, sizeof(err));
	if (want < 0 || profile_set_find(p, request, err, sizeof(err)) != want) {
		snprintf(msg, size, "it may only ask for %s or revert", set);
		return -EPERM;
	}
	return 0;
}

void pending_plugin_request(struct pending *pd, const char *function,
			    const char *request)
{
	char why[PROFILE_SET_NAME_MAX + 96];
	struct pending_view v;

	pending_view(pd, &v);
	if (pending_allowed(&v, function, request, why, sizeof(why)) < 0) {
		if (log_burst_ok(&pd->refused_log))
			log_warnx("%s: switch to \"%.64s\" refused: %s", function,
				  request, why);
		return;
	}
	snprintf(pd->request, sizeof(pd->request), "%s", request);
	snprintf(pd->request_from, sizeof(pd->request_from), "%s", function);
	pending_kick(pd);
}

struct pending *pending_new(struct loop *l, const struct pending_ops *ops,
			    void *ops_data)
{
	struct pending *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->loop = l;
	pd->ops = ops;
	pd->ops_data = ops_data;
	pd->refused_log = (struct log_burst)LOG_BURST_INIT("refused switch requests of workers", 5, 60);
	return pd;
}

void pending_stop(struct pending *pd)
{
	pd->stopping = true;
}

void pending_free(struct pending *pd)
{
	if (!pd)
		return;
	loop_watch_remove(pd->run);
	free(pd);
}
