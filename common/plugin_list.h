/*
 * plugin_list: the declarations (plugin_meta.h) of the plugins built with
 * gadgetd, listed once. The list is generated from the Makefile's PLUGINS
 * and each plugin.mk's NAME_META (build/gen/plugin_list.c), so adding a
 * plugin folder adds it here and to everything derived from it.
 */
#ifndef GADGETD_PLUGIN_LIST_H
#define GADGETD_PLUGIN_LIST_H

#include <string.h>

#include "plugin_meta.h"

/* In the order of PLUGINS, ending with NULL. */
extern const struct plugin_meta *const plugin_list_metas[];

/* The declaration of the plugin called name, or NULL for a plugin
 * gadgetd does not ship. */
static inline const struct plugin_meta *plugin_list_find(const char *name)
{
	const struct plugin_meta *const *m;

	for (m = plugin_list_metas; name && *m; m++)
		if (!strcmp((*m)->name, name))
			return *m;
	return NULL;
}

#endif
