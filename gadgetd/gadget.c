#include "gadget.h"
#include "composer.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "plan.h"
#include "profile.h"
#include "state.h"
#include "supervisor.h"
#include "udc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GADGET_SET_MAX 256

struct gadget_timing {
	time_t when;
	unsigned teardown_ms, ready_ms, bind_ms, total_ms;
};

enum gadget_txn_kind {
	GADGET_TXN_SWITCH,   /* a switch or a reload: rolls back on failure */
	GADGET_TXN_RESTART,  /* a crashed worker again, the gadget unbound */
};

/* The one transaction in progress. It waits for the plugins through the
 * supervisor and goes on from gadget_txn_ready(). */
struct gadget_txn {
	enum gadget_txn_kind kind;
	struct profile *p;    /* the target; freed here unless it went live */
	int set;
	char name[GADGET_SET_MAX];
	char function[PROFILE_NAME_MAX];  /* restart */
	bool rollback;        /* applying g->profile and g->set again */
	bool finished;        /* the result waits for txn_report */
	int r;
	uint64_t t0, t1, t2;
	/* A bind refused as busy while the UDC is still registering. */
	struct loop_watch *bind_timer;
	unsigned bind_tries;
	char msg[4096];
	char back[512];
	gadget_done_fn fn;
	void *data;
};

/* A plugin command waiting for its reply. */
struct gadget_cmd {
	struct gadget *g;
	gadget_done_fn fn;
	void *data;
	struct gadget_cmd *next;
};

struct gadget {
	struct loop *loop;
	const struct config *cfg;
	struct composer *composer;
	struct supervisor *sup;
	struct udc_monitor *udcmon;
	struct profile *profile;
	int set;
	char udc[64];
	struct gadget_txn *txn;
	struct loop_watch *txn_report;
	struct gadget_cmd *cmds;
	unsigned n_cmds;
	bool freeing;
	unsigned n_live;
	struct plan_live live[PLAN_MAX];
	struct gadget_timing timing;
	unsigned switches;
	/* The set before a plugin asked for a switch, for "revert". */
	char revert_profile[64];
	char revert_set[GADGET_SET_MAX];
	/* Waiting for the transaction or command in progress: a plugin's
	 * switch request (the last one wins), SIGHUP, crashed workers. */
	char pending[GADGET_SET_MAX];
	char pending_from[PROFILE_NAME_MAX];
	bool reload_pending;
	unsigned n_restarts;
	char restarts[PLAN_MAX][PROFILE_NAME_MAX];
	struct loop_watch *queue;
	char queued_what[PROFILE_NAME_MAX + 32];
	/* Binding to a UDC that just appeared: retries and their timer. */
	struct loop_watch *udc_timer;
	unsigned udc_tries;
};

/* Binds refused as busy are tried again after 100 ms, doubling each time,
 * up to about 6 s in all: see gadget_udc_changed(). */
#define GADGET_UDC_TRIES 6

static void gadget_plugin_request(const char *function, const char *request,
				  void *data);

static void gadget_udc_changed(void *data);
static void gadget_plugin_restart(const char *function, void *data);
static void gadget_txn_drop(struct gadget *g);
static void gadget_kick(struct gadget *g);
static void gadget_run_queue_now(struct gadget *g);

int gadget_new(struct loop *l, const struct config *cfg, struct gadget **out)
{
	struct gadget *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	g->loop = l;
	g->cfg = cfg;
	g->set = -1;
	r = composer_new(cfg->gadget_name, &g->composer);
	if (r < 0) {
		free(g);
		return r;
	}
	g->sup = supervisor_new(l, cfg, gadget_plugin_request,
				gadget_plugin_restart, g);
	g->udcmon = udc_monitor_new(l, gadget_udc_changed, g);
	/* A gadget left by a crashed gadgetd has no workers behind its
	 * FunctionFS instances: clean it and compose afresh. */
	composer_unbind(g->composer);
	supervisor_clean_mounts(cfg);
	r = composer_destroy(g->composer);
	if (r < 0) {
		gadget_free(g);
		return r;
	}
	*out = g;
	return 0;
}

