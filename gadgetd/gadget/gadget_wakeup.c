/*
 * gadget_wakeup: the bus as the workers see it, and USB remote wakeup
 * (`gadgetctl wakeup`, and a plugin's plugin_wakeup()).
 *
 * Linux 6.1 gives a function no call of its own to wake the host, but
 * the UDC core's srp file calls usb_gadget_wakeup(). The core ignores
 * the driver's answer, so a wakeup the host did not enable (dummy_hcd:
 * -EINVAL without DEVICE_REMOTE_WAKEUP) looks like one that worked: the
 * only sign is whether the bus resumes, which the workers tell
 * (FUNCTIONFS_RESUME, WORKER_BUS). docs/kernel.md has the details.
 */
#include "composer.h"
#include "event.h"
#include "gadget_int.h"
#include "log.h"
#include "loop.h"
#include "supervisor.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long `gadgetctl wakeup` waits for the host to resume the bus:
 * USB 2.0 needs 30 ms; the rest is the host's resume of its drivers. */
#define GADGET_WAKE_MS 2000

/* A `gadgetctl wakeup` waiting for the bus to resume. */
struct gadget_wake {
	struct gadget *g;
	gadget_done_fn fn;
	void *data;
	struct loop_watch *timer;
	struct gadget_wake *next;
};

bool gadget_wakeup_configured(const struct gadget *g)
{
	const struct profile_set *s;
	unsigned i;

	if (!g->profile || g->set < 0)
		return false;
	s = &g->profile->sets[g->set];
	for (i = 0; i < s->n_configs; i++)
		if (s->configs[i].remote_wakeup)
			return true;
	return false;
}

/* Suspended, as a worker saw it (FUNCTIONFS_SUSPEND) or as the UDC says
 * (not every UDC driver does: dummy_hcd does not). */
bool gadget_wakeup_suspended(const struct gadget *g)
{
	return supervisor_bus_suspended(g->sup) ||
	       (g->host && !strcmp(udc_watch_state(g->host), "suspended"));
}

/* Wake the host now: 0 once the UDC was told, or -errno with msg. */
static int gadget_wakeup_signal(struct gadget *g, char *msg, size_t size)
{
	const char *udc = g->set >= 0 ? composer_bound_udc(g->composer) : NULL;
	int r;

	if (!udc) {
		snprintf(msg, size, "cannot wake the host: the gadget is not bound to a UDC");
		return -ENOTCONN;
	}
	if (!gadget_wakeup_configured(g)) {
		snprintf(msg, size, "cannot wake the host: the configuration does not "
			 "offer remote wakeup (remote_wakeup = true in the set of "
			 "profile %s, gadgetd.conf(5))", g->profile->name);
		return -EOPNOTSUPP;
	}
	if (!gadget_wakeup_suspended(g)) {
		snprintf(msg, size, "no need to wake the host: the bus is not suspended");
		return -EAGAIN;
	}
	r = udc_wakeup(udc);
	if (r < 0) {
		snprintf(msg, size, "cannot wake the host: the UDC %s refused "
			 "(/sys/class/udc/%s/srp: %s)", udc, udc, strerror(-r));
		return r;
	}
	log_info("remote wakeup signalled on UDC %s", udc);
	return 0;
}

static void gadget_wakeup_end(struct gadget_wake *w, int r, const char *msg)
{
	struct gadget_wake **p;

	for (p = &w->g->wakes; *p && *p != w; p = &(*p)->next)
		;
	*p = w->next;
	loop_watch_remove(w->timer);
	if (w->fn)
		w->fn(r, msg, w->data);
	free(w);
}

static void gadget_wakeup_expired(struct loop_watch *t, void *data)
{
	struct gadget_wake *w = data;
	char msg[512];

	snprintf(msg, sizeof(msg), "the UDC signalled remote wakeup, but the host "
		 "did not resume the bus within %u s: it has not enabled remote "
		 "wakeup for this device (Linux enables it for system sleep where "
		 "the device's power/wakeup is enabled, and for an autosuspend "
		 "while a driver such as usbhid needs it)", GADGET_WAKE_MS / 1000);
	log_info("%s", msg);
	gadget_wakeup_end(w, -EHOSTDOWN, msg);
}

int gadget_wakeup(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	struct gadget_wake *w;
	int r = gadget_wakeup_signal(g, msg, size);

	if (r < 0)
		return r;
	w = calloc(1, sizeof(*w));
	if (w)
		w->timer = loop_add_timer(g->loop, GADGET_WAKE_MS, gadget_wakeup_expired, w);
	if (!w || !w->timer) {
		free(w);
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*w = (struct gadget_wake){ g, fn, data, w->timer, g->wakes };
	g->wakes = w;
	return -EINPROGRESS;
}

void gadget_wakeup_cancel(struct gadget *g, void *data)
{
	struct gadget_wake *w;

	for (w = g->wakes; w; w = w->next)
		if (!data || w->data == data)
			w->fn = NULL;
	while (!data && g->wakes)
		gadget_wakeup_end(g->wakes, -ECANCELED, "");
}

/* The supervisor's calls (supervisor_bus_ops). */
static void gadget_wakeup_bus(const char *function, bool suspended, void *data)
{
	struct gadget *g = data;

	log_info("%s: the host %s the bus", function, suspended ? "suspended" : "resumed");
	event_emit(EVENT_STATE, NULL, suspended ? "bus suspended" : "bus resumed", 0);
	while (!suspended && g->wakes)
		gadget_wakeup_end(g->wakes, 0, "the host resumed the bus");
}

static int gadget_wakeup_wake(const char *function, void *data)
{
	char msg[512];
	int r = gadget_wakeup_signal(data, msg, sizeof(msg));

	if (r < 0)
		log_warnx("%s: its plugin asked to wake the host: %s", function, msg);
	return r;
}

const struct supervisor_bus_ops gadget_wakeup_ops = {
	.bus = gadget_wakeup_bus,
	.wake = gadget_wakeup_wake,
};
