#include "mtp_prep.h"
#include "fsutil.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder exists: the worker's user adopts it. */
static int mtp_prep_adopt(const char *name, unsigned i, const char *path,
			  int fd, uid_t uid, gid_t gid)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || fchown(fd, uid, gid) < 0 ||
	    fchmod(fd, st.st_mode & 0770) < 0) {
		log_warn("%s: option storage%u_path: cannot hand %s to uid %u",
			 name, i, path, (unsigned)uid);
		return -errno;
	}
	return 0;
}

/*
 * Walk path from "/" one component at a time, never following a link (a
 * link anywhere on the way, not only at the end, could send the storage
 * and its chown elsewhere). What is made here is set up (mode, and the
 * owner for the storage itself); what existed is left as it was. The
 * storage folder's fd, -ENOENT when something is missing and create is
 * not set, or -errno (logged).
 */
static int mtp_prep_walk(const char *name, unsigned i, const char *path,
			 bool create, uid_t uid, gid_t gid, bool *made)
{
	const struct fsutil_mkdir o = {
		.flags = FSUTIL_MKDIR_NOFOLLOW | FSUTIL_MKDIR_NO_DOTS |
			 (create ? 0 : FSUTIL_MKDIR_NO_CREATE),
		.mode = 0750,
		.parent_mode = 0755,
		.uid = uid,
		.gid = gid,
	};
	struct fsutil_mkdir_result res;
	int fd;

	*made = false;
	fd = path[0] == '/' ? fsutil_mkdir_p(path, &o, &res) : -EINVAL;
	if (fd == -EINVAL && path[0] == '/') {
		log_warnx("%s: option storage%u_path: %s: \".\" and \"..\" "
			  "are not allowed in a storage path", name, i, path);
		return fd;
	}
	if (fd == -EINVAL || fd == -ENAMETOOLONG) {
		log_warnx("%s: option storage%u_path: %s: a storage needs an "
			  "absolute path", name, i, path);
		return -EINVAL;
	}
	if (fd == -ENOENT && !create)
		return fd;
	if (fd == -ELOOP) {
		log_warnx(
		    "%s: option storage%u_path: %s: %.*s is a symbolic link; "
		    "give the real path: no link is followed to a storage",
		    name, i, path, (int)res.len, path);
		return fd;
	}
	if (fd < 0) {
		log_warnx("%s: option storage%u_path: %s: cannot open or "
			  "create %.*s: %s",
			  name, i, path, (int)res.len, path, strerror(-fd));
		return fd;
	}
	*made = res.made;
	if (res.made)
		log_info("%s: made storage %s for uid %u", name, path,
			 (unsigned)uid);
	return fd;
}

int mtp_prep_storage(const char *name, unsigned i, const char *path,
		     bool create, uid_t uid, gid_t gid)
{
	bool made;
	int fd, r;

	fd = mtp_prep_walk(name, i, path, create, uid, gid, &made);
	/* Missing and not to be made: left for init to report (a typo must
	 * not make a folder). */
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = made ? 0 : mtp_prep_adopt(name, i, path, fd, uid, gid);
	close(fd);
	return r;
}

void mtp_prep_fail(const char *name, unsigned i, const char *path, int rc)
{
	if (rc == -ENOSYS)
		log_warnx("%s: option storage%u_path: %s: confining a storage "
			  "needs openat2 (Linux 5.6 or later)", name, i, path);
	else if (rc == -ELOOP)
		log_warnx("%s: option storage%u_path: %s: a component is a "
			  "symbolic link; give the real path: no link is "
			  "followed to a storage", name, i, path);
	else if (rc == -ENOENT)
		log_warnx("%s: option storage%u_path: %s: %s (set "
			  "storage%u_create = true to have it made)", name, i,
			  path, strerror(-rc), i);
	else
		log_warnx("%s: option storage%u_path: %s: %s", name, i, path,
			  strerror(-rc));
}