void gadget_free(struct gadget *g)
{
	if (!g)
		return;
	g->freeing = true;
	gadget_txn_drop(g);
	composer_unbind(g->composer);
	/* Answers the plugin commands still waiting, with -ECANCELED. */
	supervisor_free(g->sup);
	composer_destroy(g->composer);
	composer_free(g->composer);
	udc_monitor_free(g->udcmon);
	loop_watch_remove(g->queue);
	loop_watch_remove(g->udc_timer);
	profile_free(g->profile);
	free(g);
}

bool gadget_busy(const struct gadget *g)
{
	return g->txn || g->n_cmds;
}

static int gadget_refuse_busy(struct gadget *g, char *msg, size_t size)
{
	if (g->txn)
		snprintf(msg, size, "another switch is in progress");
	else
		snprintf(msg, size, "a plugin command is in progress; try again");
	return -EBUSY;
}

const char *gadget_profile_name(const struct gadget *g)
{
	return g->profile ? g->profile->name : NULL;
}

const char *gadget_function_plugin(const struct gadget *g, const char *function)
{
	const struct profile_function *f;

	f = g->profile ? profile_function_find(g->profile, function) : NULL;
	return f ? f->plugin : NULL;
}

void gadget_reap(struct gadget *g)
{
	supervisor_reap(g->sup);
}

static struct plan_live *gadget_live_find(struct gadget *g, const char *name)
{
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		if (!strcmp(g->live[i].fn.name, name))
			return &g->live[i];
	return NULL;
}

static void gadget_live_drop(struct gadget *g, const char *name)
{
	struct plan_live *l = gadget_live_find(g, name);

	if (l)
		*l = g->live[--g->n_live];
}

static int gadget_teardown(struct gadget *g, const struct plan *plan)
{
	unsigned i;
	int r;

	r = composer_unbind(g->composer);
	if (r < 0)
		return r;
	for (i = 0; i < plan->n_remove; i++)
		supervisor_stop(g->sup, plan->remove[i].name);
	r = composer_unlink_all(g->composer);
	for (i = 0; !r && i < plan->n_remove; i++) {
		r = composer_remove_function(g->composer, plan->remove[i].name);
		if (!r)
			gadget_live_drop(g, plan->remove[i].name);
	}
	return r;
}

static int gadget_create(struct gadget *g, const struct profile_function *f,
			 char *msg, size_t size)
{
	struct plan_live *l;
	int r;

	r = composer_add_function(g->composer, f);
	if (r < 0) {
		snprintf(msg, size, "function %s: cannot create %s function in ConfigFS: %s",
			 f->name, profile_ftype_name(f->type), strerror(-r));
		return r;
	}
	l = &g->live[g->n_live++];
	l->fn.type = f->type;
	snprintf(l->fn.name, sizeof(l->fn.name), "%s", f->name);
	plan_signature(f, l->sig, sizeof(l->sig));
	if (f->type != PROFILE_F_FFS)
		return 0;
	r = supervisor_start(g->sup, f);
	if (r < 0)
		snprintf(msg, size, "function %s: cannot start plugin %s: %s",
			 f->name, f->plugin, strerror(-r));
	return r;
}

static int gadget_bind(struct gadget *g, char *msg, size_t size)
{
	int r;

	if (udc_pick(g->cfg->udc, g->udc, sizeof(g->udc)) < 0) {
		g->udc[0] = '\0';
		log_info("no UDC matches \"%s\" yet; binding when one appears",
			 g->cfg->udc);
		return 0;
	}
	r = composer_bind(g->composer, g->udc);
	if (r < 0)
		snprintf(msg, size, "cannot bind the gadget to UDC %s: %s", g->udc,
			 strerror(-r));
	return r;
}

static void gadget_txn_ready(int r, const char *err, void *data);

/* The first half of one attempt at making set of p live: ConfigFS and the
 * workers, then a wait for the plugins that ends in gadget_txn_ready(). */
