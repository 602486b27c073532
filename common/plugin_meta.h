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
 * checks (gadgetd/profile/optcheck.c), the default user
 * (gadgetd/profile/profile.c), what the control socket's group may run
 * (gadgetd/front/access.c) and the sysusers.d file (gadgetd/sysusers_gen.c).
 * The plugin's own ops table points to the same declaration (plugin.h, .meta)
 * for its defaults, its seccomp filter and its spawner.
 * tests/unit/test_plugin_list.c checks each derived thing, and
 * man/gadgetd.conf.5's option list, against it.
 *
 * Header only, with no dependencies beyond optdesc.h.
 */
#ifndef GADGETD_PLUGIN_META_H
#define GADGETD_PLUGIN_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "optdesc.h"

/* The user (and group: sysusers.d gives each user a group of its name) of
 * a plugin that declares none, and of any plugin gadgetd does not ship. */
#define PLUGIN_META_FALLBACK_USER "gadgetd-worker"
#define PLUGIN_META_FALLBACK_GECOS "gadgetd plugin worker"

/* Who may run a plugin command, besides root and admin_group. */
enum plugin_access {
	/* Nobody else: it changes trust or the gadget ("adb allow"). */
	PLUGIN_ACCESS_ADMIN,
	/* The control socket's group: it only reads ("adb keys", "mtp
	 * stats"). Over D-Bus, org.gadgetd1.query. */
	PLUGIN_ACCESS_READ,
	/* The group: it drives a device the gadget presents to the host,
	 * what the group is for (typing on hid's keyboard). Over D-Bus,
	 * org.gadgetd1.drive. */
	PLUGIN_ACCESS_DRIVE,
};

struct plugin_command {
	const char *name; /* "keys", as in `gadgetctl adb keys` */
	const char *args; /* its arguments' synopsis ("FINGERPRINT"), "" if none */
	const char *help; /* one line */
	enum plugin_access access;
};

/* A worker that may ask to run as root and back (plugin_meta.root). */
struct plugin_meta_root {
	const char *request; /* "adb root", as the user knows it */
	const char *undo;    /* "adb unroot" */
};

/* A plugin that also serves over TCP (plugin_meta.tcp): its options' names,
 * which gadgetd reads to listen on its behalf, and what it announces. */
struct plugin_meta_tcp {
	const char *port;      /* the port to listen on, 0: off ("tcp") */
	const char *tcpip;     /* a host may start and stop TCP ("tcpip") */
	const char *interface; /* where to listen ("tcp_interface") */
	const char *service;   /* its DNS-SD type over mDNS ("_adb._tcp") */
};

/*
 * A plugin that forwards the board's own keyboards and mice to the host
 * (plugin_meta.input): its options' names, which gadgetd reads to find,
 * open and grab the devices on its behalf (gadgetd/gadget/inputfwd.c),
 * and which of its kinds takes keys, which pointer motion.
 */
struct plugin_meta_input {
	const char *forward;  /* on when it is "input" ("forward") */
	const char *match;    /* the match rules ("forward_match") */
	const char *kind;     /* the device it presents ("kind") */
	const char *keyboard; /* kind's value that takes keyboards ("keyboard") */
	const char *pointer;  /* kind's value that takes mice ("mouse") */
};

/* A status key the plugin reports whose new value is an event of its own
 * (plugin_meta.events). */
struct plugin_meta_event {
	const char *status_key; /* "waiting_key" */
	const char *name;       /* "adb-key", as `gadgetctl monitor` prints it */
};

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
	 * plugin_option_or_default(), plugin_option_bool() or
	 * plugin_option_int() (plugin.h). man/gadgetd.conf.5's
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
	 * Its commands (`gadgetctl FUNCTION COMMAND ARGS...`), ending with
	 * a NULL name, may be NULL. Each says who may run it (access below).
	 * A command not declared here is for root and admin_group alone,
	 * so one added to a plugin later is closed until it is declared.
	 * gadgetctl's help, its bash completion and gadgetctl(1) list the
	 * same (tests/unit/test_plugin_list.c checks them).
	 */
	const struct plugin_command *commands;

	/*
	 * Its worker may ask to restart as root, and back, where the profile
	 * sets `root = "allowed"`; the requests' names are for logs and
	 * status. NULL: it may not, and a profile may not set root.
	 */
	const struct plugin_meta_root *root;

	/*
	 * The option naming its file of trusted keys (adb's "keys"): a
	 * worker's request to trust a key makes gadgetd, as root, append the
	 * key there (gadgetd/supervisor/supervisor_command.c). NULL: none.
	 */
	const char *keys_option;

	/*
	 * It serves over TCP too: gadgetd listens for it (gadgetd/
	 * supervisor_tcp.c) and announces it over mDNS. NULL: USB only.
	 */
	const struct plugin_meta_tcp *tcp;

	/*
	 * It forwards local input devices: gadgetd finds and opens them for
	 * it (plugin.h, ops->input). NULL: it does not.
	 */
	const struct plugin_meta_input *input;

	/*
	 * The status keys (plugin_set_status()) whose every new, non-empty
	 * value gadgetd tells `gadgetctl monitor` as an event of this name,
	 * ending with a NULL name, may be NULL.
	 */
	const struct plugin_meta_event *events;

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

/*
 * plugin_meta_option() typed, under plugin_option_bool() and
 * plugin_option_int() (functions/runtime/plugin.h), which log why: value
 * or key's default read as a boolean (optdesc_bool()), or as an integer
 * in the range m declares for key (optdesc_int()). 0 with *out set;
 * -ENOENT when there is neither (*out untouched, why empty); -EINVAL when
 * it is none, or key is not declared an integer, with why a sentence that
 * names the option and the value.
 */
static inline int plugin_meta_option_bool(const struct plugin_meta *m,
					  const char *value, const char *key,
					  bool *out, char *why, size_t why_size)
{
	const char *v = plugin_meta_option(m, value, key);
	int b = optdesc_bool(v);

	why[0] = '\0';
	if (!v)
		return -ENOENT;
	if (b < 0) {
		snprintf(why, why_size, "option %s: \"%s\" is not true or false", key, v);
		return -EINVAL;
	}
	*out = b;
	return 0;
}

static inline int plugin_meta_option_int(const struct plugin_meta *m,
					 const char *value, const char *key,
					 long long *out, char *why, size_t why_size)
{
	const struct optdesc *d = optdesc_find(m ? m->options : NULL, key);
	const char *v = plugin_meta_option(m, value, key);
	long long n;

	why[0] = '\0';
	if (!v)
		return -ENOENT;
	if (!d || d->type != OPTDESC_INT) {
		snprintf(why, why_size, "option %s is not declared an integer", key);
		return -EINVAL;
	}
	if (optdesc_int(d, v, &n) < 0) {
		snprintf(why, why_size, "option %s: \"%s\" is not an integer in %lld..%lld",
			 key, v, d->min, d->max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/* The command name declares, or NULL (m may be NULL). */
static inline const struct plugin_command *
plugin_meta_command(const struct plugin_meta *m, const char *name)
{
	const struct plugin_command *c;

	for (c = m ? m->commands : NULL; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The user a plugin's worker runs as by default (m may be NULL). */
static inline const char *plugin_meta_user(const struct plugin_meta *m)
{
	return m && m->user ? m->user : PLUGIN_META_FALLBACK_USER;
}

#endif
