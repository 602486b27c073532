/*
 * txn: the transaction on the live gadget (txn.h).
 */
#include "txn.h"
#include "composer.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "loop.h"
#include "netsvc.h"
#include "plan.h"
#include "profile.h"
#include "supervisor.h"
#include "udc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum txn_kind {
	TXN_SWITCH,   /* a switch or a reload: rolls back on failure */
	TXN_RESTART,  /* a crashed worker again, the gadget unbound */
};

struct txn {
	const struct txn_env *env;
	const struct txn_ops *ops;
	void *ops_data;
	enum txn_kind kind;
	/* What was live when it began: the rollback's target. */
	const struct profile *cur;
	int cur_set;
	struct profile *p;    /* the target; freed here unless it went live */
	int set;
	char name[PROFILE_SET_NAME_MAX];
	char function[PROFILE_NAME_MAX];  /* restart */
	bool rollback;        /* applying cur and cur_set again */
	bool save;            /* the state file records the set on success */
	bool finished;        /* the result waits for txn_report */
	bool down_wait;       /* the owner takes the gadget down (ops->off) */
	int r;
	/* The attempt's plan, computed once at its start (the teardown's
	 * end uses it too, and the functions to create). */
	struct plan plan;
	uint64_t t0, t1, t2;
	/* A bind refused as busy while the UDC is still registering. */
	struct loop_watch *bind_timer;
	unsigned bind_tries;
	struct loop_watch *report;
	char msg[4096];
	char back[512];
	txn_done_fn fn;
	void *data;
};

static struct plan_live *txn_live_find(struct txn_live *live, const char *name)
{
	unsigned i;

	for (i = 0; i < live->n; i++)
		if (!strcmp(live->fn[i].fn.name, name))
			return &live->fn[i];
	return NULL;
}

static void txn_live_drop(struct txn_live *live, const char *name)
{
	struct plan_live *l = txn_live_find(live, name);

	if (l)
		*l = live->fn[--live->n];
}

/*
 * A teardown has two halves: unbind and stop the workers, then, once
 * every stopped worker is reaped (supervisor_wait_stopped), unlink and
 * remove the functions. A FunctionFS function must not go while its
 * worker still holds the instance's files, and nothing waits in between.
 */
static int txn_teardown_begin(const struct txn_env *e, const struct plan *plan)
{
	unsigned i;
	int r;

	/* Addresses, DHCP, mDNS and logins went before (netsvc_down(),
	 * netsvc_wait_down()); this does it again for nothing. */
	netsvc_down(e->net);
	r = composer_unbind(e->composer);
	if (r < 0)
		return r;
	for (i = 0; i < plan->n_remove; i++)
		supervisor_stop(e->sup, plan->remove[i].name);
	return 0;
}

static int txn_teardown_end(const struct txn_env *e, const struct plan *plan)
{
	unsigned i;
	int r;

	r = composer_unlink_all(e->composer);
	for (i = 0; !r && i < plan->n_remove; i++) {
		r = composer_remove_function(e->composer, plan->remove[i].name);
		if (!r)
			txn_live_drop(e->live, plan->remove[i].name);
	}
	return r;
}

static int txn_create(const struct txn_env *e, const struct profile_function *f,
		      char *msg, size_t size)
{
	struct plan_live *l;
	int r;

	r = composer_add_function(e->composer, f);
	if (r < 0) {
		snprintf(msg, size, "function %s: cannot create %s function in ConfigFS: %s",
			 f->name, profile_ftype_name(f->type), strerror(-r));
		return r;
	}
	l = &e->live->fn[e->live->n++];
	l->fn.type = f->type;
	snprintf(l->fn.name, sizeof(l->fn.name), "%s", f->name);
	plan_signature(f, l->sig, sizeof(l->sig));
	if (!f->type->ffs)
		return 0;
	r = supervisor_start(e->sup, f);
	if (r < 0 && supervisor_start_error(e->sup)[0])
		snprintf(msg, size, "function %s: cannot start %s %s: %s",
			 f->name, f->plugin ? "plugin" : "program",
			 f->plugin ? f->plugin : f->exec, supervisor_start_error(e->sup));
	else if (r < 0)
		snprintf(msg, size, "function %s: cannot start %s %s: %s",
			 f->name, f->plugin ? "plugin" : "program",
			 f->plugin ? f->plugin : f->exec, strerror(-r));
	return r;
}

/* -EAGAIN: refused as busy while the UDC was still registering, worth
 * another try. Any other busy refusal is final: on Linux 6.1 a network
 * function whose bind failed once crashes the kernel when bound again. */