static int gadget_apply_begin(struct gadget *g, const struct profile *p,
			      unsigned set, char *msg, size_t size)
{
	const struct profile_set *s = &p->sets[set];
	struct gadget_txn *t = g->txn;
	struct plan plan;
	unsigned i;
	int r;

	t->t0 = loop_now_ms();
	plan_compute(g->live, g->n_live, p, set, &plan);
	r = gadget_teardown(g, &plan);
	if (r < 0) {
		snprintf(msg, size, "cannot take the previous set down: %s", strerror(-r));
		return r;
	}
	t->t1 = loop_now_ms();
	r = composer_identity(g->composer, p, set);
	if (r < 0) {
		snprintf(msg, size, "cannot set the gadget identity: %s", strerror(-r));
		return r;
	}
	for (i = 0; !r && i < plan.n_create; i++)
		r = gadget_create(g, plan.create[i], msg, size);
	for (i = 0; !r && i < s->n_functions; i++) {
		r = composer_link(g->composer, p->functions[s->functions[i]].name);
		if (r < 0)
			snprintf(msg, size, "function %s: cannot link it into the configuration: %s",
				 p->functions[s->functions[i]].name, strerror(-r));
	}
	if (r < 0)
		return r;
	r = supervisor_wait_ready(g->sup, g->cfg->ready_timeout_ms,
				  gadget_txn_ready, g);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the plugins: %s", strerror(-r));
	return r;
}

static void gadget_txn_bind_retry(struct loop_watch *w, void *data);

/* The second half: the plugins are ready, bind. -EINPROGRESS: the UDC was
 * busy, and gadget_txn_bind_retry() tries again. */
static int gadget_apply_end(struct gadget *g, char *msg, size_t size)
{
	struct gadget_txn *t = g->txn;
	int r;

	if (!t->bind_tries)
		t->t2 = loop_now_ms();
	r = gadget_bind(g, msg, size);
	if (r == -EBUSY && t->bind_tries < GADGET_UDC_TRIES) {
		t->bind_timer = loop_add_timer(g->loop, 100u << t->bind_tries++,
					       gadget_txn_bind_retry, g);
		if (t->bind_timer)
			return -EINPROGRESS;
	}
	t->bind_tries = 0;
	if (r < 0)
		return r;
	g->timing.when = time(NULL);
	g->timing.teardown_ms = t->t1 - t->t0;
	g->timing.ready_ms = t->t2 - t->t1;
	g->timing.bind_ms = loop_now_ms() - t->t2;
	g->timing.total_ms = loop_now_ms() - t->t0;
	return 0;
}

static void gadget_save(struct gadget *g)
{
	char name[GADGET_SET_MAX] = "";
	int r;

	if (g->set >= 0)
		profile_set_name(g->profile, g->set, name, sizeof(name));
	r = state_save(g->cfg->state_file, g->profile->name, name);
	if (r < 0)
		log_warnx("cannot save state to %s: %s", g->cfg->state_file,
			  strerror(-r));
}

static int gadget_load_profile(struct gadget *g, const char *name,
			       struct profile **out, char *msg, size_t size)
{
	char path[1024], *text;
	int r;

