/*
 * adb_root: root: and unroot: (see adb_root.h).
 */
#include "adb_root.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
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

struct adb_root_svc {
	struct plugin *p;
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

/*
 * The stream is gone: the host has read the answer (one WRTE in flight,
 * and the close follows its OKAY) or went away. Only now may gadgetd
 * stop this worker.
 */
static void adb_root_free(void *svc)
{
	struct adb_root_svc *r = svc;

	if (r->ask != ADB_ROOT_ASK_NONE)
		plugin_request_root(r->p, r->ask == ADB_ROOT_ASK_ROOT);
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

int adb_root_open(struct plugin *p, const char *name,
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
	r->text = adb_root_decide(plugin_root(p), root, &r->ask);
	if (log_burst_ok(&adb_root_log))
		log_info("adb: %s: %.*s", name, (int)strlen(r->text) - 1, r->text);
	*ops = &adb_root_ops;
	*svc = r;
	return 0;
}
