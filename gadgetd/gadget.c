#include "gadget.h"
#include "json.h"
#include "composer.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "plan.h"
#include "profile.h"
#include "state.h"
#include "supervisor.h"
#include "udc.h"
#include "accessory/accessory_opts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
	bool save;            /* the state file records the set on success */
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

enum gadget_boot_step {
	GADGET_BOOT_SAVED,    /* the set in the state file */
	GADGET_BOOT_DEFAULT,  /* the profile's default set */
	GADGET_BOOT_DONE,
};

struct gadget_boot {
	enum gadget_boot_step step;
	char saved[STATE_SET_MAX];
	char note[2048];
	bool fell;            /* a step failed */
	gadget_done_fn fn;
	void *data;
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
	/* gadget_down() waits for its workers to be reaped. */
	bool down_wait;
	/* Functions of the set left out of the configuration because their
	 * plugin failed, until the next switch links them again. */
	unsigned n_left_out;
	char left_out[PLAN_MAX][PROFILE_NAME_MAX];
	unsigned n_live;
	struct plan_live live[PLAN_MAX];
	struct gadget_timing timing;
	unsigned switches;
	/* The last switch that failed, for status, until one works. */
	time_t failed_when;
	char failed[4096 + GADGET_SET_MAX + 16];
	/* The set before a plugin asked for a switch, for "revert". */
	char revert_profile[64];
	char revert_set[GADGET_SET_MAX];
	/* Waiting for the transaction or command in progress: a plugin's
	 * switch request (the last one wins), SIGHUP, crashed workers. */
	char pending[GADGET_SET_MAX];
	char pending_from[PROFILE_NAME_MAX];
	/* Requests refused by gadget_plugin_allowed(): a subverted worker
	 * can send them at will. */
	struct log_burst refused_log;
	bool reload_pending;
	unsigned n_restarts;
	char restarts[PLAN_MAX][PROFILE_NAME_MAX];
	struct loop_watch *queue;
	char queued_what[PROFILE_NAME_MAX + 32];
	/* Binding to a UDC that just appeared: retries and their timer. */
	struct loop_watch *udc_timer;
	unsigned udc_tries;
	/* The start-up, one step after the other (gadget_boot_step()), and
	 * what each step did, for status. */
	struct gadget_boot boot;
	/* The start-up fell back from what the state file names: the file
	 * keeps naming it, so that the next start tries it again, until a
	 * client or plugin chooses a set (or off). */
	bool keep_state;
};

/* Binds refused as busy are tried again after 100 ms, doubling each time,
 * up to about 6 s in all: see gadget_udc_changed(). */
#define GADGET_UDC_TRIES 6

/* Ends the message of a switch that left the gadget off. */
#define GADGET_OFF_NOTE "; the gadget is off"

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
	g->refused_log = (struct log_burst)LOG_BURST_INIT("refused switch requests of workers", 5, 60);
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
	return g->txn || g->n_cmds || g->down_wait;
}

