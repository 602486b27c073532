#include "gadget_int.h"
#include "boot.h"
#include "pending.h"
#include "composer.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "loop.h"
#include "netsvc.h"
#include "plugin_list.h"
#include "profile.h"
#include "state.h"
#include "supervisor.h"
#include "supervisor_exec.h"
#include "txn.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* netsvc's view of the gadget. */
static void gadget_net_view(struct netsvc_view *v, void *data)
{
	const struct gadget *g = data;

	v->profile = g->profile;
	v->set = g->set;
	v->live = g->live.fn;
	v->n_live = g->live.n;
	v->switching = g->txn != NULL;
}

/* The start-up's calls up (boot_ops). */
static int gadget_boot_load(const char *name, char *msg, size_t size, void *data)
{
	struct gadget *g = data;

	profile_free(g->profile);
	return gadget_load_profile(g, name, &g->profile, msg, size);
}

static const struct profile *gadget_boot_profile(void *data)
{
	const struct gadget *g = data;

	return g->profile;
}

static int gadget_boot_switch(const char *set, char *msg, size_t size,
			      boot_done_fn fn, void *fn_data, void *data)
{
	struct gadget *g = data;

	return gadget_switch_save(g, NULL, set, !g->keep_state, msg, size, fn,
				  fn_data);
}

static void gadget_boot_keep_state(void *data)
{
	struct gadget *g = data;

	g->keep_state = true;
}

static const struct boot_ops gadget_boot_ops = {
	.load = gadget_boot_load,
	.profile = gadget_boot_profile,
	.switch_set = gadget_boot_switch,
	.keep_state = gadget_boot_keep_state,
};

int gadget_boot_start(struct gadget *g, char *msg, size_t size,
		      gadget_done_fn fn, void *data)
{
	return boot_start(g->boot, msg, size, fn, data);
}

int gadget_boot_wait(struct gadget *g, char *msg, size_t size,
		     gadget_done_fn fn, void *data)
{
	return boot_wait(g->boot, msg, size, fn, data);
}

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
	g->sup = supervisor_new(l, cfg, gadget_queue_plugin_request,
				gadget_restart_due, g);
	if (g->sup)
		supervisor_bus_set_ops(g->sup, &gadget_wakeup_ops, g);
	g->net = g->sup ? netsvc_new(l, cfg, g->composer, g->sup, gadget_net_view, g) : NULL;
	g->boot = boot_new(cfg, &gadget_boot_ops, g);
	g->pending = pending_new(l, &gadget_queue_ops, g);
	if (!g->net || !g->boot || !g->pending) {
		pending_free(g->pending);
		boot_free(g->boot);
		netsvc_free(g->net);
		supervisor_free(g->sup);
		composer_free(g->composer);
		free(g);
		return -ENOMEM;
	}
	g->locked = state_lock_load(cfg->run_dir);
	supervisor_set_locked(g->sup, g->locked);
	if (g->locked)
		log_info("locked, as gadgetd was when it stopped (%s/locked)", cfg->run_dir);
	g->env = (struct txn_env){ .loop = l, .cfg = cfg, .composer = g->composer,
				   .sup = g->sup, .net = g->net, .live = &g->live };
	g->udcmon = udc_monitor_new(l, gadget_restart_udc_changed, g);
	/* A gadget left by a crashed gadgetd has no workers behind its
	 * FunctionFS instances: clean it and compose afresh. */
	composer_unbind(g->composer);
	supervisor_exec_clean_mounts(cfg);
	r = composer_destroy(g->composer);
	if (r < 0) {
		gadget_free(g);
		return r;
	}
	*out = g;
	return 0;
}

static void gadget_off_answer(struct gadget *g, int r, const char *msg);

void gadget_free(struct gadget *g)
{
	struct txn *txn;

	if (!g)
		return;
	g->freeing = true;
	gadget_off_answer(g, -ECANCELED, "gadgetd is stopping; the gadget's "
			  "functions were not all removed yet");
	/* A start-up step that ends now is the last. */
	boot_stop(g->boot);
	pending_stop(g->pending);
	txn = g->txn;
	g->txn = NULL;
	txn_drop(txn);
	boot_free(g->boot);
	netsvc_free(g->net);
	composer_unbind(g->composer);
	gadget_wakeup_cancel(g, NULL);
	/* Answers the plugin commands still waiting, with -ECANCELED. */
	supervisor_free(g->sup);
	composer_destroy(g->composer);
	composer_free(g->composer);
	udc_monitor_free(g->udcmon);
	udc_watch_free(g->host);
	pending_free(g->pending);
	loop_watch_remove(g->udc_timer);
	loop_watch_remove(g->ask_idle);
	profile_free(g->profile);
	free(g);
}

bool gadget_busy(const struct gadget *g)
{
	return g->txn || g->n_cmds || g->down_wait;
}

int gadget_refuse_busy(const struct gadget *g, char *msg, size_t size)
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

