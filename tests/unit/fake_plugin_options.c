/*
 * The typed option getters of the plugin API (plugin.h) for the fake
 * runtimes: the worker's own (functions/runtime/plugin.c) over the fake's
 * plugin_option() and the declaration of the plugin under test.
 */
#include "log.h"
#include "plugin.h"

#include <errno.h>

static int fake_plugin_option_refused(int r, const char *why)
{
	if (r == -EINVAL)
		log_warnx("%s: %s", gadgetd_plugin.name, why);
	return r;
}

int plugin_option_bool(struct plugin *p, const char *key, bool *out)
{
	char why[256];

	return fake_plugin_option_refused(
		plugin_meta_option_bool(gadgetd_plugin.meta, plugin_option(p, key),
					key, out, why, sizeof(why)), why);
}

int plugin_option_int(struct plugin *p, const char *key, long long *out)
{
	char why[256];

	return fake_plugin_option_refused(
		plugin_meta_option_int(gadgetd_plugin.meta, plugin_option(p, key),
				       key, out, why, sizeof(why)), why);
}