static int gadget_refuse_busy(struct gadget *g, char *msg, size_t size)
{
	if (g->txn)
		snprintf(msg, size, "another switch is in progress");
	else if (g->down_wait)
		snprintf(msg, size, "the gadget is going down; try again");
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

/*
 * A teardown has two halves: unbind and stop the workers, then, once
 * every stopped worker is reaped (supervisor_wait_stopped), unlink and
 * remove the functions. A FunctionFS function must not go while its
 * worker still holds the instance's files, and nothing waits in between.
 */
static int gadget_teardown_begin(struct gadget *g, const struct plan *plan)
{
	unsigned i;
	int r;

	r = composer_unbind(g->composer);
	if (r < 0)
		return r;
	for (i = 0; i < plan->n_remove; i++)
		supervisor_stop(g->sup, plan->remove[i].name);
	return 0;
}

static int gadget_teardown_end(struct gadget *g, const struct plan *plan)
{
	unsigned i;
	int r;

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
	if (!f->type->ffs)
		return 0;
	r = supervisor_start(g->sup, f);
	if (r < 0 && supervisor_start_error(g->sup)[0])
		snprintf(msg, size, "function %s: cannot start plugin %s: %s",
			 f->name, f->plugin, supervisor_start_error(g->sup));
	else if (r < 0)
		snprintf(msg, size, "function %s: cannot start plugin %s: %s",
			 f->name, f->plugin, strerror(-r));
	return r;
}

/* -EAGAIN: refused as busy while the UDC was still registering, worth
 * another try. Any other busy refusal is final: on Linux 6.1 a network
 * function whose bind failed once crashes the kernel when bound again. */
static int gadget_bind(struct gadget *g, char *msg, size_t size)
{
	bool registering;
	int r;

	if (udc_pick(g->cfg->udc, g->udc, sizeof(g->udc)) < 0) {
		g->udc[0] = '\0';
		log_info("no UDC matches \"%s\" yet; binding when one appears",
			 g->cfg->udc);
		return 0;
	}
	registering = !udc_registered(g->udc);
	r = composer_bind(g->composer, g->udc);
	if (r == -EBUSY && !registering) {
		char who[128];

		/* Linux answers EBUSY both for a UDC another gadget holds
		 * and for a function that failed to bind to this one. */
		udc_function(g->udc, who, sizeof(who));
		if (who[0])
			snprintf(msg, size, "cannot bind the gadget to UDC %s: "
				 "gadget \"%s\" holds it", g->udc, who);
		else
			snprintf(msg, size, "cannot bind the gadget to UDC %s: a "
				 "function failed to bind to it (the kernel log's "
				 "\"udc %s: failed to start\" line has the error; e.g. "
				 "-19: the UDC lacks an endpoint type it needs)",
				 g->udc, g->udc);
	} else if (r < 0) {
		snprintf(msg, size, "cannot bind the gadget to UDC %s: %s", g->udc,
			 strerror(-r));
	}
	return r == -EBUSY && registering ? -EAGAIN : r;
}

static void gadget_txn_ready(int r, const char *err, void *data);
static void gadget_txn_stopped(void *data);

/* The first part of one attempt at making set of p live: unbind and stop
 * the workers of the functions that go; gadget_txn_stopped() goes on once
 * they are reaped. Failed plugins of the functions that stay get another
 * chance now that the gadget is unbound. */
static int gadget_apply_begin(struct gadget *g, const struct profile *p,
			      unsigned set, char *msg, size_t size)
{
	struct gadget_txn *t = g->txn;
	struct plan plan;
	int r;

	t->t0 = loop_now_ms();
	plan_compute(g->live, g->n_live, p, set, &plan);
	r = gadget_teardown_begin(g, &plan);
	if (r < 0) {
		snprintf(msg, size, "cannot take the previous set down: %s", strerror(-r));
		return r;
	}
	supervisor_revive(g->sup);
	r = supervisor_wait_stopped(g->sup, gadget_txn_stopped, g);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the workers to stop: %s",
			 strerror(-r));
	return r;
}

/* The middle: the old functions go, the new ones come, and a wait for
 * the plugins ends in gadget_txn_ready(). */
static int gadget_apply_mid(struct gadget *g, const struct profile *p,
			    unsigned set, char *msg, size_t size)
{
	const struct profile_set *s = &p->sets[set];
	struct gadget_txn *t = g->txn;
	struct plan plan;
	unsigned i;
	int r;

	plan_compute(g->live, g->n_live, p, set, &plan);
	g->n_left_out = 0;
	r = gadget_teardown_end(g, &plan);
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
	if (r == -EAGAIN && t->bind_tries < GADGET_UDC_TRIES) {
		t->bind_timer = loop_add_timer(g->loop, 100u << t->bind_tries++,
					       gadget_txn_bind_retry, g);
		if (t->bind_timer)
			return -EINPROGRESS;
	}
	t->bind_tries = 0;
	if (r == -EAGAIN)
		r = -EBUSY;
	if (r < 0)
		return r;
	g->timing.when = time(NULL);
	/* Milliseconds of one switch: far below 2^32. */
	g->timing.teardown_ms = (unsigned)(t->t1 - t->t0);
	g->timing.ready_ms = (unsigned)(t->t2 - t->t1);
	g->timing.bind_ms = (unsigned)(loop_now_ms() - t->t2);
	g->timing.total_ms = (unsigned)(loop_now_ms() - t->t0);
	return 0;
}

