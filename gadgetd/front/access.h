/*
 * access: who may do what, over the control socket and D-Bus alike: it
 * judges a typed request (request.h), not either front end's wire.
 *
 *   root            everything
 *   admin_group     everything (gadgetd.conf; unset by default)
 *   group           status, list, switch among the active profile's sets,
 *                   read-only plugin commands (e.g. "adb keys") and those
 *                   that drive a device the host sees (hid's "type"),
 *                   storage status; storage insert/eject only where the
 *                   profile sets group_media, and then only with images
 *                   beneath the function's media_dir (storage.h)
 *   anyone else     nothing (the socket is 0660 root:group anyway)
 *
 * Choosing another profile, reload, off, lock, unlock and every plugin
 * command not
 * listed as read-only (above all "adb allow", which changes trust) need
 * root or admin_group.
 *
 * access_check() is the one check: the front ends ask it (through
 * dispatch_check()) when a request comes, and dispatch.c asks it again,
 * with the same peer, when a queued request starts.
 */
#ifndef GADGETD_ACCESS_H
#define GADGETD_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The groups from gadgetd.conf, resolved when gadgetd starts. */
struct access_policy {
	const char *group;       /* NULL: none */
	gid_t group_gid;
	const char *admin_group; /* NULL: none */
	gid_t admin_gid;
};

/* A peer as the kernel saw it when it connected (SO_PEERCRED and
 * SO_PEERGROUPS), or as the bus daemon says (D-Bus), with polkit's grant
 * if it allowed the call (access_grant()). */
struct access_peer {
	uid_t uid;
	gid_t gid;       /* primary */
	pid_t pid;
	bool in_group;   /* primary or supplementary */
	bool in_admin;
};

enum access_role {
	ACCESS_OTHER,
	ACCESS_GROUP,
	ACCESS_ADMIN,
	ACCESS_ROOT,
};

enum access_role access_role(const struct access_peer *peer);
/* peer as a grant of role makes them (polkit's, over D-Bus: group for
 * org.gadgetd1.switch, admin_group for the other actions): access_role()
 * then says role, unless peer is root. */
void access_grant(struct access_peer *peer, enum access_role role);

/*
 * What of the gadget's state a decision looks at, as dispatch_view()
 * finds it when the request comes and again when a queued one starts.
 */
struct access_view {
	const char *active; /* the active profile's name; NULL: none */
	const char *plugin; /* the plugin behind a command's function; NULL:
			     * a kernel function or an unknown one */
	bool group_media;   /* the profile lets group change the named
			     * storage function's media */
};

/*
 * What the command of plugin does, from the plugin's declaration
 * (plugin_meta.h): only reads, drives a device the host sees (both open
 * to group), or anything else, an undeclared command included (root and
 * admin_group). plugin or command may be NULL.
 */
enum access_command {
	ACCESS_COMMAND_READ,
	ACCESS_COMMAND_DRIVE,
	ACCESS_COMMAND_ADMIN,
};
enum access_command access_command_kind(const char *plugin, const char *command);

/* May peer make req (request.h), seen as view says? 0, or -EACCES with
 * why saying what is refused and who may do it. */
struct request;
int access_check(const struct access_policy *p, const struct access_peer *peer,
		 const struct request *req, const struct access_view *view,
		 char *why, size_t size);

/* Fill peer for the client on fd; -errno if the kernel cannot say. */
int access_peer_identify(int fd, const struct access_policy *p,
			 struct access_peer *peer);

#endif