int txn_bind(const struct txn_env *e, char *msg, size_t size)
{
	char *udc = e->live->udc;
	bool registering;
	int r;

	if (udc_pick(e->cfg->udc, udc, sizeof(e->live->udc)) < 0) {
		udc[0] = '\0';
		log_info("no UDC matches \"%s\" yet; binding when one appears",
			 e->cfg->udc);
		return 0;
	}
	registering = !udc_registered(udc);
	r = composer_bind(e->composer, udc);
	if (r == -EBUSY && !registering) {
		char who[128];

		/* Linux answers EBUSY both for a UDC another gadget holds
		 * and for a function that failed to bind to this one. */
		udc_function(udc, who, sizeof(who));
		if (who[0])
			snprintf(msg, size, "cannot bind the gadget to UDC %s: "
				 "gadget \"%s\" holds it", udc, who);
		else
			snprintf(msg, size, "cannot bind the gadget to UDC %s: a "
				 "function failed to bind to it (the kernel log's "
				 "\"udc %s: failed to start\" line has the error; e.g. "
				 "-19: the UDC lacks an endpoint type it needs)",
				 udc, udc);
	} else if (r < 0) {
		snprintf(msg, size, "cannot bind the gadget to UDC %s: %s", udc,
			 strerror(-r));
	}
	return r == -EBUSY && registering ? -EAGAIN : r;
}

static void txn_stopped(void *data);
static void txn_net_down(void *data);
static void txn_attempted(struct txn *t, int r);
static char *txn_err(struct txn *t, size_t *size);

/* Each configuration's functions into it, c.1 first. A failure leaves
 * links behind; the rollback's teardown unlinks every configuration. */
static int txn_link(const struct txn_env *e, const struct profile_set *s,
		    const struct profile *p, char *msg, size_t size)
{
	unsigned c, i;
	int r;

	for (c = 0; c < s->n_configs; c++)
		for (i = 0; i < s->configs[c].n_functions; i++) {
			const char *name = p->functions[s->configs[c].functions[i]].name;

			r = composer_link(e->composer, c, name);
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

/* Once the links and logins are down: unbind and stop the workers of the
 * functions that go; txn_stopped() goes on once they are reaped. Failed
 * plugins of the functions that stay get another chance now that the
 * gadget is unbound. */
static int txn_apply_unbind(struct txn *t, char *msg, size_t size)
{
	const struct txn_env *e = t->env;
	int r;

	r = txn_teardown_begin(e, &t->plan);
	if (r < 0) {
		snprintf(msg, size, "cannot take the previous set down: %s", strerror(-r));
		return r;
	}
	supervisor_revive(e->sup);
	r = supervisor_wait_stopped(e->sup, txn_stopped, t);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the workers to stop: %s",
			 strerror(-r));
	return r;
}

/* The first part of one attempt at making set of p live: the links and
 * the serial ports' logins go, and the unbind waits for the logins'
 * stops (systemd reopening a tty while its function goes oopsed 6.1's
 * u_serial: console_unit.c); txn_net_down() goes on then. */
static int txn_apply_begin(struct txn *t, const struct profile *p, unsigned set,
			   char *msg, size_t size)
{
	const struct txn_env *e = t->env;

	t->t0 = loop_now_ms();
	/* Once an attempt: the live functions change only in the
	 * teardown's end. */
	plan_compute(e->live->fn, e->live->n, p, set, &t->plan);
	netsvc_down(e->net);
	if (netsvc_wait_down(e->net, txn_net_down, t) == -EINPROGRESS)
		return 0;
	return txn_apply_unbind(t, msg, size);
}

static void txn_net_down(void *data)
{
	struct txn *t = data;
	size_t size;
	char *msg = txn_err(t, &size);
	int r = txn_apply_unbind(t, msg, size);

	if (r < 0)
		txn_attempted(t, r);
}

static void txn_ready(int r, const char *err, void *data);

/* The middle: the old functions go, the new ones come, and a wait for
 * the plugins ends in txn_ready(). */
static int txn_apply_mid(struct txn *t, const struct profile *p, unsigned set,
			 char *msg, size_t size)
{
	const struct txn_env *e = t->env;
	const struct profile_set *s = &p->sets[set];
	const struct plan *plan = &t->plan;
	unsigned i;
	int r;

	e->live->n_left_out = 0;
	r = txn_teardown_end(e, plan);
	if (r < 0) {
		snprintf(msg, size, "cannot take the previous set down: %s", strerror(-r));
		return r;
	}
	t->t1 = loop_now_ms();
	r = composer_identity(e->composer, p, set);
	if (r < 0) {
		snprintf(msg, size, "cannot set the gadget identity: %s", strerror(-r));
		return r;
	}
	for (i = 0; !r && i < plan->n_create; i++)
		r = txn_create(e, plan->create[i], msg, size);
	if (r < 0)
		return r;
	r = txn_link(e, s, p, msg, size);
	if (r < 0)
		return r;
	r = supervisor_wait_ready(e->sup, e->cfg->ready_timeout_ms, txn_ready, t);
	if (r < 0)
		snprintf(msg, size, "cannot wait for the plugins: %s", strerror(-r));
	return r;
}

static void txn_bind_retry(struct loop_watch *w, void *data);

/* The second half: the plugins are ready, bind. -EINPROGRESS: the UDC was
 * busy, and txn_bind_retry() tries again. */
static int txn_apply_end(struct txn *t, char *msg, size_t size)
{
	const struct txn_env *e = t->env;
	struct txn_timing *tm = &e->live->timing;
	int r;

	if (!t->bind_tries)
		t->t2 = loop_now_ms();
	r = txn_bind(e, msg, size);
	if (r == -EAGAIN && t->bind_tries < TXN_BIND_TRIES) {
		t->bind_timer = loop_add_timer(e->loop, 100u << t->bind_tries++,
					       txn_bind_retry, t);
		if (t->bind_timer)
			return -EINPROGRESS;
	}
	t->bind_tries = 0;
	if (r == -EAGAIN)
		r = -EBUSY;
	if (r < 0)
		return r;
	netsvc_bound(e->net);
	tm->when = time(NULL);
	/* Milliseconds of one switch: far below 2^32. */
	tm->teardown_ms = (unsigned)(t->t1 - t->t0);
	tm->ready_ms = (unsigned)(t->t2 - t->t1);
	tm->bind_ms = (unsigned)(loop_now_ms() - t->t2);
	tm->total_ms = (unsigned)(loop_now_ms() - t->t0);
	return 0;
}

/* Every live function goes. */
static void txn_plan_all(const struct txn_live *live, struct plan *plan)
{
	unsigned i;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < live->n; i++)
		plan->remove[plan->n_remove++] = live->fn[i].fn;
}