	*out = NULL;
	r = config_profile_read(g->cfg, name, &text, path, sizeof(path), msg, size);
	if (r < 0)
		return r == -ENOENT ? -ENOENT : -EINVAL;
	r = profile_parse(path, text, out, msg, size);
	free(text);
	if (r < 0)
		return -EINVAL;
	/* Every worker's user must exist before anything is torn down. */
	if (profile_resolve_ids(*out, msg, size) < 0) {
		profile_free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Going back failed too: leave nothing half-built behind. */
static void gadget_down(struct gadget *g)
{
	struct plan plan = { 0 };
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		plan.remove[plan.n_remove++] = g->live[i].fn;
	gadget_teardown(g, &plan);
	composer_destroy(g->composer);
	g->n_live = 0;
	g->set = -1;
}

static void gadget_txn_report(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;

	g->txn_report = NULL;
	g->txn = NULL;
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
	gadget_run_queue_now(g);
}

/* The result goes to the caller after this round; until then nothing else
 * starts, so the order of replies is the order of transactions. */
static void gadget_txn_finish(struct gadget *g, int r)
{
	struct gadget_txn *t = g->txn;

	t->r = r;
	t->finished = true;
	if (t->p != g->profile)
		profile_free(t->p);
	t->p = NULL;
	g->txn_report = loop_add_idle(g->loop, gadget_txn_report, g);
	if (!g->txn_report)
		gadget_txn_report(NULL, g);
}

/* gadget_free() during a transaction: stop waiting, answer now. */
static void gadget_txn_drop(struct gadget *g)
{
	struct gadget_txn *t = g->txn;

	if (!t)
		return;
	supervisor_wait_cancel(g->sup);
	loop_watch_remove(t->bind_timer);
	t->bind_timer = NULL;
	loop_watch_remove(g->txn_report);
	g->txn_report = NULL;
	if (!t->finished) {
		if (t->p != g->profile)
			profile_free(t->p);
		t->r = -ECANCELED;
		snprintf(t->msg, sizeof(t->msg), "gadgetd is stopping; the switch to %s "
			 "did not finish", t->name);
	}
	g->txn = NULL;
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
}

static void gadget_txn_commit(struct gadget *g)
{
	struct gadget_txn *t = g->txn;

	if (g->profile != t->p)
		profile_free(g->profile);
	g->profile = t->p;
	g->set = t->set;
	g->switches++;
	gadget_save(g);
	snprintf(t->msg, sizeof(t->msg), "switched to %s (profile %s) in %u ms%s",
		 t->name, t->p->name, g->timing.total_ms,
		 g->udc[0] ? "" : "; waiting for a UDC");
}

static void gadget_txn_attempt(struct gadget *g);

/* One attempt ended with r: commit, roll back, or give up. */
static void gadget_txn_attempted(struct gadget *g, int r)
{
	struct gadget_txn *t = g->txn;
	size_t n = strlen(t->msg);
	char old[GADGET_SET_MAX];

	if (!t->rollback) {
		if (!r) {
			gadget_txn_commit(g);
			gadget_txn_finish(g, 0);
			return;
		}
		log_warnx("switch to %s failed: %s", t->name, t->msg);
		if (g->profile && g->set >= 0) {
			t->r = r;
			t->rollback = true;
			gadget_txn_attempt(g);
			return;
		}
		gadget_down(g);
		snprintf(t->msg + n, sizeof(t->msg) - n, "; the gadget is off");
		gadget_txn_finish(g, r);
		return;
	}
	profile_set_name(g->profile, g->set, old, sizeof(old));
	if (r < 0) {
		gadget_down(g);
		log_warnx("rollback to %s failed too: %s", old, t->back);
		snprintf(t->msg + n, sizeof(t->msg) - n,
			 "; rollback to %s failed (%s): the gadget is off", old, t->back);
	} else {
		snprintf(t->msg + n, sizeof(t->msg) - n, "; rolled back to %s", old);
	}
	gadget_txn_finish(g, t->r);
}

static void gadget_txn_attempt(struct gadget *g)
{
	struct gadget_txn *t = g->txn;
	int r;

	if (t->rollback)
		r = gadget_apply_begin(g, g->profile, g->set, t->back, sizeof(t->back));
	else
		r = gadget_apply_begin(g, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		gadget_txn_attempted(g, r);
}

static void gadget_restart_ready(struct gadget *g, int r, const char *err)
{
	struct gadget_txn *t = g->txn;

	if (r < 0)
		log_warnx("%s: restart: %s", t->function, err);
	if (gadget_bind(g, t->msg, sizeof(t->msg)) < 0)
		log_warnx("%s: restart: %s", t->function, t->msg);
	else
		log_info("%s: plugin restarted; gadget bound again", t->function);
	gadget_txn_finish(g, 0);
}

static void gadget_txn_ready(int r, const char *err, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	char *msg = t->rollback ? t->back : t->msg;
	size_t size = t->rollback ? sizeof(t->back) : sizeof(t->msg);

	switch (t->kind) {
	case GADGET_TXN_RESTART:
		gadget_restart_ready(g, r, err);
		return;
	case GADGET_TXN_SWITCH:
		break;
	}
	if (r < 0)
		snprintf(msg, size, "%s", err);
	else
		r = gadget_apply_end(g, msg, size);
	if (r != -EINPROGRESS)
		gadget_txn_attempted(g, r);
}

static void gadget_txn_bind_retry(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	char *msg = t->rollback ? t->back : t->msg;
	size_t size = t->rollback ? sizeof(t->back) : sizeof(t->msg);
	int r;

	loop_watch_remove(w);
	t->bind_timer = NULL;
	r = gadget_apply_end(g, msg, size);
	if (r != -EINPROGRESS)
		gadget_txn_attempted(g, r);
}

static struct gadget_txn *gadget_txn_new(struct gadget *g,
					 enum gadget_txn_kind kind,
					 gadget_done_fn fn, void *data)
{
	struct gadget_txn *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->fn = fn;
	t->data = data;
	g->txn = t;
	return t;
}

/* p (owned by the transaction unless it is g->profile) at set. */
static int gadget_transact(struct gadget *g, struct profile *p, int set,
			   char *msg, size_t size, gadget_done_fn fn, void *data)
{
	struct gadget_txn *t = gadget_txn_new(g, GADGET_TXN_SWITCH, fn, data);

	if (!t) {
		if (p != g->profile)
			profile_free(p);
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	t->p = p;
	t->set = set;
	profile_set_name(p, set, t->name, sizeof(t->name));
	log_info("switching to %s (profile %s)", t->name, p->name);
	gadget_txn_attempt(g);
	return -EINPROGRESS;
}

int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	struct profile *p = g->profile;
	int idx;

	if (gadget_busy(g))
		return gadget_refuse_busy(g, msg, size);
	if (profile && (!p || strcmp(profile, p->name))) {
		int r = gadget_load_profile(g, profile, &p, msg, size);
		if (r < 0)
			return r;
	}
	if (!p) {
		snprintf(msg, size, "no profile is loaded");
		return -EINVAL;
	}
	idx = set ? profile_set_find(p, set, msg, size) : p->default_set;
	if (idx < 0) {
		if (!set) {
			snprintf(msg, size, "profile %s has no default set", p->name);
			idx = -EINVAL;
		}
		if (p != g->profile)
			profile_free(p);
		return idx;
	}
	if (p == g->profile && idx == g->set && composer_bound_udc(g->composer)) {
		char name[GADGET_SET_MAX];
		profile_set_name(p, idx, name, sizeof(name));
		snprintf(msg, size, "%s is already active", name);
		return 0;
	}
	return gadget_transact(g, p, idx, msg, size, fn, data);
}

int gadget_start(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		 void *data)
{
	char profile[64], set[GADGET_SET_MAX];
	int r;

	r = gadget_load_profile(g, g->cfg->profile, &g->profile, msg, size);
	if (r < 0)
		return r;
	if (state_load(g->cfg->state_file, profile, sizeof(profile), set,
		       sizeof(set)) == 0 && !strcmp(profile, g->cfg->profile)) {
		if (!set[0]) {
			snprintf(msg, size, "gadget was off before restart; staying off");
			return 0;
		}
		log_info("restoring %s from %s", set, g->cfg->state_file);
		r = gadget_switch(g, NULL, set, msg, size, fn, data);
		if (r != -ENOENT && r != -EPERM)
			return r;
		log_warnx("saved set %s is no longer valid: %s", set, msg);
	}
	return gadget_switch(g, NULL, NULL, msg, size, fn, data);
}

int gadget_off(struct gadget *g, char *msg, size_t size)
{
	if (gadget_busy(g))
		return gadget_refuse_busy(g, msg, size);
	gadget_down(g);
	if (g->profile)
		gadget_save(g);
	snprintf(msg, size, "gadget is off");
	return 0;
}

int gadget_reload(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	struct profile *p;
	char name[GADGET_SET_MAX];
	int r, idx;

	if (gadget_busy(g))
		return gadget_refuse_busy(g, msg, size);
	r = gadget_load_profile(g, g->profile ? g->profile->name : g->cfg->profile,
				&p, msg, size);
	if (r < 0)
		return r;
	if (g->set < 0) {
		profile_free(g->profile);
		g->profile = p;
		snprintf(msg, size, "profile %s reloaded; gadget is off", p->name);
		return 0;
	}
	profile_set_name(g->profile, g->set, name, sizeof(name));
	idx = profile_set_find(p, name, msg, size);
	if (idx < 0) {
		profile_free(p);
		return -EINVAL;
	}
	return gadget_transact(g, p, idx, msg, size, fn, data);
}

/* What runs from the queue reports to the log; data names who asked. */
static void gadget_log_done(int r, const char *msg, void *data)
{
	if (r < 0)
		log_warnx("%s: %s", (const char *)data, msg);
	else
		log_info("%s: %s", (const char *)data, msg);
}

static int gadget_run_request(struct gadget *g, char *msg, size_t size)
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
	return gadget_switch(g, prof[0] ? prof : NULL, req, msg, size,
			     gadget_log_done, g->queued_what);
}

static int gadget_restart_begin(struct gadget *g, const char *function);

/* Start what was queued, one transaction at a time. A crashed worker
 * comes first: the gadget is down until it is back. */
static void gadget_run_queue(struct loop_watch *w, void *data)
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
		r = gadget_reload(g, msg, sizeof(msg), gadget_log_done, g->queued_what);
	} else if (g->pending[0]) {
		snprintf(g->queued_what, sizeof(g->queued_what), "switch requested by %s",
			 g->pending_from);
		r = gadget_run_request(g, msg, sizeof(msg));
	} else {
		return;
	}
	if (r != -EINPROGRESS) {
		gadget_log_done(r, msg, g->queued_what);
		gadget_kick(g);
	}
}