static void gadget_save(struct gadget *g)
{
	struct state st = { 0 };
	int r;

	if (g->set >= 0)
		profile_set_name(g->profile, g->set, st.set, sizeof(st.set));
	snprintf(st.profile, sizeof(st.profile), "%s", g->profile->name);
	snprintf(st.conf_profile, sizeof(st.conf_profile), "%s", g->cfg->profile);
	r = state_save(g->cfg->state_file, &st);
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

static void gadget_txn_report(struct loop_watch *w, void *data);

/* The rest of gadget_down(), once the workers are reaped. */
static void gadget_down_end(struct gadget *g)
{
	struct plan plan = { 0 };
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		plan.remove[plan.n_remove++] = g->live[i].fn;
	gadget_teardown_end(g, &plan);
	composer_destroy(g->composer);
	g->n_live = 0;
}

static void gadget_down_stopped(void *data)
{
	struct gadget *g = data;

	g->down_wait = false;
	gadget_down_end(g);
	if (g->txn && g->txn->finished && !g->txn_report) {
		gadget_txn_report(NULL, g);
		return;
	}
	gadget_run_queue_now(g);
}

/* Off, or going back failed too: leave nothing half-built behind. The
 * gadget is unbound at once; its functions go once their workers are
 * reaped, and until then the gadget is busy. */
static void gadget_down(struct gadget *g)
{
	struct plan plan = { 0 };
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		plan.remove[plan.n_remove++] = g->live[i].fn;
	gadget_teardown_begin(g, &plan);
	g->set = -1;
	if (!supervisor_stopping(g->sup) ||
	    supervisor_wait_stopped(g->sup, gadget_down_stopped, g) < 0) {
		gadget_down_end(g);
		return;
	}
	g->down_wait = true;
}

static void gadget_txn_report(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;

	g->txn_report = NULL;
	/* A switch that turned the gadget off ends when it is all down: the
	 * next request (a start-up's fallback, a client's retry) finds it
	 * idle. gadget_down_stopped() reports then. */
	if (g->down_wait)
		return;
	g->txn = NULL;
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
	gadget_run_queue_now(g);
}

/* The result goes to the caller after this round; until then nothing else
 * starts, so the order of replies is the order of transactions. */
/* A user who missed the switch's reply (a reload, a plugin's request, a
 * switch at start-up) reads why in status. */
static void gadget_note_result(struct gadget *g, const struct gadget_txn *t)
{
	switch (t->kind) {
	case GADGET_TXN_SWITCH:
		break;
	case GADGET_TXN_RESTART:
		return;
	}
	if (!t->r) {
		g->failed[0] = '\0';
		return;
	}
	g->failed_when = time(NULL);
	snprintf(g->failed, sizeof(g->failed), "switch to %s: %s", t->name, t->msg);
}

static void gadget_txn_finish(struct gadget *g, int r)
{
	struct gadget_txn *t = g->txn;

	t->r = r;
	gadget_note_result(g, t);
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
	supervisor_wait_stopped_cancel(g->sup);
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
	if (t->save) {
		g->keep_state = false;
		gadget_save(g);
	}
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
		snprintf(t->msg + n, sizeof(t->msg) - n, "%s", GADGET_OFF_NOTE);
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

static bool gadget_left_out(const struct gadget *g, const char *name)
{
	unsigned i;

	for (i = 0; i < g->n_left_out; i++)
		if (!strcmp(g->left_out[i], name))
			return true;
	return false;
}

/*
 * A plugin marked failed (a crash loop) must not keep the rest of the
 * gadget from binding: its worker may have died before writing its
 * descriptors, and the kernel refuses to bind a gadget with such an
 * instance. Link the set without it; the next switch links it again.
 */
static int gadget_link_without_failed(struct gadget *g)
{
	const struct profile_set *s = &g->profile->sets[g->set];
	unsigned i;
	int r;

	r = composer_unlink_all(g->composer);
	for (i = 0; !r && i < s->n_functions; i++) {
		const char *name = g->profile->functions[s->functions[i]].name;

		if (supervisor_failed(g->sup, name)) {
			log_warnx("function %s: left out of the configuration until the "
				  "next switch: its plugin failed", name);
			if (!gadget_left_out(g, name) && g->n_left_out < PLAN_MAX)
				snprintf(g->left_out[g->n_left_out++], PROFILE_NAME_MAX,
					 "%s", name);
			continue;
		}
		r = composer_link(g->composer, name);
	}
	return r;
}

static void gadget_restart_ready(struct gadget *g, int r, const char *err)
{
	struct gadget_txn *t = g->txn;

	if (r < 0)
		log_warnx("%s: restart: %s", t->function, err);
	if (g->profile && g->set >= 0 && supervisor_any_failed(g->sup) &&
	    (r = gadget_link_without_failed(g)) < 0)
		log_warnx("%s: restart: cannot link the other functions: %s",
			  t->function, strerror(-r));
	if (gadget_bind(g, t->msg, sizeof(t->msg)) < 0)
		log_warnx("%s: restart: %s", t->function, t->msg);
	else
		log_info("%s: plugin restarted; gadget bound again", t->function);
	gadget_txn_finish(g, 0);
}

/* Where the current attempt says why it failed: the switch's message,
 * or the rollback's while going back. */
static char *gadget_txn_err(struct gadget_txn *t, size_t *size)
{
	*size = t->rollback ? sizeof(t->back) : sizeof(t->msg);
	return t->rollback ? t->back : t->msg;
}

static void gadget_txn_ready(int r, const char *err, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	size_t size;
	char *msg = gadget_txn_err(t, &size);

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

/* The stopped workers are reaped: go on with the attempt. */
static void gadget_txn_stopped(void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	int r;

	if (t->rollback)
		r = gadget_apply_mid(g, g->profile, g->set, t->back, sizeof(t->back));
	else
		r = gadget_apply_mid(g, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		gadget_txn_attempted(g, r);
}

static void gadget_txn_bind_retry(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	size_t size;
	char *msg = gadget_txn_err(t, &size);
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

/* p (owned by the transaction unless it is g->profile) at set; save:
 * the state file records it once it is live. */
static int gadget_transact(struct gadget *g, struct profile *p, int set,
			   bool save, char *msg, size_t size, gadget_done_fn fn,
			   void *data)
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
	t->save = save;
	profile_set_name(p, set, t->name, sizeof(t->name));
	log_info("switching to %s (profile %s)", t->name, p->name);
	gadget_txn_attempt(g);
	return -EINPROGRESS;
}

static int gadget_switch_save(struct gadget *g, const char *profile,
			      const char *set, bool save, char *msg, size_t size,
			      gadget_done_fn fn, void *data)
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
	/* A failed plugin is started again by a switch, even to this set. */
	if (p == g->profile && idx == g->set && composer_bound_udc(g->composer) &&
	    !supervisor_any_failed(g->sup)) {
		char name[GADGET_SET_MAX];
		profile_set_name(p, idx, name, sizeof(name));
		snprintf(msg, size, "%s is already active", name);
		return 0;
	}
	return gadget_transact(g, p, idx, save, msg, size, fn, data);
}

/* What a client or a plugin asks for is what the next start restores. */
int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	return gadget_switch_save(g, profile, set, true, msg, size, fn, data);
}

/* Append to the start-up's story: one line for status, whatever the
 * messages it quotes hold. */
static void gadget_boot_note(struct gadget *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void gadget_boot_note(struct gadget *g, const char *fmt, ...)
{
	size_t n = strlen(g->boot.note);
	char text[2048], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A profile's errors come one a line. */
	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	log_printable(g->boot.note + n, sizeof(g->boot.note) - n, text, strlen(text));
}

/* A failed step's reason, without the "the gadget is off" its switch
 * ended with: the story goes on with the next step. */
static void gadget_boot_failed(struct gadget *g, const char *what,
			       const char *set, const char *why)
{
	size_t n = strlen(why), k = strlen(GADGET_OFF_NOTE);

	if (n >= k && !strcmp(why + n - k, GADGET_OFF_NOTE))
		n -= k;
	g->boot.fell = true;
	gadget_boot_note(g, "%s %s failed: %.*s; ", what, set, (int)n, why);
	log_warnx("start: %s %s failed: %.*s", what, set, (int)n, why);
}

static void gadget_boot_done(int r, const char *msg, void *data);

static void gadget_boot_default(struct gadget *g, char *buf, size_t size)
{
	buf[0] = '\0';
	if (g->profile->default_set >= 0)
		profile_set_name(g->profile, g->profile->default_set, buf, size);
}

/* Start the switch of the current step: 0, -EINPROGRESS (then
 * gadget_boot_done() follows) or a failure. */
static int gadget_boot_step(struct gadget *g, char *msg, size_t size)
{
	const char *set = NULL;

	switch (g->boot.step) {
	case GADGET_BOOT_SAVED:
		log_info("restoring %s (profile %s) from %s", g->boot.saved,
			 g->profile->name, g->cfg->state_file);
		set = g->boot.saved;
		break;
	case GADGET_BOOT_DEFAULT:
		if (g->profile->default_set < 0) {
			snprintf(msg, size, "profile %s has no default set",
				 g->profile->name);
			return -EINVAL;
		}
		break;
	case GADGET_BOOT_DONE:
		return 0;
	}
	return gadget_switch_save(g, NULL, set, !g->keep_state, msg, size,
				  gadget_boot_done, g);
}

/*
 * A step ended with r: note it, and go on with the next one if it
 * failed. What the state file names is only overwritten by a set the user
 * now has (the one it names, or the default when there was no usable
 * state), never by a fallback: the next start tries the saved set again.
 */
static int gadget_boot_result(struct gadget *g, int r, char *msg, size_t size)
{
	char def[GADGET_SET_MAX];

	while (r != -EINPROGRESS && g->boot.step != GADGET_BOOT_DONE) {
		gadget_boot_default(g, def, sizeof(def));
		switch (g->boot.step) {
		case GADGET_BOOT_SAVED:
			if (!r) {
				gadget_boot_note(g, "restored %s (profile %s)",
						 g->boot.saved, g->profile->name);
				g->boot.step = GADGET_BOOT_DONE;
				break;
			}
			gadget_boot_failed(g, "saved set", g->boot.saved, msg);
			g->keep_state = true;
			if (!def[0] || !strcmp(def, g->boot.saved)) {
				gadget_boot_note(g, "%s; the gadget is off", def[0] ?
						 "it is the default" : "no default set");
				g->boot.step = GADGET_BOOT_DONE;
				break;
			}
			g->boot.step = GADGET_BOOT_DEFAULT;
			r = gadget_boot_step(g, msg, size);
			break;
		case GADGET_BOOT_DEFAULT:
			if (!r) {
				gadget_boot_note(g, "%s %s (profile %s)", g->boot.saved[0] ?
						 "fell back to default" : "default set", def,
						 g->profile->name);
			} else if (def[0]) {
				gadget_boot_failed(g, "default", def, msg);
				gadget_boot_note(g, "the gadget is off");
			} else {
				g->boot.fell = true;
				gadget_boot_note(g, "%s; the gadget is off", msg);
			}
			g->boot.step = GADGET_BOOT_DONE;
			break;
		case GADGET_BOOT_DONE:
			break;
		}
	}
	/* After a fallback the log and the caller get the whole story. */
	if (r != -EINPROGRESS && g->boot.fell)
		snprintf(msg, size, "start: %s", g->boot.note);
	return r;
}

static void gadget_boot_done(int r, const char *msg, void *data)
{
	struct gadget *g = data;
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", msg);
	/* gadgetd is stopping: no next step. */
	if (g->freeing)
		g->boot.step = GADGET_BOOT_DONE;
	r = gadget_boot_result(g, r, buf, sizeof(buf));
	if (r != -EINPROGRESS && g->boot.fn)
		g->boot.fn(r, buf, g->boot.data);
}

/*
 * Which profile the start-up uses, and which set it tries first: the
 * state file's, unless gadgetd.conf names another profile than when it
 * was saved. A missing, malformed or foreign state means the configured
 * profile's default set.
 */
static const char *gadget_boot_state(struct gadget *g, struct state *st)
{
	const char *conf = g->cfg->profile;
	char err[1024];
	int r;

	r = state_load(g->cfg->state_file, st, err, sizeof(err));
	if (r == -ENOENT)
		return NULL;
	if (r < 0) {
		log_warnx("%s; ignored, starting on the defaults", err);
		gadget_boot_note(g, "state file ignored (%s); ", err);
		return NULL;
	}
	if (st->conf_profile[0] && strcmp(st->conf_profile, conf)) {
		gadget_boot_note(g, "gadgetd.conf names profile %s, not %s as when the "
				 "state was saved: state ignored; ", conf,
				 st->conf_profile);
		return NULL;
	}
	/* A state file from before conf_profile applies to gadgetd.conf's
	 * profile only, as it did then. */
	if (!st->conf_profile[0] && strcmp(st->profile, conf))
		return NULL;
	return st->profile;
}

int gadget_start(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		 void *data)
{
	const char *conf = g->cfg->profile, *saved;
	struct state st;
	int r;

	g->boot = (struct gadget_boot){ .fn = fn, .data = data };
	saved = gadget_boot_state(g, &st);
	r = gadget_load_profile(g, saved ? saved : conf, &g->profile, msg, size);
	if (r < 0 && saved && strcmp(saved, conf)) {
		gadget_boot_failed(g, "saved profile", saved, msg);
		gadget_boot_note(g, "fell back to profile %s; ", conf);
		g->keep_state = true;
		saved = NULL;
		r = gadget_load_profile(g, conf, &g->profile, msg, size);
	}
	if (r < 0) {
		gadget_boot_failed(g, "profile", conf, msg);
		gadget_boot_note(g, "the gadget is off");
		g->boot.step = GADGET_BOOT_DONE;
		snprintf(msg, size, "start: %s", g->boot.note);
		return r;
	}
	if (saved && !st.set[0]) {
		gadget_boot_note(g, "off before the restart (profile %s): staying off",
				 g->profile->name);
		snprintf(msg, size, "gadget was off before restart; staying off");
		g->boot.step = GADGET_BOOT_DONE;
		return 0;
	}
	snprintf(g->boot.saved, sizeof(g->boot.saved), "%s", saved ? st.set : "");
	g->boot.step = saved ? GADGET_BOOT_SAVED : GADGET_BOOT_DEFAULT;
	r = gadget_boot_step(g, msg, size);
	return gadget_boot_result(g, r, msg, size);
}

int gadget_off(struct gadget *g, char *msg, size_t size)
{
	if (gadget_busy(g))
		return gadget_refuse_busy(g, msg, size);
	gadget_down(g);
	g->keep_state = false;
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
	return gadget_transact(g, p, idx, !g->keep_state, msg, size, fn, data);
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

/*
 * Whether function's worker may ask for request: only an accessory plugin
 * of the set that runs, and only for its accessory_set or "revert". The
 * worker parses what a USB host sends and may be subverted; what it may
 * ask is read from the profile gadgetd loaded, never from the worker.
 * 0, or -EPERM with why in msg.
 */
static int gadget_plugin_allowed(const struct gadget *g, const char *function,
				 const char *request, char *msg, size_t size)
{
	const struct profile_function *f =
		g->profile ? profile_function_find(g->profile, function) : NULL;
	const char *set, *adb;
	char err[256];
	unsigned i;
	int want;

	if (!f || !f->plugin || strcmp(f->plugin, "accessory")) {
		snprintf(msg, size, "only the accessory plugin may ask for a switch");
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
	set = profile_option(f, "accessory_set");
	adb = profile_option(f, "with_adb");
	if (!set)
		set = accessory_opts_default_set(optdesc_bool(adb) == 1);
	want = profile_set_find(g->profile, set, err, sizeof(err));
	if (want < 0 || profile_set_find(g->profile, request, err, sizeof(err)) != want) {
		snprintf(msg, size, "it may only ask for its accessory_set (%s) or revert", set);
		return -EPERM;
	}
	return 0;
}

static void gadget_plugin_request(const char *function, const char *request,
				  void *data)
{
	struct gadget *g = data;
	char why[GADGET_SET_MAX + 96];

	if (gadget_plugin_allowed(g, function, request, why, sizeof(why)) < 0) {
		if (log_burst_ok(&g->refused_log))
			log_warnx("%s: switch to \"%.64s\" refused: %s", function,
				  request, why);
		return;
	}
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

	/* Bind again afterwards whenever the gadget is on, bound or not: the
	 * kernel unbinds it by itself on a host reset or unplug while a
	 * worker is dead, an earlier restart whose worker died before it was
	 * ready left it unbound (the kernel refuses the bind), or the plugin
	 * failed and the rest binds without it. */
	if (g->set < 0)
		return supervisor_respawn(g->sup, function);
	/* Failed and already left out (by the restart that saw it fail),
	 * the rest bound: binding once more would only re-enumerate it. */
	if (composer_bound_udc(g->composer) && gadget_left_out(g, function) &&
	    supervisor_failed(g->sup, function))
		return 0;
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
		gadget_restart_ready(g, r, r == -ENOENT ? "gone"
				     : r == -ENOTRECOVERABLE ? "its plugin failed"
				     : strerror(-r));
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
	if (r == -EAGAIN && g->udc_tries < GADGET_UDC_TRIES) {
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

/*
 * The plugin's reply goes to an admin's terminal. It may quote what a USB
 * host chose (an adb key's comment) and the worker may be subverted: only
 * printable text and newlines pass, the rest as \xNN (log_printable_lines).
 */
static void gadget_cmd_done(int rc, const char *reply, void *data)
{
	struct gadget_cmd *c = data, **pp;
	struct gadget *g = c->g;
	size_t len = reply ? strlen(reply) : 0;
	char *safe = malloc(4 * len + 1);

	for (pp = &g->cmds; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	g->n_cmds--;
	if (safe)
		log_printable_lines(safe, 4 * len + 1, reply, len);
	if (c->fn)
		c->fn(safe ? rc : -ENOMEM, safe ? safe : "out of memory", c->data);
	free(safe);
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

/* A profile that would not load, with the reason on one line: list shows
 * it, as gadgetd only checks a profile when it is used. */
static void gadget_list_broken(struct gadget *g, FILE *out, const char *name)
{
	char err[2048], *p;
	struct profile *prof;

	if (g->profile && !strcmp(name, g->profile->name))
		return;
	if (gadget_load_profile(g, name, &prof, err, sizeof(err)) == 0) {
		profile_free(prof);
		return;
	}
	for (p = err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(out, "broken profile %s: %s\n", name, err);
}

struct gadget_list_ctx {
	struct gadget *g;
	FILE *out;
	bool broken; /* second pass: the ones that do not load */
};

static void gadget_list_entry(const struct config_profile_entry *e, void *data)
{
	struct gadget_list_ctx *c = data;

	if (!e->name || !e->regular)
		return;
	if (c->broken)
		gadget_list_broken(c->g, c->out, e->name);
	else
		fprintf(c->out, " %s", e->name);
}

/* Every profile that `gadgetctl switch --profile NAME` could name; then
 * the ones that do not load, one a line, with the reason. */
static void gadget_list_profiles(struct gadget *g, FILE *out)
{
	struct gadget_list_ctx c = { .g = g, .out = out };

	fprintf(out, "profiles in %s:", g->cfg->profile_dir);
	config_profile_scan(g->cfg, gadget_list_entry, &c);
	fputc('\n', out);
	c.broken = true;
	config_profile_scan(g->cfg, gadget_list_entry, &c);
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
	fprintf(out, "boot: %s\n", g->boot.note[0] ? g->boot.note : "starting");
	if (g->failed[0]) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 localtime(&g->failed_when));
		fprintf(out, "last failure: %s: %s\n", when, g->failed);
	}
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
	/* Every string through json_str(): the UDC's name and state come
	 * from sysfs, the boot note quotes profile errors and workers. */
	fprintf(out, "{\"profile\":");
	json_str(out, g->profile ? g->profile->name : "");
	fprintf(out, ",\"set\":");
	json_str(out, g->set >= 0 ? set : "");
	fprintf(out, ",\"switching\":%s,\"udc\":", g->txn ? "true" : "false");
	json_str(out, udc ? udc : "");
	fprintf(out, ",\"udc_state\":");
	json_str(out, state);
	fprintf(out, ",\"speed\":");
	json_str(out, speed);
	fprintf(out, ",\"switches\":%u,"
		"\"last_switch\":{\"time\":%lld,\"teardown_ms\":%u,"
		"\"ready_ms\":%u,\"bind_ms\":%u,\"total_ms\":%u},",
		g->switches, (long long)g->timing.when, g->timing.teardown_ms,
		g->timing.ready_ms, g->timing.bind_ms, g->timing.total_ms);
	fprintf(out, "\"boot\":");
	json_str(out, g->boot.note);
	fprintf(out, ",\"plugins\":[");
	supervisor_status(g->sup, out, true);
	fprintf(out, "],\"last_failure\":{\"time\":%lld,\"message\":",
		g->failed[0] ? (long long)g->failed_when : 0LL);
	json_str(out, g->failed);
	fprintf(out, "}}\n");
}
