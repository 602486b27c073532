/*
 * The gadget's side of its pending work (pending.h): what the pending
 * work sees of the gadget and how it runs there, and what comes in to
 * wait: SIGHUP's reload and a plugin's switch request.
 */
#include "gadget_int.h"
#include "pending.h"

#include <stdio.h>
#include <time.h>

static void gadget_queue_view(struct pending_view *v, void *data)
{
	const struct gadget *g = data;

	v->profile = g->profile;
	v->set = g->set;
	v->txn = g->txn != NULL;
	v->busy = gadget_busy(g);
}

static void gadget_queue_restart(const char *function, void *data)
{
	gadget_restart_begin(data, function);
}

static int gadget_queue_do_reload(char *msg, size_t size, pending_done_fn fn,
				  void *fn_data, void *data)
{
	return gadget_reload(data, msg, size, fn, fn_data);
}

/* What a plugin asks for is what the next start restores. */
static int gadget_queue_switch(const char *profile, const char *set, char *msg,
			       size_t size, pending_done_fn fn, void *fn_data,
			       void *data)
{
	return gadget_switch_save(data, profile, set, true, msg, size, fn, fn_data);
}

static void gadget_queue_failed(const char *what, const char *msg, void *data)
{
	struct gadget *g = data;

	g->failed_when = time(NULL);
	snprintf(g->failed, sizeof(g->failed), "%s: %s", what, msg);
}

/* None of the gadget's own work waits: the clients' queue's turn. */
static void gadget_queue_idle(void *data)
{
	struct gadget *g = data;

	if (g->waiters)
		g->waiters->idle(g->waiters_data);
}

const struct pending_ops gadget_queue_ops = {
	.view = gadget_queue_view,
	.restart = gadget_queue_restart,
	.reload = gadget_queue_do_reload,
	.switch_to = gadget_queue_switch,
	.failed = gadget_queue_failed,
	.idle = gadget_queue_idle,
};

void gadget_queue_reload(struct gadget *g)
{
	pending_reload(g->pending);
}

void gadget_queue_plugin_request(const char *function, const char *request,
				 void *data)
{
	struct gadget *g = data;

	pending_plugin_request(g->pending, function, request);
}