void txn_down_end(const struct txn_env *e)
{
	struct plan plan;

	txn_plan_all(e->live, &plan);
	txn_teardown_end(e, &plan);
	composer_destroy(e->composer);
	e->live->n = 0;
}

/* Off, or going back failed too: leave nothing half-built behind. The
 * gadget is unbound at once; its functions go once their workers are
 * reaped, and until then the owner is busy. */
int txn_down_net(const struct txn_env *e, void (*fn)(void *data), void *data)
{
	netsvc_down(e->net);
	return netsvc_wait_down(e->net, fn, data);
}

int txn_down_begin(const struct txn_env *e, supervisor_stopped_fn fn, void *data)
{
	struct plan plan;

	txn_plan_all(e->live, &plan);
	txn_teardown_begin(e, &plan);
	if (!supervisor_stopping(e->sup) ||
	    supervisor_wait_stopped(e->sup, fn, data) < 0) {
		txn_down_end(e);
		return 0;
	}
	return -EINPROGRESS;
}

/* A switch's end, for monitors and D-Bus: the set now up, or why not. */
static void txn_told(const struct txn *t)
{
	switch (t->kind) {
	case TXN_SWITCH:
		event_emit(EVENT_SWITCH_DONE, NULL, t->r ? t->msg : t->name, t->r);
		return;
	case TXN_RESTART:
		return;
	}
}

static void txn_report(struct loop_watch *w, void *data)
{
	struct txn *t = data;
	const struct txn_ops *ops = t->ops;
	void *ops_data = t->ops_data;

	t->report = NULL;
	/* A switch that turned the gadget off ends when it is all down: the
	 * next request (a start-up's fallback, a client's retry) finds it
	 * idle. txn_down_done() reports then. */
	if (t->down_wait)
		return;
	ops->ended(ops_data);
	txn_told(t);
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
	ops->idle(ops_data);
}

bool txn_down_done(struct txn *t)
{
	t->down_wait = false;
	if (!t->finished || t->report)
		return false;
	txn_report(NULL, t);
	return true;
}

/* The result goes to the caller after this round; until then nothing else
 * starts, so the order of replies is the order of transactions. */
static void txn_finish(struct txn *t, int r)
{
	t->r = r;
	t->finished = true;
	if (t->p != t->cur)
		profile_free(t->p);
	t->p = NULL;
	netsvc_sync(t->env->net);
	t->ops->finished(t->kind == TXN_SWITCH ? t->name : "", r, t->msg, t->ops_data);
	t->report = loop_add_idle(t->env->loop, txn_report, t);
	if (!t->report)
		txn_report(NULL, t);
}

