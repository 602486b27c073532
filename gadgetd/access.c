/* access: the control socket's authority rules (see access.h). */
#include "access.h"
#include "ctl.h"
#include "plugin_list.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum access_role access_role(const struct access_peer *peer)
{
	if (peer->uid == 0)
		return ACCESS_ROOT;
	if (peer->in_admin)
		return ACCESS_ADMIN;
	if (peer->in_group)
		return ACCESS_GROUP;
	return ACCESS_OTHER;
}

enum access_command access_command_kind(const char *plugin, int argc, char **argv)
{
	const struct plugin_meta *m = plugin ? plugin_list_find(plugin) : NULL;
	const struct plugin_command *c = argc >= 2 ? plugin_meta_command(m, argv[1]) : NULL;

	switch (c ? c->access : PLUGIN_ACCESS_ADMIN) {
	case PLUGIN_ACCESS_READ:
		return ACCESS_COMMAND_READ;
	case PLUGIN_ACCESS_DRIVE:
		return ACCESS_COMMAND_DRIVE;
	case PLUGIN_ACCESS_ADMIN:
		break;
	}
	return ACCESS_COMMAND_ADMIN;
}

/* What the request does, for the refusal; NULL if group may do it. */
static const char *access_admin_only(uint16_t type, int argc, char **argv,
				     const char *active, const char *plugin,
				     char *buf, size_t size)
{
	switch (type) {
	case CTL_SWITCH:
		/* --profile naming the active profile chooses nothing new. */
		if (argc >= 2 && !strcmp(argv[0], "--profile") &&
		    (!active || strcmp(argv[1], active)))
			return "choosing another profile (switch --profile)";
		return NULL;
	case CTL_OFF:
		return "off";
	case CTL_RELOAD:
		return "reload";
	case CTL_FUNCTION:
		if (access_command_kind(plugin, argc, argv) != ACCESS_COMMAND_ADMIN)
			return NULL;
		snprintf(buf, size, "the plugin command \"%s%s%s\"", argc > 0 ? argv[0] : "",
			 argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
		return buf;
	case CTL_STORAGE:
		/*
		 * Inserting makes gadgetd (root) serve a file to the USB host,
		 * read and written: naming any file would hand group every
		 * file of the board. So changing media is for administrators,
		 * unless the profile opens it to group (group_media), whose
		 * images are then confined to media_dir (gadget_storage()).
		 */
		if (argc > 0 && !strcmp(argv[0], "status"))
			return NULL;
		if (plugin && !strcmp(plugin, ACCESS_GROUP_MEDIA))
			return NULL;
		return "changing media (storage insert/eject) without group_media in the profile";
	}
	return NULL; /* status, list, and unknown types the dispatcher refuses */
}

int access_check(const struct access_policy *p, const struct access_peer *peer,
		 uint16_t type, int argc, char **argv, const char *active,
		 const char *plugin, char *why, size_t size)
{
	enum access_role role = access_role(peer);
	char what_buf[160];
	const char *what;

	switch (role) {
	case ACCESS_ROOT:
	case ACCESS_ADMIN:
		return 0;
	case ACCESS_GROUP:
		break;
	case ACCESS_OTHER:
		snprintf(why, size, "permission denied: uid %u is neither root nor a member "
			 "of group %s%s%s", (unsigned)peer->uid, p->group ? p->group : "(none set)",
			 p->admin_group ? " or " : "", p->admin_group ? p->admin_group : "");
		return -EACCES;
	}
	what = access_admin_only(type, argc, argv, active, plugin, what_buf,
				 sizeof(what_buf));
	if (!what)
		return 0;
	if (p->admin_group)
		snprintf(why, size, "permission denied: %s is for root and group %s; "
			 "group %s may read status and switch among the sets of the "
			 "active profile", what, p->admin_group, p->group);
	else
		snprintf(why, size, "permission denied: %s is for root (no admin_group in "
			 "gadgetd.conf); group %s may read status and switch among the "
			 "sets of the active profile", what, p->group);
	return -EACCES;
}
