/*
 * sysusers_gen: prints gadgetd's sysusers.d(5) file, one line per default
 * user the built plugins declare (plugin_list.h) and one for the fallback
 * user, so that the users `make install` and the package create are those
 * gadgetd and the profiles expect.
 *
 * A host program: the Makefile builds it with HOSTCC from the same
 * declarations, and runs it at build time, also when CC is a cross
 * compiler.
 */
#include "plugin_list.h"

#include <stdio.h>
#include <string.h>

/* Whether a plugin before the i-th already declared user. */
static int sysusers_gen_seen(size_t i, const char *user)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(plugin_meta_user(plugin_list_metas[j]), user))
			return 1;
	return 0;
}

static void sysusers_gen_line(const char *user, const char *gecos)
{
	char quoted[128];

	snprintf(quoted, sizeof(quoted), "\"%s\"", gecos);
	printf("u %-14s - %-26s /nonexistent /usr/sbin/nologin\n", user, quoted);
}

int main(void)
{
	const struct plugin_meta *m;
	size_t i;

	printf("# sysusers.d(5): the unprivileged users gadgetd's workers run as by default\n"
	       "# (gadgetd.conf(5), \"user\"). Each gets a group of the same name.\n");
	for (i = 0; (m = plugin_list_metas[i]); i++) {
		const char *user = plugin_meta_user(m);

		if (!strcmp(user, PLUGIN_META_FALLBACK_USER) || sysusers_gen_seen(i, user))
			continue;
		sysusers_gen_line(user, m->user_gecos ? m->user_gecos : user);
	}
	sysusers_gen_line(PLUGIN_META_FALLBACK_USER, PLUGIN_META_FALLBACK_GECOS);
	return fflush(stdout) ? 1 : 0;
}
