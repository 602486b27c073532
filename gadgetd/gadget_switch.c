#include "gadget_int.h"
#include "composer.h"
#include "event.h"
#include "log.h"
#include "loop.h"
#include "netsvc.h"
#include "plan.h"
#include "profile.h"
#include "supervisor.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct plan_live *gadget_switch_live_find(struct gadget *g, const char *name)
{
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		if (!strcmp(g->live[i].fn.name, name))
			return &g->live[i];
	return NULL;
}

static void gadget_switch_live_drop(struct gadget *g, const char *name)
{
	struct plan_live *l = gadget_switch_live_find(g, name);

	if (l)
		*l = g->live[--g->n_live];
}

/*
 * A teardown has two halves: unbind and stop the workers, then, once
 * every stopped worker is reaped (supervisor_wait_stopped), unlink and
 * remove the functions. A FunctionFS function must not go while its
 * worker still holds the instance's files, and nothing waits in between.
 */
static int gadget_switch_teardown_begin(struct gadget *g, const struct plan *plan)
{
	unsigned i;
	int r;

	/* Addresses, DHCP and mDNS go before the functions do. */
	netsvc_down(g->net);
	r = composer_unbind(g->composer);
	if (r < 0)
		return r;
	for (i = 0; i < plan->n_remove; i++)
		supervisor_stop(g->sup, plan->remove[i].name);
	return 0;
}

static int gadget_switch_teardown_end(struct gadget *g, const struct plan *plan)
{
	unsigned i;
	int r;

	r = composer_unlink_all(g->composer);
	for (i = 0; !r && i < plan->n_remove; i++) {
		r = composer_remove_function(g->composer, plan->remove[i].name);
		if (!r)
			gadget_switch_live_drop(g, plan->remove[i].name);
	}
	return r;
}

static int gadget_switch_create(struct gadget *g, const struct profile_function *f,
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
int gadget_switch_bind(struct gadget *g, char *msg, size_t size)
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

static void gadget_switch_txn_stopped(void *data);

/* Each configuration's functions into it, c.1 first. A failure leaves
 * links behind; the rollback's teardown unlinks every configuration. */
static int gadget_switch_link(struct gadget *g, const struct profile_set *s,
			      const struct profile *p, char *msg, size_t size)
{
	unsigned c, i;
	int r;

	for (c = 0; c < s->n_configs; c++)
		for (i = 0; i < s->configs[c].n_functions; i++) {
			const char *name = p->functions[s->configs[c].functions[i]].name;

			r = composer_link(g->composer, c, name);
			if (r < 0 && s->n_configs == 1) {
				snprintf(msg, size, "function %s: cannot link it into the configuration: %s",
					 name, strerror(-r));
				return r;
			}
			if (r < 0) {
				snprintf(msg, size, "function %s: cannot link it into configuration %u: %s",
					 name, c + 1, strerror(-r));
				return r;
			}
		}
	return 0;
}

/* The first part of one attempt at making set of p live: unbind and stop
 * the workers of the functions that go; gadget_switch_txn_stopped() goes on once
 * they are reaped. Failed plugins of the functions that stay get another
 * chance now that the gadget is unbound. */
static int gadget_switch_apply_begin(struct gadget *g, const struct profile *p,
			      unsigned set, char *msg, size_t size)
{
	struct gadget_txn *t = g->txn;
	int r;

	t->t0 = loop_now_ms();
	/* Once an attempt: g->live changes only in the teardown's end. */
	plan_compute(g->live, g->n_live, p, set, &t->plan);
	r = gadget_switch_teardown_begin(g, &t->plan);
	if (r < 0) {
		snprintf(msg, size, "cannot take the previous set down: %s", strerror(-r));
		return r;
	}
	supervisor_revive(g->sup);
	r = supervisor_wait_stopped(g->sup, gadget_switch_txn_stopped, g);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the workers to stop: %s",
			 strerror(-r));
	return r;
}

/* The middle: the old functions go, the new ones come, and a wait for
 * the plugins ends in gadget_switch_txn_ready(). */
static int gadget_switch_apply_mid(struct gadget *g, const struct profile *p,
			    unsigned set, char *msg, size_t size)
{
	const struct profile_set *s = &p->sets[set];
	struct gadget_txn *t = g->txn;
	const struct plan *plan = &t->plan;
	unsigned i;
	int r;

	g->n_left_out = 0;
	r = gadget_switch_teardown_end(g, plan);
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
	for (i = 0; !r && i < plan->n_create; i++)
		r = gadget_switch_create(g, plan->create[i], msg, size);
	if (r < 0)
		return r;
	r = gadget_switch_link(g, s, p, msg, size);
	if (r < 0)
		return r;
	r = supervisor_wait_ready(g->sup, g->cfg->ready_timeout_ms,
				  gadget_switch_txn_ready, g);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the plugins: %s", strerror(-r));
	return r;
}

