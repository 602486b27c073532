#include "gadget_int.h"
#include "composer.h"
#include "log.h"
#include "loop.h"
#include "netsvc.h"
#include "pending.h"
#include "profile.h"
#include "supervisor.h"
#include "txn.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A crashed worker again, as a transaction (txn_restart()). The gadget
 * may be unbound already, and not by gadgetd: a host that resets or
 * unplugs the device while a worker is dead makes f_fs unregister the
 * whole gadget (ffs_func_set_alt() on a deactivated instance, then
 * ffs_closed()). It is bound again all the same, once the plugin is
 * back; the gadget stays unbound only when it is off. */
int gadget_restart_begin(struct gadget *g, const char *function)
{
	struct txn *t;

	/* Bind again afterwards whenever the gadget is on, bound or not: the
	 * kernel unbinds it by itself on a host reset or unplug while a
	 * worker is dead, an earlier restart whose worker died before it was
	 * ready left it unbound (the kernel refuses the bind), or the plugin
	 * failed and the rest binds without it. */
	if (g->set < 0)
		return supervisor_respawn(g->sup, function);
	/* Failed and already left out (by the restart that saw it fail),
	 * the rest bound: binding once more would only re-enumerate it. */
	if (composer_bound_udc(g->composer) && txn_left_out(&g->live, function) &&
	    supervisor_failed(g->sup, function))
		return 0;
	t = gadget_txn_new(g, NULL, NULL);
	if (!t)
		return -ENOMEM;
	txn_restart(t, function);
	return 0;
}

void gadget_restart_due(const char *function, void *data)
{
	struct gadget *g = data;

	/* A switch waiting for its plugins has the gadget unbound: the
	 * worker may start again at once, and the switch waits for it. */
	if (g->txn && txn_switching(g->txn)) {
		supervisor_respawn(g->sup, function);
		return;
	}
	if (!g->txn) {
		gadget_restart_begin(g, function);
		return;
	}
	if (pending_restart(g->pending, function) < 0)
		supervisor_respawn(g->sup, function);
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
		   g->udc_tries < TXN_BIND_TRIES) {
		if (!g->udc_timer)
			g->udc_timer = loop_add_timer(g->loop, 100u << g->udc_tries++,
						      gadget_restart_udc_retry, g);
		return;
	} else if (bound) {
		g->udc_tries = 0;
		return;
	}
	r = txn_bind(&g->env, msg, sizeof(msg));
	if (r == -EAGAIN && g->udc_tries < TXN_BIND_TRIES) {
		if (!g->udc_timer)
			g->udc_timer = loop_add_timer(g->loop, 100u << g->udc_tries++,
						      gadget_restart_udc_retry, g);
		return;
	}
	g->udc_tries = 0;
	if (r < 0)
		log_warnx("%s", msg);
	else if (g->live.udc[0])
		log_info("bound to UDC %s", g->live.udc);
	if (r == 0)
		netsvc_bound(g->net);
	gadget_host_sync(g);
}
