/*
 * adb_root: root: and unroot: (see adb_root.h).
 */
#include "adb_root.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "plugin.h"

/* AOSP adbd's answers, word for word: the host's adb looks for
 * "restarting" to know it must wait for the device to come back. */
#define ADB_ROOT_RESTART "restarting adbd as root\n"
#define ADB_ROOT_ALREADY "adbd is already running as root\n"
#define ADB_ROOT_PRODUCTION "adbd cannot run as root in production builds\n"
#define ADB_UNROOT_RESTART "restarting adbd as non root\n"
#define ADB_UNROOT_NOT_ROOT "adbd not running as root\n"
/* Ours: root by the profile's user, which unroot cannot change. */
#define ADB_UNROOT_PROFILE "adbd runs as root by its profile's user, not by adb root\n"

enum adb_root_ask {
	ADB_ROOT_ASK_NONE,
	ADB_ROOT_ASK_ROOT,
	ADB_ROOT_ASK_UNROOT,
};

/* How long the answer may wait in the IN queue before the request goes
 * anyway: 50 checks 20 ms apart. */
#define ADB_ROOT_DRAIN_MS 20
#define ADB_ROOT_DRAIN_TRIES 50

struct adb_root_svc {
	struct plugin *p;
	unsigned ep_in;
	enum adb_root_ask ask; /* sent to gadgetd when the stream goes */
	const char *text;
	bool sent;
};

/* An authenticated host may ask again and again: log a few. */
static struct log_burst adb_root_log =
	LOG_BURST_INIT("adb root/unroot requests", 5, 10);

static int adb_root_write(void *svc, const uint8_t *data, size_t len)
{
	return 0; /* nothing to do with host data */
}

static ssize_t adb_root_produce(void *svc, uint8_t *buf, size_t max)
{
	struct adb_root_svc *r = svc;
	size_t n = strlen(r->text);

	if (r->sent)
		return -EPIPE;
	if (n > max)
		return -EMSGSIZE;
	memcpy(buf, r->text, n);
	r->sent = true;
	return n;
}

/* A request waiting for the answer to leave the IN queue. */
struct adb_root_wait {
	struct plugin *p;
	unsigned ep_in;
	bool on;
	unsigned tries;
};

static void adb_root_tick(struct loop_watch *t, void *data)
{
	struct adb_root_wait *w = data;

	if (plugin_tx_queued(w->p, w->ep_in) &&
	    ++w->tries < ADB_ROOT_DRAIN_TRIES &&
	    loop_timer_rearm(t, ADB_ROOT_DRAIN_MS) == 0)
		return;
	plugin_request_root(w->p, w->on);
	loop_watch_remove(t);
}

/*
 * The stream is gone: the host has the answer or went away. gadgetd
 * stops this worker on the request, and the answer must be out first:
 * with delayed_ack the close follows the WRTE at once, both perhaps
 * still queued.
 */
static void adb_root_free(void *svc)
{
	struct adb_root_svc *r = svc;
	bool on = r->ask == ADB_ROOT_ASK_ROOT;
	struct adb_root_wait *w = NULL;
	struct loop_watch *t = NULL;

	if (r->ask != ADB_ROOT_ASK_NONE && plugin_tx_queued(r->p, r->ep_in) &&
	    (w = calloc(1, sizeof(*w)))) {
		*w = (struct adb_root_wait){ .p = r->p, .ep_in = r->ep_in, .on = on };
		t = loop_add_timer(plugin_loop(r->p), ADB_ROOT_DRAIN_MS,
				   adb_root_tick, w);
		if (t)
			loop_watch_set_destroy(t, free);
		else
			free(w);
	}
	if (r->ask != ADB_ROOT_ASK_NONE && !t)
		plugin_request_root(r->p, on);
	free(r);
}

static const struct adb_service_ops adb_root_ops = {
	.write = adb_root_write,
	.produce = adb_root_produce,
	.free = adb_root_free,
};

/* AOSP's order: being root already is answered before the build type. */
static const char *adb_root_decide(enum plugin_root mode, bool root,
				   enum adb_root_ask *ask)
{
	*ask = ADB_ROOT_ASK_NONE;
	switch (mode) {
	case PLUGIN_ROOT_REFUSED:
		return root ? ADB_ROOT_PRODUCTION : ADB_UNROOT_NOT_ROOT;
	case PLUGIN_ROOT_ALLOWED:
		if (!root)
			return ADB_UNROOT_NOT_ROOT;
		*ask = ADB_ROOT_ASK_ROOT;
		return ADB_ROOT_RESTART;
	case PLUGIN_ROOT_ACTIVE:
		if (root)
			return ADB_ROOT_ALREADY;
		*ask = ADB_ROOT_ASK_UNROOT;
		return ADB_UNROOT_RESTART;
	case PLUGIN_ROOT_PROFILE:
		return root ? ADB_ROOT_ALREADY : ADB_UNROOT_PROFILE;
	}
	return ADB_ROOT_PRODUCTION;
}

int adb_root_open(struct plugin *p, unsigned ep_in, const char *name,
		  const struct adb_service_ops **ops, void **svc)
{
	struct adb_root_svc *r;
	bool root;

	if (!strcmp(name, "root:"))
		root = true;
	else if (!strcmp(name, "unroot:"))
		root = false;
	else
		return -ENOENT;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->p = p;
	r->ep_in = ep_in;
	r->text = adb_root_decide(plugin_root(p), root, &r->ask);
	if (log_burst_ok(&adb_root_log))
		log_info("adb: %s: %.*s", name, (int)strlen(r->text) - 1, r->text);
	*ops = &adb_root_ops;
	*svc = r;
	return 0;
}
