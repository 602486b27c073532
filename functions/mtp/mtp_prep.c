#include "mtp_prep.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder exists: the worker's user adopts it. */
static int mtp_prep_adopt(unsigned i, const char *path, int fd, uid_t uid,
			  gid_t gid)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || fchown(fd, uid, gid) < 0 ||
	    fchmod(fd, st.st_mode & 0770) < 0) {
		log_warn("mtp: option storage%u_path: cannot hand %s to uid %u", i,
			 path, (unsigned)uid);
		return -errno;
	}
	return 0;
}

/* Why component name (ending at end in path) could not be opened. */
static int mtp_prep_refuse(unsigned i, const char *path, const char *end,
			   int dfd, const char *name, int err)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		log_warnx("mtp: option storage%u_path: %s: %.*s is a symbolic link; "
			  "give the real path: no link is followed to a storage", i,
			  path, (int)(end - path), path);
		return -ELOOP;
	}
	log_warnx("mtp: option storage%u_path: %s: cannot open or create %.*s: %s",
		  i, path, (int)(end - path), path, strerror(err));
	return -err;
}

/*
 * One step of the walk: open name beneath dfd without following it,
 * making it first if it is missing and create is set (-ENOENT, unlogged,
 * when it is missing and create is not). What was made here is set up
 * (mode, and the owner for the storage itself); what existed is left as
 * it was.
 */
static int mtp_prep_step(unsigned i, const char *path, const char *end,
			 int dfd, const char *name, bool last, bool create,
			 uid_t uid, gid_t gid, bool *made)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	*made = false;
	fd = openat(dfd, name, flags);
	if (fd < 0 && errno == ENOENT && !create)
		return -ENOENT;
	if (fd < 0 && errno == ENOENT) {
		/* 0700 until the folder is set up: nobody slips in before. */
		if (mkdirat(dfd, name, 0700) == 0)
			*made = true;
		else if (errno != EEXIST)
			return mtp_prep_refuse(i, path, end, dfd, name, errno);
		fd = openat(dfd, name, flags);
	}
	if (fd < 0)
		return mtp_prep_refuse(i, path, end, dfd, name, errno);
	if (!*made)
		return fd;
	/* The mode first, while the folder is still ours: then no
	 * CAP_FOWNER is needed. */
	if (fchmod(fd, last ? 0750 : 0755) < 0 ||
	    (last && fchown(fd, uid, gid) < 0)) {
		int err = errno;
		close(fd);
		return mtp_prep_refuse(i, path, end, dfd, name, err);
	}
	if (last)
		log_info("mtp: made storage %s for uid %u", path, (unsigned)uid);
	return fd;
}

/*
 * Walk path from "/" one component at a time, never following a link (a
 * link anywhere on the way, not only at the end, could send the storage
 * and its chown elsewhere). The storage folder's fd, -ENOENT when
 * something is missing and create is not set, or -errno (logged).
 */
static int mtp_prep_walk(unsigned i, const char *path, bool create,
			 uid_t uid, gid_t gid, bool *made)
{
	char buf[PATH_MAX], *name, *next;
	int dfd, fd;

	*made = false;
	if (path[0] != '/' || snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		log_warnx("mtp: option storage%u_path: %s: a storage needs an "
			  "absolute path", i, path);
		return -EINVAL;
	}
	dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (name = buf + 1; name; name = next) {
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		if (!*name)
			continue;
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			log_warnx("mtp: option storage%u_path: %s: \".\" and \"..\" "
				  "are not allowed in a storage path", i, path);
			close(dfd);
			return -EINVAL;
		}
		/* Skip trailing slashes to know the last component. */
		while (next && *next == '/')
			next++;
		fd = mtp_prep_step(i, path, path + (name - buf) + strlen(name), dfd,
				   name, !next || !*next, create, uid, gid, made);
		close(dfd);
		if (fd < 0)
			return fd;
		dfd = fd;
		if (next && !*next)
			next = NULL;
	}
	return dfd;
}

int mtp_prep_storage(unsigned i, const char *path, bool create, uid_t uid,
		     gid_t gid)
{
	bool made;
	int fd, r;

	fd = mtp_prep_walk(i, path, create, uid, gid, &made);
	/* Missing and not to be made: left for init to report (a typo must
	 * not make a folder). */
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = made ? 0 : mtp_prep_adopt(i, path, fd, uid, gid);
	close(fd);
	return r;
}