void txn_drop(struct txn *t)
{
	if (!t)
		return;
	supervisor_wait_cancel(t->env->sup);
	supervisor_wait_stopped_cancel(t->env->sup);
	netsvc_wait_down_cancel(t->env->net);
	loop_watch_remove(t->bind_timer);
	loop_watch_remove(t->report);
	if (!t->finished) {
		if (t->p != t->cur)
			profile_free(t->p);
		t->r = -ECANCELED;
		snprintf(t->msg, sizeof(t->msg), "gadgetd is stopping; the switch to %s "
			 "did not finish", t->name);
	}
	txn_told(t);
	if (t->fn)
		t->fn(t->r, t->msg, t->data);
	free(t);
}

void txn_cancel(struct txn *t, void *data)
{
	if (t->data == data)
		t->fn = NULL;
}

bool txn_switching(const struct txn *t)
{
	return t->kind == TXN_SWITCH && !t->finished;
}

const struct profile *txn_target(const struct txn *t)
{
	return t->p;
}

static void txn_commit(struct txn *t)
{
	t->ops->commit(t->p, t->set, t->save, t->ops_data);
	/* The owner's now. */
	t->cur = t->p;
	t->cur_set = t->set;
	snprintf(t->msg, sizeof(t->msg), "switched to %s (profile %s) in %u ms%s",
		 t->name, t->p->name, t->env->live->timing.total_ms,
		 t->env->live->udc[0] ? "" : "; waiting for a UDC");
}

static void txn_attempt(struct txn *t);

/* The gadget goes off: the owner takes it down. */
static void txn_off(struct txn *t)
{
	t->down_wait = t->ops->off(t->ops_data);
}

/* One attempt ended with r: commit, roll back, or give up. */
static void txn_attempted(struct txn *t, int r)
{
	size_t n = strlen(t->msg);
	char old[PROFILE_SET_NAME_MAX];

	if (!t->rollback) {
		if (!r) {
			txn_commit(t);
			txn_finish(t, 0);
			return;
		}
		log_warnx("switch to %s failed: %s", t->name, t->msg);
		if (t->cur && t->cur_set >= 0) {
			t->r = r;
			t->rollback = true;
			txn_attempt(t);
			return;
		}
		txn_off(t);
		snprintf(t->msg + n, sizeof(t->msg) - n, "%s", TXN_OFF_NOTE);
		txn_finish(t, r);
		return;
	}
	profile_set_name(t->cur, t->cur_set, old, sizeof(old));
	if (r < 0) {
		txn_off(t);
		log_warnx("rollback to %s failed too: %s", old, t->back);
		snprintf(t->msg + n, sizeof(t->msg) - n,
			 "; rollback to %s failed (%s): the gadget is off", old, t->back);
	} else {
		snprintf(t->msg + n, sizeof(t->msg) - n, "; rolled back to %s", old);
	}
	txn_finish(t, t->r);
}

