/*
 * ootmeta: the declarations (plugin_meta.h) of plugins gadgetd does not
 * ship, learnt without loading their code: `gadgetd-worker --describe
 * PLUGINDIR/NAME.so` (functions/runtime/describe.c), run as a child with
 * a timeout and its output bounded, prints the plugin's metatext
 * (common/metatext.h), parsed here as hostile input and kept per file
 * (device, inode, mtime, size) until the file changes.
 *
 * The describe is synchronous: profile loading is (gadgetd/gadget/
 * gadget.c parses a profile in one call), so the loop waits at most
 * OOTMETA_TIMEOUT_MS for a plugin it has not described yet; the child's
 * pipes are opened and closed inside ootmeta_load(), and only that child
 * is reaped (waitpid on its pid).
 *
 * Until ootmeta_setup() names a worker, nothing is described and a
 * plugin gadgetd does not ship keeps its options unchecked (the unit
 * tests of the parser, the fuzzers).
 */
#ifndef GADGETD_OOTMETA_H
#define GADGETD_OOTMETA_H

#include <stddef.h>

#include "plugin_meta.h"

#define OOTMETA_TIMEOUT_MS 5000
/* The most plugins described at once; more are described again. */
#define OOTMETA_MAX 32

/* The describing program (gadgetd.conf's worker) and the plugin
 * directory (plugin_dir), copied; timeout_ms 0: OOTMETA_TIMEOUT_MS.
 * worker NULL: off. */
void ootmeta_setup(const char *worker, const char *plugin_dir, unsigned timeout_ms);
/* Whether ootmeta_setup() named a worker. */
int ootmeta_enabled(void);

/*
 * The declaration of the plugin called name, which gadgetd does not ship:
 * from the cache while PLUGINDIR/NAME.so is the same file, else described
 * now. NULL with why set ("/usr/lib/gadgetd/x.so: ... --describe timed
 * out after 5000 ms") when it cannot be had, and errno ENOENT when there
 * is no such file (nothing to describe; the worker will say so when it
 * starts), else EINVAL. Valid until the next ootmeta_load() of that name
 * or ootmeta_clear().
 */
const struct plugin_meta *ootmeta_load(const char *name, char *why, size_t size);

/* A plugin's declaration: a built-in's (plugin_list_find()), else the
 * cached one of an out-of-tree plugin, else NULL. Never describes. */
const struct plugin_meta *ootmeta_find(const char *name);

/* Forget every cached declaration (and the setup). */
void ootmeta_clear(void);

#endif