static void gadget_switch_txn_bind_retry(struct loop_watch *w, void *data);

/* The second half: the plugins are ready, bind. -EINPROGRESS: the UDC was
 * busy, and gadget_switch_txn_bind_retry() tries again. */
static int gadget_switch_apply_end(struct gadget *g, char *msg, size_t size)
{
	struct gadget_txn *t = g->txn;
	int r;

	if (!t->bind_tries)
		t->t2 = loop_now_ms();
	r = gadget_switch_bind(g, msg, size);
	if (r == -EAGAIN && t->bind_tries < GADGET_UDC_TRIES) {
		t->bind_timer = loop_add_timer(g->loop, 100u << t->bind_tries++,
					       gadget_switch_txn_bind_retry, g);
		if (t->bind_timer)
			return -EINPROGRESS;
	}
	t->bind_tries = 0;
	if (r == -EAGAIN)
		r = -EBUSY;
	if (r < 0)
		return r;
	netsvc_bound(g->net);
	g->timing.when = time(NULL);
	/* Milliseconds of one switch: far below 2^32. */
	g->timing.teardown_ms = (unsigned)(t->t1 - t->t0);
	g->timing.ready_ms = (unsigned)(t->t2 - t->t1);
	g->timing.bind_ms = (unsigned)(loop_now_ms() - t->t2);
	g->timing.total_ms = (unsigned)(loop_now_ms() - t->t0);
	return 0;
}

static void gadget_switch_txn_report(struct loop_watch *w, void *data);

/* The rest of gadget_switch_down(), once the workers are reaped. */
static void gadget_switch_down_end(struct gadget *g)
{
	struct plan plan = { 0 };
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		plan.remove[plan.n_remove++] = g->live[i].fn;
	gadget_switch_teardown_end(g, &plan);
	composer_destroy(g->composer);
	g->n_live = 0;
}

static void gadget_switch_down_stopped(void *data)
{
	struct gadget *g = data;

	g->down_wait = false;
	gadget_switch_down_end(g);
	if (g->txn && g->txn->finished && !g->txn_report) {
		gadget_switch_txn_report(NULL, g);
		return;
	}
	gadget_queue_run_now(g);
}

/* Off, or going back failed too: leave nothing half-built behind. The
 * gadget is unbound at once; its functions go once their workers are
 * reaped, and until then the gadget is busy. */
void gadget_switch_down(struct gadget *g)
{
	struct plan plan = { 0 };
	unsigned i;

	for (i = 0; i < g->n_live; i++)
		plan.remove[plan.n_remove++] = g->live[i].fn;
	gadget_switch_teardown_begin(g, &plan);
	g->set = -1;
	if (!supervisor_stopping(g->sup) ||
	    supervisor_wait_stopped(g->sup, gadget_switch_down_stopped, g) < 0) {
		gadget_switch_down_end(g);
		return;
	}
	g->down_wait = true;
}

/* A switch's end, for monitors and D-Bus: the set now up, or why not. */
static void gadget_switch_txn_told(const struct gadget_txn *t)
{
	switch (t->kind) {
	case GADGET_TXN_SWITCH:
		event_emit(EVENT_SWITCH_DONE, NULL, t->r ? t->msg : t->name, t->r);
		return;
	case GADGET_TXN_RESTART:
		return;
	}
}

static void gadget_switch_txn_report(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;

	g->txn_report = NULL;
	/* A switch that turned the gadget off ends when it is all down: the
	 * next request (a start-up's fallback, a client's retry) finds it
	 * idle. gadget_switch_down_stopped() reports then. */
	if (g->down_wait)
		return;
	g->txn = NULL;
	gadget_switch_txn_told(t);
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
	gadget_queue_run_now(g);
}

/* The result goes to the caller after this round; until then nothing else
 * starts, so the order of replies is the order of transactions. */
/* A user who missed the switch's reply (a reload, a plugin's request, a
 * switch at start-up) reads why in status. */
static void gadget_switch_note_result(struct gadget *g, const struct gadget_txn *t)
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

void gadget_switch_txn_finish(struct gadget *g, int r)
{
	struct gadget_txn *t = g->txn;

	t->r = r;
	gadget_switch_note_result(g, t);
	t->finished = true;
	if (t->p != g->profile)
		profile_free(t->p);
	t->p = NULL;
	netsvc_sync(g->net);
	gadget_host_sync(g);
	g->txn_report = loop_add_idle(g->loop, gadget_switch_txn_report, g);
	if (!g->txn_report)
		gadget_switch_txn_report(NULL, g);
}

