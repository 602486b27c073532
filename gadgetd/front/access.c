/* access: the control socket's authority rules (see access.h). */
#include "access.h"
#include "ootmeta.h"
#include "request.h"

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

void access_grant(struct access_peer *peer, enum access_role role)
{
	peer->in_group = role >= ACCESS_GROUP;
	peer->in_admin = role >= ACCESS_ADMIN;
}

enum access_command access_command_kind(const char *plugin, const char *command)
{
	const struct plugin_meta *m = plugin ? ootmeta_find(plugin) : NULL;
	const struct plugin_command *c = command ? plugin_meta_command(m, command) : NULL;

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
static const char *access_admin_only(const struct request *req,
				     const struct access_view *v, char *buf, size_t size)
{
	switch (req->op) {
	case REQUEST_SWITCH:
		/* --profile naming the active profile chooses nothing new. */
		if (req->profile && (!v->active || strcmp(req->profile, v->active)))
			return "choosing another profile (switch --profile)";
		return NULL;
	case REQUEST_OFF:
		return "off";
	case REQUEST_RELOAD:
		return "reload";
	case REQUEST_LOCK:
		return req->lock ? "lock" : "unlock";
	case REQUEST_COMMAND:
		if (access_command_kind(v->plugin, req->command) != ACCESS_COMMAND_ADMIN)
			return NULL;
		snprintf(buf, size, "the plugin command \"%s%s%s\"",
			 req->function ? req->function : "", req->command ? " " : "",
			 req->command ? req->command : "");
		return buf;
	case REQUEST_STORAGE:
		/*
		 * Inserting makes gadgetd (root) serve a file to the USB host,
		 * read and written: naming any file would hand group every
		 * file of the board. So changing media is for administrators,
		 * unless the profile opens it to group (group_media), whose
		 * images are then confined to media_dir (gadget_storage()).
		 */
		if (req->storage.op == STORAGE_STATUS)
			return NULL;
		if (v->group_media)
			return NULL;
		return "changing media (storage insert/eject) without group_media in the profile";
	case REQUEST_LIST:
	case REQUEST_STATUS:
	case REQUEST_MONITOR:
	case REQUEST_WAIT:
	case REQUEST_UNKNOWN:
	/* Like a key typed into the host (a plugin's drive command). */
	case REQUEST_WAKEUP:
		break;
	}
	return NULL; /* status, list, and unknown types the dispatcher refuses */
}

int access_check(const struct access_policy *p, const struct access_peer *peer,
		 const struct request *req, const struct access_view *view,
		 char *why, size_t size)
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
	what = access_admin_only(req, view, what_buf, sizeof(what_buf));
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