/* Look at the queue after this round. */
static void gadget_kick(struct gadget *g)
{
	if (g->queue || g->freeing)
		return;
	if (!g->n_restarts && !g->reload_pending && !g->pending[0])
		return;
	g->queue = loop_add_idle(g->loop, gadget_run_queue, g);
	if (!g->queue)
		log_warnx("cannot schedule queued requests: %s", strerror(errno));
}

/* Right when a transaction or command ends, before the next round's
 * clients: what waited in the queue goes first. */
static void gadget_run_queue_now(struct gadget *g)
{
	if (g->freeing)
		return;
	loop_watch_remove(g->queue);
	gadget_run_queue(NULL, g);
}

void gadget_request_reload(struct gadget *g)
{
	if (gadget_busy(g))
		log_info("reload: after the switch or command in progress");
	g->reload_pending = true;
	gadget_kick(g);
}

static void gadget_plugin_request(const char *function, const char *request,
				  void *data)
{
	struct gadget *g = data;

	snprintf(g->pending, sizeof(g->pending), "%s", request);
	snprintf(g->pending_from, sizeof(g->pending_from), "%s", function);
	gadget_kick(g);
}

/* The other functions kept working while the worker was down; they see a
 * re-enumeration now, because FunctionFS only reopens on an unbound
 * gadget. The gadget may be unbound already, and not by gadgetd: a host
 * that resets or unplugs the device while a worker is dead makes f_fs
 * unregister the whole gadget (ffs_func_set_alt() on a deactivated
 * instance, then ffs_closed()). It is bound again here all the same, once
 * the plugin is back; the gadget stays unbound only when it is off. */