/* gadget_free() during a transaction: stop waiting, answer now. */
void gadget_switch_txn_drop(struct gadget *g)
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
	gadget_switch_txn_told(t);
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
}

static void gadget_switch_txn_commit(struct gadget *g)
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

static void gadget_switch_txn_attempt(struct gadget *g);

/* One attempt ended with r: commit, roll back, or give up. */
static void gadget_switch_txn_attempted(struct gadget *g, int r)
{
	struct gadget_txn *t = g->txn;
	size_t n = strlen(t->msg);
	char old[GADGET_SET_MAX];

	if (!t->rollback) {
		if (!r) {
			gadget_switch_txn_commit(g);
			gadget_switch_txn_finish(g, 0);
			return;
		}
		log_warnx("switch to %s failed: %s", t->name, t->msg);
		if (g->profile && g->set >= 0) {
			t->r = r;
			t->rollback = true;
			gadget_switch_txn_attempt(g);
			return;
		}
		gadget_switch_down(g);
		snprintf(t->msg + n, sizeof(t->msg) - n, "%s", GADGET_OFF_NOTE);
		gadget_switch_txn_finish(g, r);
		return;
	}
	profile_set_name(g->profile, g->set, old, sizeof(old));
	if (r < 0) {
		gadget_switch_down(g);
		log_warnx("rollback to %s failed too: %s", old, t->back);
		snprintf(t->msg + n, sizeof(t->msg) - n,
			 "; rollback to %s failed (%s): the gadget is off", old, t->back);
	} else {
		snprintf(t->msg + n, sizeof(t->msg) - n, "; rolled back to %s", old);
	}
	gadget_switch_txn_finish(g, t->r);
}

static void gadget_switch_txn_attempt(struct gadget *g)
{
	struct gadget_txn *t = g->txn;
	int r;

	if (t->rollback)
		r = gadget_switch_apply_begin(g, g->profile, g->set, t->back, sizeof(t->back));
	else
		r = gadget_switch_apply_begin(g, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		gadget_switch_txn_attempted(g, r);
}

/* Where the current attempt says why it failed: the switch's message,
 * or the rollback's while going back. */
static char *gadget_switch_txn_err(struct gadget_txn *t, size_t *size)
{
	*size = t->rollback ? sizeof(t->back) : sizeof(t->msg);
	return t->rollback ? t->back : t->msg;
}

void gadget_switch_txn_ready(int r, const char *err, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	size_t size;
	char *msg = gadget_switch_txn_err(t, &size);

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
		r = gadget_switch_apply_end(g, msg, size);
	if (r != -EINPROGRESS)
		gadget_switch_txn_attempted(g, r);
}

/* The stopped workers are reaped: go on with the attempt. */
static void gadget_switch_txn_stopped(void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	int r;

	if (t->rollback)
		r = gadget_switch_apply_mid(g, g->profile, g->set, t->back, sizeof(t->back));
	else
		r = gadget_switch_apply_mid(g, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		gadget_switch_txn_attempted(g, r);
}

static void gadget_switch_txn_bind_retry(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	struct gadget_txn *t = g->txn;
	size_t size;
	char *msg = gadget_switch_txn_err(t, &size);
	int r;

	loop_watch_remove(w);
	t->bind_timer = NULL;
	r = gadget_switch_apply_end(g, msg, size);
	if (r != -EINPROGRESS)
		gadget_switch_txn_attempted(g, r);
}

struct gadget_txn *gadget_switch_txn_new(struct gadget *g,
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
int gadget_switch_transact(struct gadget *g, struct profile *p, int set,
			   bool save, char *msg, size_t size, gadget_done_fn fn,
			   void *data)
{
	struct gadget_txn *t = gadget_switch_txn_new(g, GADGET_TXN_SWITCH, fn, data);

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
	event_emit(EVENT_SWITCH_BEGUN, NULL, t->name, 0);
	gadget_switch_txn_attempt(g);
	return -EINPROGRESS;
}

int gadget_switch_save(struct gadget *g, const char *profile,
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
	/* The board may have gained an address since the profile was loaded. */
	if (netsvc_clash(g->net, p, idx, msg, size) < 0) {
		if (p != g->profile)
			profile_free(p);
		return -EINVAL;
	}
	/* A failed plugin is started again by a switch, even to this set. */
	if (p == g->profile && idx == g->set && composer_bound_udc(g->composer) &&
	    !supervisor_any_failed(g->sup)) {
		char name[GADGET_SET_MAX];
		profile_set_name(p, idx, name, sizeof(name));
		snprintf(msg, size, "%s is already active", name);
		return 0;
	}
	return gadget_switch_transact(g, p, idx, save, msg, size, fn, data);
}

/* What a client asks for is what the next start restores. */
int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	return gadget_switch_save(g, profile, set, true, msg, size, fn, data);
}
