/*
 * describe: `gadgetd-worker --describe PLUGIN.so [USER]` prints the
 * plugin's declaration (plugin_meta.h) as metatext lines (metatext.h), so
 * that gadgetd and gadgetctl learn an out-of-tree plugin's options and
 * commands without loading its code themselves.
 *
 * Started as root, it first becomes USER (default gadgetd-worker) with no
 * capability, then loads the plugin (refusing another ABI version as a
 * worker does, loader.h), then installs the worker's seccomp filter, and
 * only then prints.
 */
#ifndef GADGETD_DESCRIBE_H
#define GADGETD_DESCRIBE_H

#include <stdio.h>

/* Describe so onto out as user (NULL: the fallback user). 0 or -errno,
 * the reason logged. The process is sandboxed afterwards: it should exit. */
int describe_run(const char *so, const char *user, FILE *out);

#endif
