/*
 * config: gadgetd.conf, the daemon's own settings (libconfig).
 *
 *   profile = "android";                     # active profile (required)
 *   profile_dir = "/etc/gadgetd/profiles";   # default: beside this file,
 *                                            #   in profiles/
 *   udc = "auto";                            # or a UDC name ("dummy_udc.0")
 *   state_file = "/var/lib/gadgetd/state";
 *   group = "plugdev";                       # may read status and switch
 *                                            #   among the active profile's sets
 *   admin_group = "gadgetadm";               # may also choose profiles, reload,
 *                                            #   off, trust-changing commands
 *   gadget_name = "gadgetd";                 # the ConfigFS gadget directory
 *   ffs_dir = "/run/gadgetd/ffs";            # FunctionFS mount points
 *   plugin_dir = "/usr/lib/gadgetd";         # plugin shared objects
 *   worker = "/usr/libexec/gadgetd/gadgetd-worker";
 *   ready_timeout = 5000;                    # ms for a plugin to be ready
 *   command_timeout = 5000;                  # ms for a plugin command's reply
 *   restart_delay = 200;                     # ms before a crashed worker
 *                                            #   starts again; doubles
 *   heartbeat_interval = 2000;               # ms between pings to a worker
 *   heartbeat_timeout = 6000;                # ms without an answer: killed
 *   restart_limit = 5;                       # crashes within restart_window
 *   restart_window = 60000;                  #   (ms) that mark a plugin failed
 *   switch_queue = 8;                        # switches and reloads that may
 *                                            #   wait behind the one running
 *   switch_queue_timeout = 60000;            # ms one may wait for its turn
 *   lock_follow = "none";                    # or "logind": the lock follows
 *                                            #   LockedHint of seat0's active
 *                                            #   session (lockhint.h)
 *
 * Relative paths are taken relative to the directory of the file.
 */
#ifndef GADGETD_CONFIG_H
#define GADGETD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "child.h"

struct config {
	char *path;
	char *profile;
	char *profile_dir;
	char *udc;         /* "auto" or a name */
	char *state_file;
	char *group;       /* NULL: root only */
	char *admin_group; /* NULL: only root administers */
	char *gadget_name;
	char *ffs_dir;
	char *plugin_dir;
	char *worker;
	unsigned ready_timeout_ms;
	unsigned command_timeout_ms;
	/* First delay before a crashed worker starts again; doubles. */
	unsigned restart_delay_ms;
	/* gadgetd's runtime folder, RUNDIR/gadgetd: not a setting (the
	 * accessory socket's path in a profile names it), but tests move it. */
	char *run_dir;
	/* A worker is pinged every heartbeat_interval_ms; one that has not
	 * answered for heartbeat_timeout_ms (>= the interval) is killed. */
	unsigned heartbeat_interval_ms;
	unsigned heartbeat_timeout_ms;
	/* restart_limit exits within restart_window_ms: no more restarts. */
	unsigned restart_limit;
	unsigned restart_window_ms;
	/* Clients' switches and reloads waiting for the one in progress: at
	 * most switch_queue (1..CONFIG_RESTART_LIMIT_MAX), each for at most
	 * switch_queue_timeout_ms. */
	unsigned switch_queue;
	unsigned switch_queue_timeout_ms;
	/* lock_follow = "logind": the lock follows seat0's active session's
	 * LockedHint (gadgetd/front/lockhint.h). */
	bool lock_follow_logind;
};

/* The most restart_limit may be: the restart record (common/child.h),
 * which workers and helpers share, keeps that many exit times. */
#define CONFIG_RESTART_LIMIT_MAX CHILD_RESTART_MAX

/* Same error convention as profile_load(). */
int config_load(const char *path, struct config **out, char *err,
		size_t err_size);
int config_parse(const char *path, const char *text, struct config **out,
		 char *err, size_t err_size);
void config_free(struct config *c);

/* A profile name: 1..CONFIG_PROFILE_NAME_MAX-1 characters of [a-z0-9_-]. */
#define CONFIG_PROFILE_NAME_MAX 64
bool config_profile_name_ok(const char *name);

/* profile_dir/NAME.conf into buf. */
void config_profile_path(const struct config *c, const char *name, char *buf,
			 size_t size);

/* One NAME.conf entry of profile_dir, as config_profile_scan() finds it. */
struct config_profile_entry {
	const char *file;  /* "NAME.conf" */
	const char *name;  /* NAME, or NULL: not a profile name, never loaded */
	bool regular;      /* a regular file (not a link, FIFO, folder...) */
};
typedef void (*config_profile_fn)(const struct config_profile_entry *e,
				  void *data);

/*
 * The one scan of profile_dir: fn for every entry named *.conf, in name
 * order. Returns the number of entries passed, or -errno when the folder
 * cannot be read.
 */
int config_profile_scan(const struct config *c, config_profile_fn fn, void *data);

/*
 * Read profile NAME's file into *text (malloc'd, NUL-terminated) and its
 * path into path. The name must pass config_profile_name_ok() (-EINVAL),
 * and the file is opened beneath profile_dir without following a link
 * (-ELOOP); it must be a regular file of at most CFGTEXT_MAX (cfgtext.h)
 * bytes without NUL bytes (-EINVAL, -EFBIG), owned by root or by us and
 * writable by nobody else (-EPERM). Other failures are -errno (-ENOENT).
 * err says which rule refused which file.
 */
int config_profile_read(const struct config *c, const char *name, char **text,
			char *path, size_t path_size, char *err, size_t err_size);

#endif
