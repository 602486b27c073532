/*
 * access: who may do what over the control socket.
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
 * Choosing another profile, reload, off and every plugin command not
 * listed as read-only (above all "adb allow", which changes trust) need
 * root or admin_group.
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
 * SO_PEERGROUPS). */
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

/*
 * May peer make this request? type is an enum ctl_type, argv its
 * arguments; active is the active profile's name (NULL if none) and
 * plugin the plugin behind argv[0] for CTL_FUNCTION (NULL if the
 * function is unknown); for CTL_STORAGE, ACCESS_GROUP_MEDIA when the
 * profile lets group change the named function's media, else NULL. Returns 0, or -EACCES with why saying what is
 * refused and who may do it.
 */
#define ACCESS_GROUP_MEDIA "group_media"

/*
 * What a plugin command (argv[0] the function, argv[1] the command) of
 * plugin does, from the plugin's declaration (plugin_meta.h): only
 * reads, drives a device the host sees (both open to group), or
 * anything else (root and admin_group).
 */
enum access_command {
	ACCESS_COMMAND_READ,
	ACCESS_COMMAND_DRIVE,
	ACCESS_COMMAND_ADMIN,
};
enum access_command access_command_kind(const char *plugin, int argc, char **argv);

int access_check(const struct access_policy *p, const struct access_peer *peer,
		 uint16_t type, int argc, char **argv, const char *active,
		 const char *plugin, char *why, size_t size);

/* Fill peer for the client on fd; -errno if the kernel cannot say. */
int access_peer_identify(int fd, const struct access_policy *p,
			 struct access_peer *peer);

#endif