static int gadget_restart_begin(struct gadget *g, const char *function)
{
	struct gadget_txn *t;
	int r;

	if (g->set < 0)
		return supervisor_respawn(g->sup, function);
	t = gadget_txn_new(g, GADGET_TXN_RESTART, NULL, NULL);
	if (!t)
		return -ENOMEM;
	snprintf(t->function, sizeof(t->function), "%s", function);
	composer_unbind(g->composer);
	r = supervisor_respawn(g->sup, function);
	if (!r)
		r = supervisor_wait_ready(g->sup, g->cfg->ready_timeout_ms,
					  gadget_txn_ready, g);
	if (r < 0)
		gadget_restart_ready(g, r, r == -ENOENT ? "gone" : strerror(-r));
	return 0;
}

static void gadget_plugin_restart(const char *function, void *data)
{
	struct gadget *g = data;

	/* A switch waiting for its plugins has the gadget unbound: the
	 * worker may start again at once, and the switch waits for it. */
	if (g->txn && !g->txn->finished && g->txn->kind == GADGET_TXN_SWITCH) {
		supervisor_respawn(g->sup, function);
		return;
	}
	if (!g->txn) {
		gadget_restart_begin(g, function);
		return;
	}
	if (g->n_restarts < PLAN_MAX)
		snprintf(g->restarts[g->n_restarts++], PROFILE_NAME_MAX, "%s", function);
	else
		supervisor_respawn(g->sup, function);
	gadget_kick(g);
}

