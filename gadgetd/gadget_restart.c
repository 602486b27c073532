#include "gadget_int.h"
#include "composer.h"
#include "event.h"
#include "log.h"
#include "loop.h"
#include "netsvc.h"
#include "profile.h"
#include "supervisor.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool gadget_restart_left_out(const struct gadget *g, const char *name)
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
static int gadget_restart_link_without_failed(struct gadget *g)
{
	const struct profile_set *s = &g->profile->sets[g->set];
	unsigned c, i;
	int r;

	r = composer_unlink_all(g->composer);
	for (c = 0; c < s->n_configs; c++)
		for (i = 0; !r && i < s->configs[c].n_functions; i++) {
			const char *name = g->profile->functions[s->configs[c].functions[i]].name;

			if (supervisor_failed(g->sup, name)) {
				log_warnx("function %s: left out of the configuration until the "
					  "next switch: its plugin failed", name);
				if (!gadget_restart_left_out(g, name) && g->n_left_out < PLAN_MAX)
					snprintf(g->left_out[g->n_left_out++], PROFILE_NAME_MAX,
						 "%s", name);
				continue;
			}
			r = composer_link(g->composer, c, name);
		}
	return r;
}

void gadget_restart_ready(struct gadget *g, int r, const char *err)
{
	struct gadget_txn *t = g->txn;
	const char *why = r < 0 ? err : "";

	if (r < 0)
		log_warnx("%s: restart: %s", t->function, err);
	if (g->profile && g->set >= 0 && supervisor_any_failed(g->sup) &&
	    (r = gadget_restart_link_without_failed(g)) < 0)
		log_warnx("%s: restart: cannot link the other functions: %s",
			  t->function, strerror(-r));
	if (gadget_switch_bind(g, t->msg, sizeof(t->msg)) < 0) {
		log_warnx("%s: restart: %s", t->function, t->msg);
	} else {
		log_info("%s: plugin restarted; gadget bound again", t->function);
		netsvc_bound(g->net);
	}
	/* A failed plugin is told by the supervisor, once, when it fails. */
	if (!supervisor_failed(g->sup, t->function))
		event_emit(EVENT_PLUGIN_RESTARTED, t->function, why,
			   (int)supervisor_restarts(g->sup, t->function));
	gadget_switch_txn_finish(g, 0);
}

/* The other functions kept working while the worker was down; they see a
 * re-enumeration now, because FunctionFS only reopens on an unbound
 * gadget. The gadget may be unbound already, and not by gadgetd: a host
 * that resets or unplugs the device while a worker is dead makes f_fs
 * unregister the whole gadget (ffs_func_set_alt() on a deactivated
 * instance, then ffs_closed()). It is bound again here all the same, once
 * the plugin is back; the gadget stays unbound only when it is off. */
int gadget_restart_begin(struct gadget *g, const char *function)
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
	if (composer_bound_udc(g->composer) && gadget_restart_left_out(g, function) &&
	    supervisor_failed(g->sup, function))
		return 0;
	t = gadget_switch_txn_new(g, GADGET_TXN_RESTART, NULL, NULL);
	if (!t)
		return -ENOMEM;
	snprintf(t->function, sizeof(t->function), "%s", function);
	composer_unbind(g->composer);
	r = supervisor_respawn(g->sup, function);
	if (!r)
		r = supervisor_wait_ready(g->sup, g->cfg->ready_timeout_ms,
					  gadget_switch_txn_ready, g);
	if (r < 0)
		gadget_restart_ready(g, r, r == -ENOENT ? "gone"
				     : r == -ENOTRECOVERABLE ? "its plugin failed"
				     : strerror(-r));
	return 0;
}

void gadget_restart_due(const char *function, void *data)
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
	gadget_queue_kick(g);
}

/* A UDC's uevent comes before its gadget device joins the bus, so a bind
 * refused as busy just then is tried again, for up to about 6 s. A gadget
 * whose UDC vanished stays bound to it by name, and the kernel binds it
 * again by itself when the UDC returns. */

/*
 * That bind by the kernel can fail where a fresh one works: Linux
 * 6.1.192's ecm, ncm and rndis move their network device back under the
 * new gadget device, and some returns of a UDC fail that with ENOENT
 * ("udc dummy_udc.0: failed to start gadgetd: -2"; docs/kernel.md),
 * leaving the gadget waiting for a UDC that is there. A UDC whose gadget
 * device has joined the bus and still drives nothing some 300 ms later
 * (the kernel binds as the device joins) was stranded so: bind again,
 * and say why. On 6.1.192 that bind fails the same way until a later
 * return (the failure follows the new gadget device, not the function:
 * a fresh instance fails too); the warning then names the kernel's line.
 */
static bool gadget_restart_udc_stranded(struct gadget *g, const char *udc)
{
	char who[128];

	if (!udc_registered(udc))
		return false;
	udc_function(udc, who, sizeof(who));
	if (who[0])
		return false;
	/* Two looks before giving up on the kernel's own bind. */
	return g->udc_tries >= 2;
}

/* The UDC is there (its gadget device may still be joining) and drives
 * no gadget. */
static bool gadget_restart_udc_idle(const char *udc)
{
	char state[64], who[128];

	udc_state(udc, state, sizeof(state));
	udc_function(udc, who, sizeof(who));
	return strcmp(state, "absent") != 0 && !who[0];
}

static void gadget_restart_udc_retry(struct loop_watch *t, void *data)
{
	struct gadget *g = data;

	loop_watch_remove(t);
	g->udc_timer = NULL;
	gadget_restart_udc_changed(g);
}

void gadget_restart_udc_changed(void *data)
{
	struct gadget *g = data;
	const char *bound;
	char msg[256];
	int r;

	gadget_host_sync(g);
	if (g->txn)
		return;
	/* The UDC went (its links go down) or came back (up again). */
	netsvc_udc_changed(g->net);
	if (g->set < 0)
		return;
	bound = composer_bound_udc(g->composer);
	if (bound && gadget_restart_udc_stranded(g, bound)) {
		log_warnx("UDC %s is back but the kernel could not bind the gadget "
			  "to it again (its log's \"udc %s: failed to start\" line); "
			  "binding it afresh", bound, bound);
		composer_unbind(g->composer);
	} else if (bound && gadget_restart_udc_idle(bound) &&
		   g->udc_tries < GADGET_UDC_TRIES) {
		if (!g->udc_timer)
			g->udc_timer = loop_add_timer(g->loop, 100u << g->udc_tries++,
						      gadget_restart_udc_retry, g);
		return;
	} else if (bound) {
		g->udc_tries = 0;
		return;
	}
	r = gadget_switch_bind(g, msg, sizeof(msg));
	if (r == -EAGAIN && g->udc_tries < GADGET_UDC_TRIES) {
		if (!g->udc_timer)
			g->udc_timer = loop_add_timer(g->loop, 100u << g->udc_tries++,
						      gadget_restart_udc_retry, g);
		return;
	}
	g->udc_tries = 0;
	if (r < 0)
		log_warnx("%s", msg);
	else if (g->udc[0])
		log_info("bound to UDC %s", g->udc);
	if (r == 0)
		netsvc_bound(g->net);
	gadget_host_sync(g);
}
