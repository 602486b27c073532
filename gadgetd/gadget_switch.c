#include "gadget_int.h"
#include "composer.h"
#include "netsvc.h"
#include "pending.h"
#include "profile.h"
#include "supervisor.h"
#include "txn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The transaction's calls up (txn_ops): it changes ConfigFS and the
 * workers; what the gadget has and says is the gadget's. */
static void gadget_switch_commit(struct profile *p, int set, bool save, void *data)
{
	struct gadget *g = data;

	if (g->profile != p)
		profile_free(g->profile);
	g->profile = p;
	g->set = set;
	g->switches++;
	if (save) {
		g->keep_state = false;
		gadget_save(g);
	}
}

static bool gadget_switch_off(void *data)
{
	struct gadget *g = data;

	gadget_switch_down(g);
	return g->down_wait;
}

/* A user who missed the switch's reply (a reload, a plugin's request, a
 * switch at start-up) reads why in status. */
static void gadget_switch_finished(const char *set, int r, const char *msg,
				   void *data)
{
	struct gadget *g = data;

	if (set[0] && !r) {
		g->failed[0] = '\0';
	} else if (set[0]) {
		g->failed_when = time(NULL);
		snprintf(g->failed, sizeof(g->failed), "switch to %s: %s", set, msg);
	}
	gadget_host_sync(g);
}

static void gadget_switch_ended(void *data)
{
	struct gadget *g = data;

	g->txn = NULL;
}

static void gadget_switch_idle(void *data)
{
	struct gadget *g = data;

	pending_run_now(g->pending);
}

static const struct txn_ops gadget_switch_ops = {
	.commit = gadget_switch_commit,
	.off = gadget_switch_off,
	.finished = gadget_switch_finished,
	.ended = gadget_switch_ended,
	.idle = gadget_switch_idle,
};

struct txn *gadget_switch_txn_new(struct gadget *g, gadget_done_fn fn, void *data)
{
	g->txn = txn_new(&g->env, &gadget_switch_ops, g, g->profile, g->set, fn, data);
	return g->txn;
}

/* The rest of gadget_switch_down(), once the workers are reaped. */
static void gadget_switch_down_stopped(void *data)
{
	struct gadget *g = data;

	g->down_wait = false;
	txn_down_end(&g->env);
	/* A transaction that turned the gadget off reports now. */
	if (g->txn && txn_down_done(g->txn))
		return;
	pending_run_now(g->pending);
}

/* Off, or going back failed too: the gadget is unbound at once; its
 * functions go once their workers are reaped, and until then the gadget
 * is busy. */
void gadget_switch_down(struct gadget *g)
{
	int r = txn_down_begin(&g->env, gadget_switch_down_stopped, g);

	g->set = -1;
	g->down_wait = r == -EINPROGRESS;
}

/* p (owned by the transaction unless it is g->profile) at set; save:
 * the state file records it once it is live. */
int gadget_switch_transact(struct gadget *g, struct profile *p, int set,
			   bool save, char *msg, size_t size, gadget_done_fn fn,
			   void *data)
{
	struct txn *t = gadget_switch_txn_new(g, fn, data);

	if (!t) {
		if (p != g->profile)
			profile_free(p);
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	txn_switch(t, p, set, save);
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