/* A UDC's uevent comes before its gadget device joins the bus, so a bind
 * refused as busy just then is tried again, for up to about 6 s. A gadget
 * whose UDC vanished stays bound to it by name, and the kernel binds it
 * again by itself when the UDC returns. */

static void gadget_udc_retry(struct loop_watch *t, void *data)
{
	struct gadget *g = data;

	loop_watch_remove(t);
	g->udc_timer = NULL;
	gadget_udc_changed(g);
}

static void gadget_udc_changed(void *data)
{
	struct gadget *g = data;
	const char *bound;
	char msg[256];
	int r;

	if (g->txn || g->set < 0)
		return;
	bound = composer_bound_udc(g->composer);
	if (bound) {
		g->udc_tries = 0;
		return;
	}
	r = gadget_bind(g, msg, sizeof(msg));
	if (r == -EBUSY && g->udc_tries < GADGET_UDC_TRIES) {
		if (!g->udc_timer)
			g->udc_timer = loop_add_timer(g->loop, 100u << g->udc_tries++,
						      gadget_udc_retry, g);
		return;
	}
	g->udc_tries = 0;
	if (r < 0)
		log_warnx("%s", msg);
	else if (g->udc[0])
		log_info("bound to UDC %s", g->udc);
}

static void gadget_cmd_done(int rc, const char *reply, void *data)
{
	struct gadget_cmd *c = data, **pp;
	struct gadget *g = c->g;

	for (pp = &g->cmds; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	g->n_cmds--;
	if (c->fn)
		c->fn(rc, reply, c->data);
	free(c);
	gadget_run_queue_now(g);
}

int gadget_function_command(struct gadget *g, int argc, char **argv,
			    char *reply, size_t size, gadget_done_fn fn,
			    void *data)
{
	struct gadget_cmd *c;
	int r;

	if (argc < 2) {
		snprintf(reply, size, "usage: gadgetctl FUNCTION COMMAND [ARGS...]");
		return -EINVAL;
	}
	if (g->txn)
		return gadget_refuse_busy(g, reply, size);
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(reply, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	c->g = g;
	c->fn = fn;
	c->data = data;
	r = supervisor_command(g->sup, argv[0], argc - 1, argv + 1, reply, size,
			       gadget_cmd_done, c);
	if (r != -EINPROGRESS) {
		free(c);
		return r;
	}
	c->next = g->cmds;
	g->cmds = c;
	g->n_cmds++;
	return r;
}

void gadget_cancel(struct gadget *g, void *data)
{
	struct gadget_cmd *c;

	if (g->txn && g->txn->data == data)
		g->txn->fn = NULL;
	for (c = g->cmds; c; c = c->next)
		if (c->data == data)
			c->fn = NULL;
}

/* Every NAME.conf in profile_dir that `gadgetctl switch --profile NAME`
 * could load: a valid name on a regular file, not a link. */
static void gadget_list_profiles(struct gadget *g, FILE *out)
{
	char name[CONFIG_PROFILE_NAME_MAX + 8];
	struct dirent **names;
	int i, n = scandir(g->cfg->profile_dir, &names, NULL, alphasort);
	int dfd = open(g->cfg->profile_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	fprintf(out, "profiles in %s:", g->cfg->profile_dir);
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]->d_name);
		if (l > 5 && l - 5 < sizeof(name) && !strcmp(names[i]->d_name + l - 5, ".conf") &&
		    fstatat(dfd, names[i]->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode)) {
			snprintf(name, sizeof(name), "%.*s", (int)(l - 5), names[i]->d_name);
			if (config_profile_name_ok(name))
				fprintf(out, " %s", name);
		}
		free(names[i]);
	}
	if (dfd >= 0)
		close(dfd);
	if (n >= 0)
		free(names);
	fputc('\n', out);
}

