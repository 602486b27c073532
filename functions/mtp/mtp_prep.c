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
			  "a storage is never made through one", i, path,
			  (int)(end - path), path);
		return -ELOOP;
	}
	log_warnx("mtp: option storage%u_path: %s: cannot create %.*s: %s", i,
		  path, (int)(end - path), path, strerror(err));
	return -err;
}

/*
 * One step of the walk: open name beneath dfd, making it first if it is
 * missing. What was made here is set up (mode, and the owner for the
 * storage itself); what existed is left as it was.
 */
static int mtp_prep_step(unsigned i, const char *path, const char *end,
			 int dfd, const char *name, bool last, uid_t uid,
			 gid_t gid)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool made = false;
	int fd;

	fd = openat(dfd, name, flags);
	if (fd < 0 && errno == ENOENT) {
		/* 0700 until the folder is set up: nobody slips in before. */
		if (mkdirat(dfd, name, 0700) == 0)
			made = true;
		else if (errno != EEXIST)
			return mtp_prep_refuse(i, path, end, dfd, name, errno);
		fd = openat(dfd, name, flags);
	}
	if (fd < 0)
		return mtp_prep_refuse(i, path, end, dfd, name, errno);
	if (!made)
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

static int mtp_prep_create(unsigned i, const char *path, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX], *name, *next;
	int dfd, fd;

	if (path[0] != '/' || snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		log_warnx("mtp: option storage%u_path: %s: a storage to create "
			  "needs an absolute path", i, path);
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
				  "are not allowed in a storage to create", i, path);
			close(dfd);
			return -EINVAL;
		}
		/* Skip trailing slashes to know the last component. */
		while (next && *next == '/')
			next++;
		fd = mtp_prep_step(i, path, path + (name - buf) + strlen(name), dfd,
				   name, !next || !*next, uid, gid);
		close(dfd);
		if (fd < 0)
			return fd;
		dfd = fd;
		if (next && !*next)
			next = NULL;
	}
	close(dfd);
	return 0;
}

int mtp_prep_storage(unsigned i, const char *path, bool create, uid_t uid,
		     gid_t gid)
{
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return create ? mtp_prep_create(i, path, uid, gid) : 0;
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP) &&
	    lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		log_warnx("mtp: option storage%u_path: %s is a symbolic link; a "
			  "storage must be the folder itself", i, path);
		return -ELOOP;
	}
	if (fd < 0) {
		log_warn("mtp: option storage%u_path: %s", i, path);
		return -errno;
	}
	r = mtp_prep_adopt(i, path, fd, uid, gid);
	close(fd);
	return r;
}
