/*
 * plugin_meta: everything gadgetd, gadgetctl and the worker need to know
 * about a FunctionFS plugin without loading it, declared once per plugin
 * in functions/NAME/NAME_meta.c:
 *
 *     const struct plugin_meta adb_meta = { .name = "adb", ... };
 *
 * and named in its plugin.mk (adb_META := functions/adb/adb_meta.c). The
 * build lists every built plugin's declaration in plugin_list.h's
 * plugin_list_metas[], from which the rest is derived: the profile's option
 * checks (gadgetd/optcheck.c), the default user (gadgetd/profile.c), what
 * the control socket's group may run (gadgetd/access.c) and the
 * sysusers.d file (gadgetd/sysusers_gen.c). The plugin's own ops table
 * points to the same declaration (plugin.h, .meta) for its defaults, its
 * seccomp filter and its spawner. tests/unit/test_plugin_list.c checks
 * each derived thing, and man/gadgetd.conf.5's option list, against it.
 *
 * Header only, with no dependencies beyond optdesc.h.
 */
#ifndef GADGETD_PLUGIN_META_H
#define GADGETD_PLUGIN_META_H

#include <stdbool.h>
#include <stddef.h>

#include "optdesc.h"

/* The user (and group: sysusers.d gives each user a group of its name) of
 * a plugin that declares none, and of any plugin gadgetd does not ship. */
#define PLUGIN_META_FALLBACK_USER "gadgetd-worker"
#define PLUGIN_META_FALLBACK_GECOS "gadgetd plugin worker"

struct plugin_meta {
	/* The plugin's name, as in a profile's `plugin = "adb"` and in
	 * PLUGINDIR/NAME.so. */
	const char *name;

	/*
	 * Its options (name, type, default, help), ending with a NULL name.
	 * gadgetd checks a profile against them without loading the plugin,
	 * refusing unknown names and ill-typed values, and hands the plugin
	 * canonical text (booleans "true"/"false", integers in decimal). The
	 * plugin reads a value or its declared default with
	 * plugin_option_or_default() (plugin.h). man/gadgetd.conf.5's
	 * "Plugin options" documents each one.
	 */
	const struct optdesc *options;

	/*
	 * The system user its worker runs as when the profile names none
	 * (NULL: PLUGIN_META_FALLBACK_USER), and the user's description in
	 * the sysusers.d file. The user's primary group is its own, of the
	 * same name. `make install` and the package create the user.
	 */
	const char *user;
	const char *user_gecos;

	/*
	 * The plugin commands (`gadgetctl NAME COMMAND ...`) a member of the
	 * control socket's group may run, each list NULL-terminated, may be
	 * NULL. read_commands only read ("adb keys", "mtp stats"): over
	 * D-Bus, org.gadgetd1.query. drive_commands drive a device the
	 * gadget presents to the host, what the group is for (typing on
	 * hid's keyboard): over D-Bus, org.gadgetd1.drive. Any other needs
	 * root or admin_group (org.gadgetd1.command), so a command added to
	 * a plugin later is closed until it is listed here.
	 */
	const char *const *read_commands;
	const char *const *drive_commands;

	/*
	 * Its seccomp needs: the system calls it makes after init beyond the
	 * runtime's own (functions/runtime/sandbox.c), including through libc
	 * (opendir is openat, getdents64, fstat...), NULL-terminated, may be
	 * NULL. Anything else kills the worker with SIGSYS.
	 */
	const char *const *syscalls;

	/*
	 * It starts programs (plugin_spawn()): the worker forks the spawner
	 * before the filter, with the options "shell" (an absolute path;
	 * default the declared one, else /bin/sh) and "reboot_command"
	 * (none: reboot refused).
	 */
	bool spawns;

	/*
	 * The one set its worker may ask gadgetd to switch to (besides
	 * "revert"), from its options: option(key, ctx) gives a profile value
	 * as written, or NULL when absent (defaults are this function's to
	 * apply). NULL: its worker may ask for no switch. gadgetd checks the
	 * worker's requests against it; the worker asks for the same.
	 */
	const char *(*switch_set)(const char *(*option)(const char *key, const void *ctx),
				  const void *ctx);
};

/*
 * The one "option or default" rule: value when it is given (even empty:
 * the plugin then refuses it or takes it as written), else the default m
 * declares for key, else NULL (m may be NULL).
 */
static inline const char *plugin_meta_option(const struct plugin_meta *m,
					     const char *value, const char *key)
{
	if (value)
		return value;
	return m ? optdesc_default(m->options, key) : NULL;
}

/* The user a plugin's worker runs as by default (m may be NULL). */
static inline const char *plugin_meta_user(const struct plugin_meta *m)
{
	return m && m->user ? m->user : PLUGIN_META_FALLBACK_USER;
}

#endif
