/* access: who the peer on a control socket is, as the kernel recorded it
 * at connect time (not what /etc/group says now). */
#include "access.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

static bool access_peer_has(const gid_t *groups, size_t n, gid_t gid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

int access_peer_identify(int fd, const struct access_policy *p,
			 struct access_peer *peer)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t buf[64], *groups = buf;
	int r = 0;

	*peer = (struct access_peer){ 0 };
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	/* A buffer, never NULL to ask the size: qemu-user (7.2) writes to
	 * it even then (EFAULT). On ERANGE the kernel says how large the
	 * list is; the peer's groups are fixed at connect, so once. */
	len = sizeof(buf);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, buf, &len) < 0) {
		if (errno != ERANGE || len <= sizeof(buf))
			return -errno;
		groups = malloc(len);
		if (!groups)
			return -ENOMEM;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
			r = -errno;
	}
	if (!r) {
		size_t n = len / sizeof(gid_t);

		peer->uid = cred.uid;
		peer->gid = cred.gid;
		peer->pid = cred.pid;
		peer->in_group = p->group && (cred.gid == p->group_gid ||
					      access_peer_has(groups, n, p->group_gid));
		peer->in_admin = p->admin_group && (cred.gid == p->admin_gid ||
						    access_peer_has(groups, n, p->admin_gid));
	}
	if (groups != buf)
		free(groups);
	return r;
}
