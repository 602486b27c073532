/*
 * profile_ids: who a FunctionFS function's worker runs as, once the
 * profile is parsed (profile.h): the capability names a profile's
 * `capabilities` takes, and its user and group resolved to ids on this
 * system. profile.c parses them.
 */
#include "profile.h"
#include "cfgtext.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The capability names of linux/capability.h, by number (Linux 6.1). */
static const char *const profile_ids_cap_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid",
	"kill", "setgid", "setuid", "setpcap", "linux_immutable",
	"net_bind_service", "net_broadcast", "net_admin", "net_raw",
	"ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot",
	"sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
	"sys_resource", "sys_time", "sys_tty_config", "mknod", "lease",
	"audit_write", "audit_control", "setfcap", "mac_override",
	"mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read",
	"perfmon", "bpf", "checkpoint_restore",
};

int profile_ids_cap(const char *name)
{
	unsigned i;

	if (!strncasecmp(name, "cap_", 4))
		name += 4;
	for (i = 0; i < sizeof(profile_ids_cap_names) / sizeof(*profile_ids_cap_names); i++)
		if (!strcasecmp(profile_ids_cap_names[i], name))
			return i;
	return -1;
}

static bool profile_ids_resolve_fn(struct cfgtext_err *e, struct profile_function *f)
{
	struct passwd *pw = getpwnam(f->user);
	struct group *gr;

	if (!pw) {
		e->line = f->user_line;
		if (f->user_default)
			cfgtext_error(e, NULL, "functions.%s: no user \"%s\" on this system (the default for %s%s, which `make install` creates); set user = \"NAME\"",
				      f->name, f->user, f->plugin ? "plugin " : "",
				      f->plugin ? f->plugin : f->exec);
		else
			cfgtext_error(e, NULL, "functions.%s.user: no user \"%s\" on this system",
				      f->name, f->user);
		return false;
	}
	f->uid = pw->pw_uid;
	f->gid = pw->pw_gid;
	if (!f->group)
		return true;
	gr = getgrnam(f->group);
	if (!gr) {
		e->line = f->group_line;
		cfgtext_error(e, NULL, "functions.%s.group: no group \"%s\" on this system",
			      f->name, f->group);
		return false;
	}
	f->gid = gr->gr_gid;
	return true;
}

int profile_ids_resolve(struct profile *p, char *err, size_t err_size)
{
	struct cfgtext_err e = { .file = p->path ? p->path : p->name, .buf = err,
				 .size = err_size };
	unsigned i;

	if (err_size)
		err[0] = '\0';
	for (i = 0; i < p->n_functions; i++)
		if (p->functions[i].type->ffs)
			profile_ids_resolve_fn(&e, &p->functions[i]);
	return e.count ? -ENOENT : 0;
}
