/*
 * optcheck: a profile's option values checked against their declaration
 * (common/optdesc.h) and turned into canonical text.
 */
#ifndef GADGETD_OPTCHECK_H
#define GADGETD_OPTCHECK_H

#include <libconfig.h>
#include <stddef.h>

#include "optdesc.h"

/* Longest canonical value, without its NUL. */
#define OPTCHECK_VALUE_MAX 1024

/*
 * Check setting s against d. 0 with the canonical text in out (at least
 * OPTCHECK_VALUE_MAX + 1 bytes), or -EINVAL with why ("expected ...",
 * no location: the caller names the file, line and field).
 */
int optcheck_value(const struct optdesc *d, const config_setting_t *s,
		   char *out, size_t out_size, char *why, size_t why_size);

/*
 * The option declarations of the plugin named plugin (its plugin_meta,
 * common/plugin_list.h), or NULL for a plugin gadgetd does not know: its
 * options are then passed as they are, unchecked.
 */
const struct optdesc *optcheck_plugin(const char *plugin);

/* "auth, keys, ...": the names a table declares, for messages ("none"
 * for an empty table). */
void optcheck_names(const struct optdesc *table, char *buf, size_t size);

#endif