void gadget_set_waiters(struct gadget *g, const struct gadget_waiters *w, void *data)
{
	g->waiters = w;
	g->waiters_data = data;
}

void gadget_kick_waiters(struct gadget *g)
{
	pending_kick_waiters(g->pending);
}

const struct profile *gadget_target_profile(const struct gadget *g)
{
	const struct profile *p = g->txn ? txn_target(g->txn) : NULL;

	return p ? p : g->profile;
}

const char *gadget_function_plugin(const struct gadget *g, const char *function)
{
	const struct profile_function *f;

	f = g->profile ? profile_function_find(g->profile, function) : NULL;
	return f ? f->plugin : NULL;
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

int gadget_lock(struct gadget *g, bool locked, char *msg, size_t size)
{
	int r;

	if (g->locked == locked) {
		snprintf(msg, size, "already %s", locked ? "locked" : "unlocked");
		return 0;
	}
	/* The marker first: a lock that a restart would forget is refused. */
	r = state_lock_save(g->cfg->run_dir, locked);
	if (r < 0) {
		snprintf(msg, size, "cannot %s %s/locked: %s; the lock state is "
			 "unchanged", locked ? "create" : "remove", g->cfg->run_dir,
			 strerror(-r));
		return r;
	}
	g->locked = locked;
	supervisor_set_locked(g->sup, locked);
	log_info("%s", locked ? "locked: gated functions serve no data" : "unlocked");
	event_emit(EVENT_LOCK, NULL, locked ? "locked" : "unlocked", 0);
	snprintf(msg, size, "%s", locked ? "locked" : "unlocked");
	return 0;
}

bool gadget_locked(const struct gadget *g)
{
	return g->locked;
}

int gadget_load_profile(struct gadget *g, const char *name,
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
	if (profile_ids_resolve(*out, msg, size) < 0 ||
	    netsvc_clash(g->net, *out, -1, msg, size) < 0) {
		profile_free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

static void gadget_ask_back(int r, const char *msg, void *data)
{
	if (r < 0)
		log_warnx("ask: going back to the default set failed: %s", msg);
}

/* The host went: back to the default set, from a round of the loop of
 * its own, not from inside whatever noticed (a transaction's end). */
static void gadget_ask_idle(struct loop_watch *w, void *data)
{
	struct gadget *g = data;
	char msg[512];
	int r;

	g->ask_idle = NULL;
	if (!g->profile || !g->profile->ask || g->set < 0 ||
	    g->set == g->profile->default_set || gadget_busy(g))
		return;
	log_info("ask: the host went; back to the default set");
	r = gadget_switch(g, NULL, NULL, msg, sizeof(msg), gadget_ask_back, g);
	if (r < 0 && r != -EINPROGRESS)
		gadget_ask_back(r, msg, g);
}

void gadget_ask_host(struct gadget *g, const char *state)
{
	char set[GADGET_SET_MAX];

	if (!g->profile || !g->profile->ask || g->set < 0 || gadget_busy(g))
		return;
	if (!strcmp(state, "not attached")) {
		g->asked = false;
		if (g->set != g->profile->default_set && !g->ask_idle)
			g->ask_idle = loop_add_idle(g->loop, gadget_ask_idle, g);
		return;
	}
	if (strcmp(state, "configured") || g->set != g->profile->default_set || g->asked)
		return;
	g->asked = true;
	profile_set_name(g->profile, g->set, set, sizeof(set));
	log_info("ask: a host is waiting for a choice (set %s is up)", set);
	event_emit(EVENT_ASK, NULL, set, 0);
}

static void gadget_host_changed(const char *state, void *data)
{
	event_emit(EVENT_HOST, NULL, state, 0);
	gadget_ask_host(data, state);
}

void gadget_host_sync(struct gadget *g)
{
	const char *udc = g->set >= 0 ? composer_bound_udc(g->composer) : NULL;
	char state[32];

	if (udc) {
		udc_state(udc, state, sizeof(state));
		if (!strcmp(state, "absent"))
			udc = NULL;
	}
	if (g->host && (!udc || strcmp(udc_watch_name(g->host), udc))) {
		/* Off, or the UDC went: detached as far as the host can tell. */
		bool told = !strcmp(udc_watch_state(g->host), "not attached");

		udc_watch_free(g->host);
		g->host = NULL;
		if (!told) {
			event_emit(EVENT_HOST, NULL, "not attached", 0);
			gadget_ask_host(g, "not attached");
		}
	}
	if (udc && !g->host) {
		g->host = udc_watch_new(g->loop, udc, gadget_host_changed, g);
		if (!g->host)
			log_warnx("cannot watch the state of UDC %s: %s", udc,
				  strerror(errno));
	}
}

static void gadget_down(struct gadget *g);

/* The transaction's calls up (txn_ops): it changes ConfigFS and the
 * workers; what the gadget has and says is the gadget's. */
static void gadget_txn_commit(struct profile *p, int set, bool save, void *data)
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

static bool gadget_txn_off(void *data)
{
	struct gadget *g = data;

	gadget_down(g);
	return g->down_wait;
}

/* A user who missed the switch's reply (a reload, a plugin's request, a
 * switch at start-up) reads why in status. */
static void gadget_txn_finished(const char *set, int r, const char *msg,
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

static void gadget_txn_ended(void *data)
{
	struct gadget *g = data;

	g->txn = NULL;
}

static void gadget_txn_idle(void *data)
{
	struct gadget *g = data;

	pending_run_now(g->pending);
}

static const struct txn_ops gadget_txn_ops = {
	.commit = gadget_txn_commit,
	.off = gadget_txn_off,
	.finished = gadget_txn_finished,
	.ended = gadget_txn_ended,
	.idle = gadget_txn_idle,
};

struct txn *gadget_txn_new(struct gadget *g, gadget_done_fn fn, void *data)
{
	g->txn = txn_new(&g->env, &gadget_txn_ops, g, g->profile, g->set, fn, data);
	return g->txn;
}

/* The caller of an off that waited for the gadget to go, if any. */
static void gadget_off_answer(struct gadget *g, int r, const char *msg)
{
	gadget_done_fn fn = g->off_fn;

	g->off_fn = NULL;
	if (fn)
		fn(r, msg, g->off_data);
}

/* The gadget is down after a wait: answer and go on. */
static void gadget_down_finish(struct gadget *g)
{
	g->down_wait = false;
	gadget_off_answer(g, 0, "gadget is off");
	/* A transaction that turned the gadget off reports now. */
	if (g->txn && txn_down_done(g->txn))
		return;
	pending_run_now(g->pending);
}

/* The rest of gadget_down(), once the workers are reaped. */
static void gadget_down_stopped(void *data)
{
	struct gadget *g = data;

	txn_down_end(&g->env);
	gadget_down_finish(g);
}

/* The rest of gadget_down(), once the logins are stopped. */
static void gadget_down_unbind(void *data)
{
	struct gadget *g = data;

	if (txn_down_begin(&g->env, gadget_down_stopped, g) != -EINPROGRESS)
		gadget_down_finish(g);
}

/* Off, or going back failed too: the gadget is unbound once the serial
 * ports' logins are stopped; its functions go once their workers are
 * reaped, and until then the gadget is busy. */
static void gadget_down(struct gadget *g)
{
	int r = txn_down_net(&g->env, gadget_down_unbind, g);

	g->set = -1;
	if (r == -EINPROGRESS) {
		g->down_wait = true;
		return;
	}
	r = txn_down_begin(&g->env, gadget_down_stopped, g);
	g->down_wait = r == -EINPROGRESS;
}

/* p (owned by the transaction unless it is g->profile) at set; save:
 * the state file records it once it is live. */
static int gadget_transact(struct gadget *g, struct profile *p, int set,
			   bool save, char *msg, size_t size, gadget_done_fn fn,
			   void *data)
{
	struct txn *t = gadget_txn_new(g, fn, data);

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
	return gadget_transact(g, p, idx, save, msg, size, fn, data);
}

/* What a client asks for is what the next start restores. */
int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	return gadget_switch_save(g, profile, set, true, msg, size, fn, data);
}

int gadget_off(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
	       void *data)
{
	if (gadget_busy(g))
		return gadget_refuse_busy(g, msg, size);
	event_emit(EVENT_SWITCH_BEGUN, NULL, "", 0);
	gadget_down(g);
	gadget_host_sync(g);
	g->keep_state = false;
	if (g->profile)
		gadget_save(g);
	snprintf(msg, size, "gadget is off");
	event_emit(EVENT_SWITCH_DONE, NULL, "", 0);
	if (fn && g->down_wait) {
		g->off_fn = fn;
		g->off_data = data;
		return -EINPROGRESS;
	}
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
		event_emit(EVENT_STATE, NULL, msg, 0);
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

int gadget_command(struct gadget *g, int argc, char **argv, char *reply,
		   size_t size, gadget_done_fn fn, void *data)
{
	if (argc < 2) {
		snprintf(reply, size, "usage: gadgetctl FUNCTION COMMAND [ARGS...]");
		return -EINVAL;
	}
	/* The busy rule of every front end: during a switch, a teardown or
	 * another command, a command is refused (D-Bus once let it in). */
	if (gadget_busy(g))
		return gadget_refuse_busy(g, reply, size);
	return gadget_command_send(g, argc, argv, reply, size, fn, data);
}

void gadget_cancel(struct gadget *g, void *data)
{
	struct gadget_cmd *c;

	if (g->txn)
		txn_cancel(g->txn, data);
	if (g->off_fn && g->off_data == data)
		g->off_fn = NULL;
	boot_cancel(g->boot, data);
	gadget_wakeup_cancel(g, data);
	for (c = g->cmds; c; c = c->next)
		if (c->data == data)
			c->fn = NULL;
}
