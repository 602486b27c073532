/*
 * loader: how gadgetd-worker loads a plugin's shared object and checks
 * that it was built for this worker (PLUGIN_ABI_VERSION, plugin.h).
 */
#ifndef GADGETD_LOADER_H
#define GADGETD_LOADER_H

#include "plugin.h"

/*
 * dlopen() so and find its gadgetd_plugin. Returns 0 with *dl and *ops
 * set, or -ENOENT (cannot load, no such symbol) or -EPROTO (another ABI
 * version) with the reason logged, naming so; *dl is then closed.
 */
int loader_open(const char *so, void **dl, const struct plugin_ops **ops);

/* The version check alone: 0, or -EPROTO with an error naming so, the
 * plugin's version and the worker's. */
int loader_check_abi(const char *so, const struct plugin_ops *ops);

#endif
