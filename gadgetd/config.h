/*
 * config: gadgetd.conf, the daemon's own settings (libconfig).
 *
 *   profile = "android";                     # active profile (required)
 *   profile_dir = "/etc/gadgetd/profiles";   # default: beside this file,
 *                                            #   in profiles/
 *   udc = "auto";                            # or a UDC name ("dummy_udc.0")
 *   state_file = "/var/lib/gadgetd/state";
 *   group = "plugdev";                       # may switch besides root
 *   gadget_name = "gadgetd";                 # the ConfigFS gadget directory
 *   ffs_dir = "/dev/gadgetd";                # FunctionFS mount points
 *   plugin_dir = "/usr/lib/gadgetd";         # plugin shared objects
 *   worker = "/usr/libexec/gadgetd/gadgetd-worker";
 *   ready_timeout = 5000;                    # ms for a plugin to be ready
 *   bind_timeout = 5000;                     # ms for the host to configure
 *
 * Relative paths are taken relative to the directory of the file.
 */
#ifndef GADGETD_CONFIG_H
#define GADGETD_CONFIG_H

#include <stddef.h>

struct config {
	char *path;
	char *profile;
	char *profile_dir;
	char *udc;         /* "auto" or a name */
	char *state_file;
	char *group;       /* NULL: root only */
	char *gadget_name;
	char *ffs_dir;
	char *plugin_dir;
	char *worker;
	unsigned ready_timeout_ms;
	unsigned bind_timeout_ms;
	/* First delay before a crashed worker starts again; doubles. */
	unsigned restart_delay_ms;
};

/* Same error convention as profile_load(). */
int config_load(const char *path, struct config **out, char *err,
		size_t err_size);
int config_parse(const char *path, const char *text, struct config **out,
		 char *err, size_t err_size);
void config_free(struct config *c);

/* profile_dir/NAME.conf into buf. */
void config_profile_path(const struct config *c, const char *name, char *buf,
			 size_t size);

#endif
