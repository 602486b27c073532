/*
 * status: what `gadgetctl status` shows, as one structure filled once
 * (gadget_status.c for the gadget, supervisor_status() for the plugins)
 * and rendered twice, as text for a terminal and as JSON for scripts;
 * and the lines of `gadgetctl monitor`, rendered the same two ways.
 * Both renderers read the same fields, so neither can show something the
 * other lacks.
 *
 * Strings are borrowed from whoever filled the structure and must outlive
 * the rendering; none may be NULL unless its comment says so. Every string
 * goes to JSON through json_str(): a UDC's name and state come from sysfs,
 * and plugins and profile errors may say anything.
 */
#ifndef GADGETD_STATUS_H
#define GADGETD_STATUS_H

#include "ctl.h"
#include "profile.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* The key/value pairs a plugin may report about itself. */
#define STATUS_PLUGIN_KV_MAX 16

/* A worker per function of a set, and as many on their way out
 * (plan.h's PLAN_MAX, which gadget_status.c checks against it). */
#define STATUS_MAX_PLUGINS (PROFILE_MAX_FUNCTIONS * 2)

struct status_plugin {
	const char *name;
	/* "starting", "ready", "enabled", "restarting" or "failed". */
	const char *state;
	int pid;                 /* 0 while none runs */
	unsigned restarts;
	bool root_allowed;       /* the profile's root = "allowed" */
	const char *root;        /* "refused", "allowed" or "active" */
	const char *root_request; /* "adb root" (plugin_meta.root) if root_allowed */
	const char *last_exit;   /* "" before the first exit */
	const char *last_error;  /* "" when the last exit said none */
	bool failed;             /* a crash loop: not restarted */
	const char *failed_why;  /* "" unless failed */
	unsigned n_kv;
	const char *kv[STATUS_PLUGIN_KV_MAX][2];
};

/* A function of the set. */
struct status_function {
	const char *name;
	const char *plugin;      /* NULL: a kernel function */
};

/* A serial function's login (console = "getty", console.h). */
struct status_console {
	const char *function;
	const char *tty;         /* "ttyGS0" */
	const char *state;       /* "starting", "running" or "failed" */
	const char *backend;     /* "systemd" or "agetty" */
};

/* A network function sharing the board's uplink (uplink = ...). */
struct status_share {
	const char *function;
	const char *link;        /* the gadget's interface, "usb0" */
	const char *uplink;      /* "eth0" or "any" */
	const char *state;       /* "on" or "failed" */
	const char *why;         /* "" unless failed */
};

/* A UDC the kernel has (/sys/class/udc). */
#define STATUS_MAX_UDCS 8
struct status_udc {
	const char *name, *state, *speed;
};

struct status {
	const char *profile;     /* NULL: none loaded */
	const char *set;         /* NULL: the gadget is off */
	/* The set's USB configurations (c.1 first), each its functions
	 * joined by commas; none while off. */
	unsigned n_configs;
	const char *configs[PROFILE_MAX_CONFIGS];
	bool switching;
	unsigned queued;         /* clients' requests waiting their turn */
	bool locked;             /* gadgetctl lock */
	const char *udc;         /* NULL: not bound */
	const char *udc_state;   /* "unbound" when not bound */
	const char *speed;       /* "-" when not bound */
	/* "suspended" (the host suspended the bus), "awake", "-" when not
	 * bound (NULL is shown as "-"); the set offers remote wakeup (its
	 * remote_wakeup). */
	const char *bus;
	bool remote_wakeup;
	unsigned switches;       /* since gadgetd started */
	time_t last_switch;      /* 0: never */
	unsigned teardown_ms, ready_ms, bind_ms, total_ms;
	const char *boot;        /* "" while starting */
	time_t failed_when;
	const char *failed;      /* "" unless the last switch failed */
	unsigned n_plugins;
	struct status_plugin plugins[STATUS_MAX_PLUGINS];
	/* The set's functions, each once, in the order of its
	 * configurations; none while off. */
	unsigned n_functions;
	struct status_function functions[PROFILE_MAX_FUNCTIONS];
	/* The logins on the set's serial ports; none while off, unbound or
	 * without a UDC. */
	unsigned n_consoles;
	struct status_console consoles[PROFILE_MAX_FUNCTIONS];
	/* The links sharing the board's uplink; none while off, unbound or
	 * without a UDC. */
	unsigned n_shares;
	struct status_share shares[PROFILE_MAX_FUNCTIONS];
	/* The UDCs: the bound one first, then the others the kernel has. */
	unsigned n_udcs;
	struct status_udc udcs[STATUS_MAX_UDCS];
};

void status_write_text(const struct status *st, FILE *out);
/* One JSON object and a newline. */
void status_write_json(const struct status *st, FILE *out);
/* The plugins alone: text lines, or the members of a JSON array. */
void status_write_plugins(const struct status *st, FILE *out, bool json);

/*
 * One `gadgetctl monitor` line for an event from gadgetd: text ("TIME
 * KIND [FUNCTION] [DETAIL] [(code N)]", with no control character, as a
 * plugin's words may be in it), or one JSON object; a newline after
 * either. gadgetctl links this file, so that every view of gadgetd's
 * state is rendered here.
 */
void status_write_event(const struct ctl_event *ev, FILE *out, bool json);

#endif
