/* fsutil: mkdir -p and the atomic file replacement, shared by all. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

static void fsutil_stop(struct fsutil_mkdir_result *res, size_t len,
			enum fsutil_mkdir_step step)
{
	res->len = len;
	res->step = step;
}

/*
 * mkdirat(dfd, name, 0700). Root without CAP_DAC_OVERRIDE (gadgetd's
 * unit) may not write a folder o->uid owns, such as one function's
 * storage where another of that user's makes its own (/srv/mtp/DCIM for
 * PTP in MTP's /srv/mtp): there the folder is made as that user, which
 * it may always do itself (setfsuid, with CAP_SETUID).
 */
static int fsutil_mkdirat(int dfd, const char *name, const struct fsutil_mkdir *o)
{
	struct stat st;
	uid_t ouid;
	gid_t ogid;
	int r, err;

	if (mkdirat(dfd, name, 0700) == 0)
		return 0;
	if (errno != EACCES)
		return -1;
	if (o->uid == (uid_t)-1 || geteuid() != 0 || fstat(dfd, &st) < 0 ||
	    st.st_uid != o->uid) {
		errno = EACCES;
		return -1;
	}
	ouid = setfsuid(o->uid);
	ogid = setfsgid(o->gid);
	r = mkdirat(dfd, name, 0700);
	err = errno;
	setfsgid(ogid);
	setfsuid(ouid);
	errno = err;
	return r;
}

/*
 * Open (or make, then open) name beneath dfd. A folder made here gets its
 * mode, and its owner when last, through the fd: the name cannot be
 * swapped for something else between the two.
 */
static int fsutil_mkdir_step(int dfd, const char *name, bool last,
			     const struct fsutil_mkdir *o,
			     struct fsutil_mkdir_result *res)
{
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	bool made = false;
	struct stat st;
	int fd, err;

	if (o->flags & FSUTIL_MKDIR_NOFOLLOW)
		flags |= O_NOFOLLOW;
	fd = openat(dfd, name, flags);
	if (fd < 0 && errno == ENOENT && !(o->flags & FSUTIL_MKDIR_NO_CREATE)) {
		if (fsutil_mkdirat(dfd, name, o) == 0)
			made = true;
		else if (errno != EEXIST)
			return -errno;
		fd = openat(dfd, name, flags);
	}
	if (fd < 0) {
		err = errno;
		/* O_NOFOLLOW|O_DIRECTORY reads a link as ENOTDIR: say which. */
		if (err == ENOTDIR && (o->flags & FSUTIL_MKDIR_NOFOLLOW) &&
		    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			err = ELOOP;
		return -err;
	}
	if (last)
		res->made = made;
	if (!made)
		return fd;
	res->step = FSUTIL_MKDIR_MODE;
	if (fchmod(fd, last ? o->mode : o->parent_mode) < 0)
		goto fail;
	res->step = FSUTIL_MKDIR_OWNER;
	if (last && o->uid != (uid_t)-1 && fchown(fd, o->uid, o->gid) < 0)
		goto fail;
	res->step = FSUTIL_MKDIR_OPEN;
	return fd;
fail:
	err = errno;
	close(fd);
	return -err;
}

/* Whether a component of path is "." or "..". */
static bool fsutil_has_dots(const char *path)
{
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

int fsutil_mkdir_p(const char *path, const struct fsutil_mkdir *o,
		   struct fsutil_mkdir_result *res)
{
	struct fsutil_mkdir_result dummy;
	char buf[PATH_MAX];
	char *name, *next, *end;
	int dfd, fd;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (!path[0])
		return -EINVAL;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	end = buf + strlen(buf);
	if (o->flags & FSUTIL_MKDIR_PARENTS) {
		/* The folders above the file: up to its last slash. */
		char *slash = strrchr(buf, '/');

		end = slash ? slash : buf;
		*end = '\0';
	}
	if ((o->flags & FSUTIL_MKDIR_NO_DOTS) && fsutil_has_dots(buf))
		return -EINVAL;
	dfd = open(buf[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (name = buf; name < end; name = next) {
		bool last;

		while (*name == '/')
			name++;
		if (!*name)
			break;
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		else
			next = name + strlen(name);
		/* Slashes at the end do not make another component. */
		while (next < end && *next == '/')
			next++;
		last = next >= end;
		fsutil_stop(res, (size_t)(name - buf) + strlen(name),
			    FSUTIL_MKDIR_OPEN);
		fd = fsutil_mkdir_step(dfd, name, last, o, res);
		close(dfd);
		if (fd < 0)
			return fd;
		dfd = fd;
	}
	return dfd;
}

static int fsutil_write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* The rename is only durable once the folder holding it is. */
static int fsutil_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

int fsutil_write_atomic(const char *path, const void *buf, size_t len,
			mode_t mode)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dlen = slash ? (int)(slash - path) : 0;
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd, n, r;

	if (!*base)
		return -EISDIR;
	n = slash ? snprintf(tmp, sizeof(tmp), "%.*s/.%s.tmp", dlen, path, base)
		  : snprintf(tmp, sizeof(tmp), ".%s.tmp", base);
	if (n < 0 || n >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", dlen, path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  mode);
	if (fd < 0)
		return -errno;
	r = fsutil_write_all(fd, buf, len);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return fsutil_sync_dir(dir);
}