static void txn_attempt(struct txn *t)
{
	int r;

	if (t->rollback)
		r = txn_apply_begin(t, t->cur, t->cur_set, t->back, sizeof(t->back));
	else
		r = txn_apply_begin(t, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		txn_attempted(t, r);
}

/* Where the current attempt says why it failed: the switch's message,
 * or the rollback's while going back. */
static char *txn_err(struct txn *t, size_t *size)
{
	*size = t->rollback ? sizeof(t->back) : sizeof(t->msg);
	return t->rollback ? t->back : t->msg;
}

static void txn_restart_ready(struct txn *t, int r, const char *err);

/* supervisor_wait_ready()'s callback for every transaction. */
static void txn_ready(int r, const char *err, void *data)
{
	struct txn *t = data;
	size_t size;
	char *msg = txn_err(t, &size);

	switch (t->kind) {
	case TXN_RESTART:
		txn_restart_ready(t, r, err);
		return;
	case TXN_SWITCH:
		break;
	}
	if (r < 0)
		snprintf(msg, size, "%s", err);
	else
		r = txn_apply_end(t, msg, size);
	if (r != -EINPROGRESS)
		txn_attempted(t, r);
}

/* The stopped workers are reaped: go on with the attempt. */
static void txn_stopped(void *data)
{
	struct txn *t = data;
	int r;

	if (t->rollback)
		r = txn_apply_mid(t, t->cur, t->cur_set, t->back, sizeof(t->back));
	else
		r = txn_apply_mid(t, t->p, t->set, t->msg, sizeof(t->msg));
	if (r < 0)
		txn_attempted(t, r);
}

static void txn_bind_retry(struct loop_watch *w, void *data)
{
	struct txn *t = data;
	size_t size;
	char *msg = txn_err(t, &size);
	int r;

	loop_watch_remove(w);
	t->bind_timer = NULL;
	r = txn_apply_end(t, msg, size);
	if (r != -EINPROGRESS)
		txn_attempted(t, r);
}

struct txn *txn_new(const struct txn_env *env, const struct txn_ops *ops,
		    void *ops_data, const struct profile *cur, int cur_set,
		    txn_done_fn fn, void *data)
{
	struct txn *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->env = env;
	t->ops = ops;
	t->ops_data = ops_data;
	t->cur = cur;
	t->cur_set = cur ? cur_set : -1;
	t->fn = fn;
	t->data = data;
	return t;
}

void txn_switch(struct txn *t, struct profile *p, int set, bool save)
{
	t->kind = TXN_SWITCH;
	t->p = p;
	t->set = set;
	t->save = save;
	profile_set_name(p, set, t->name, sizeof(t->name));
	log_info("switching to %s (profile %s)", t->name, p->name);
	event_emit(EVENT_SWITCH_BEGUN, NULL, t->name, 0);
	txn_attempt(t);
}

bool txn_left_out(const struct txn_live *live, const char *name)
{
	unsigned i;

	for (i = 0; i < live->n_left_out; i++)
		if (!strcmp(live->left_out[i], name))
			return true;
	return false;
}

/*
 * A plugin marked failed (a crash loop) must not keep the rest of the
 * gadget from binding: its worker may have died before writing its
 * descriptors, and the kernel refuses to bind a gadget with such an
 * instance. Link the set without it; the next switch links it again.
 */
static int txn_restart_link_without_failed(struct txn *t)
{
	const struct txn_env *e = t->env;
	struct txn_live *live = e->live;
	const struct profile_set *s = &t->cur->sets[t->cur_set];
	unsigned c, i;
	int r;

	r = composer_unlink_all(e->composer);
	for (c = 0; c < s->n_configs; c++)
		for (i = 0; !r && i < s->configs[c].n_functions; i++) {
			const char *name = t->cur->functions[s->configs[c].functions[i]].name;

			if (supervisor_failed(e->sup, name)) {
				log_warnx("function %s: left out of the configuration until the "
					  "next switch: its plugin failed", name);
				if (!txn_left_out(live, name) && live->n_left_out < PLAN_MAX)
					snprintf(live->left_out[live->n_left_out++],
						 PROFILE_NAME_MAX, "%s", name);
				continue;
			}
			r = composer_link(e->composer, c, name);
		}
	return r;
}

/* The restarted plugin is ready, or not (r): bind again. */
static void txn_restart_ready(struct txn *t, int r, const char *err)
{
	const struct txn_env *e = t->env;
	const char *why = r < 0 ? err : "";

	if (r < 0)
		log_warnx("%s: restart: %s", t->function, err);
	if (t->cur && t->cur_set >= 0 && supervisor_any_failed(e->sup) &&
	    (r = txn_restart_link_without_failed(t)) < 0)
		log_warnx("%s: restart: cannot link the other functions: %s",
			  t->function, strerror(-r));
	if (txn_bind(e, t->msg, sizeof(t->msg)) < 0) {
		log_warnx("%s: restart: %s", t->function, t->msg);
	} else {
		log_info("%s: plugin restarted; gadget bound again", t->function);
		netsvc_bound(e->net);
	}
	/* A failed plugin is told by the supervisor, once, when it fails. */
	if (!supervisor_failed(e->sup, t->function))
		event_emit(EVENT_PLUGIN_RESTARTED, t->function, why,
			   (int)supervisor_restarts(e->sup, t->function));
	txn_finish(t, 0);
}

/* The other functions kept working while the worker was down; they see a
 * re-enumeration now, because FunctionFS only reopens on an unbound
 * gadget. It is bound again whether or not it was bound before (see
 * gadget_restart_begin()). */
void txn_restart(struct txn *t, const char *function)
{
	const struct txn_env *e = t->env;
	int r;

	t->kind = TXN_RESTART;
	snprintf(t->function, sizeof(t->function), "%s", function);
	composer_unbind(e->composer);
	r = supervisor_respawn(e->sup, function);
	if (!r)
		r = supervisor_wait_ready(e->sup, e->cfg->ready_timeout_ms, txn_ready, t);
	if (r < 0)
		txn_restart_ready(t, r, r == -ENOENT ? "gone"
				  : r == -ENOTRECOVERABLE ? "its plugin failed"
				  : strerror(-r));
}