void gadget_list(struct gadget *g, FILE *out)
{
	const struct profile *p = g->profile;
	char name[GADGET_SET_MAX];
	unsigned i;

	gadget_list_profiles(g, out);
	if (!p) {
		fprintf(out, "no profile loaded\n");
		return;
	}
	fprintf(out, "profile: %s (%s)\nfunctions:\n", p->name, p->path);
	for (i = 0; i < p->n_functions; i++)
		fprintf(out, "  %-12s %s%s%s\n", p->functions[i].name,
			profile_ftype_name(p->functions[i].type),
			p->functions[i].plugin ? " plugin " : "",
			p->functions[i].plugin ? p->functions[i].plugin : "");
	fprintf(out, "sets:\n");
	for (i = 0; i < p->n_sets; i++) {
		profile_set_name(p, i, name, sizeof(name));
		fprintf(out, "  %-24s %04x:%04x%s%s\n", name, p->sets[i].vendor_id,
			p->sets[i].product_id, (int)i == p->default_set ? " (default)" : "",
			(int)i == g->set ? " (active)" : "");
	}
}

static void gadget_status_text(struct gadget *g, FILE *out, const char *set,
			       const char *udc, const char *state,
			       const char *speed)
{
	char when[64] = "never";

	if (g->timing.when)
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 localtime(&g->timing.when));
	fprintf(out, "profile: %s\nset: %s\nstate: %s\nudc: %s\nudc state: %s\nspeed: %s\n",
		g->profile ? g->profile->name : "-", set,
		g->txn ? "switching" : "idle", udc, state, speed);
	fprintf(out, "last switch: %s (teardown %u ms, functions ready %u ms, bound %u ms, total %u ms)\n",
		when, g->timing.teardown_ms, g->timing.ready_ms,
		g->timing.bind_ms, g->timing.total_ms);
	fprintf(out, "plugins:\n");
	supervisor_status(g->sup, out, false);
}

void gadget_status(struct gadget *g, FILE *out, bool json)
{
	const char *udc = composer_bound_udc(g->composer);
	char set[GADGET_SET_MAX] = "off", state[64] = "unbound", speed[64] = "-";

	if (g->set >= 0)
		profile_set_name(g->profile, g->set, set, sizeof(set));
	if (udc) {
		udc_state(udc, state, sizeof(state));
		udc_speed(udc, speed, sizeof(speed));
	}
	if (!json) {
		gadget_status_text(g, out, set, udc ? udc : "-", state, speed);
		return;
	}
	fprintf(out, "{\"profile\":\"%s\",\"set\":\"%s\",\"switching\":%s,\"udc\":\"%s\","
		"\"udc_state\":\"%s\",\"speed\":\"%s\",\"switches\":%u,"
		"\"last_switch\":{\"time\":%lld,\"teardown_ms\":%u,"
		"\"ready_ms\":%u,\"bind_ms\":%u,\"total_ms\":%u},\"plugins\":[",
		g->profile ? g->profile->name : "", g->set >= 0 ? set : "",
		g->txn ? "true" : "false", udc ? udc : "", state, speed, g->switches,
		(long long)g->timing.when, g->timing.teardown_ms,
		g->timing.ready_ms, g->timing.bind_ms, g->timing.total_ms);
	supervisor_status(g->sup, out, true);
	fprintf(out, "]}\n");
}
