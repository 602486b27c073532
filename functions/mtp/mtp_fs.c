#include "mtp_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* openat2(2): the fd, or -1 with errno set. */
static int mtp_fs_openat2(int dirfd, const char *path, struct open_how *how)
{
	long fd = -1;

	/* EAGAIN: a rename raced the lookup; the kernel asks for a retry. */
	for (unsigned i = 0; i < 4; i++) {
		fd = syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return (int)fd;
}

int mtp_fs_open(int dirfd, const char *name, int flags, mode_t mode)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_CLOEXEC),
	    .mode = (flags & O_CREAT) ? mode : 0,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
	};
	int fd = mtp_fs_openat2(dirfd, name, &how);

	if (fd >= 0)
		return fd;
	if (errno == ELOOP || errno == EXDEV)
		return -ENOENT;
	return -errno;
}

int mtp_fs_open_root(const char *path)
{
	struct open_how how = {
	    .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd = mtp_fs_openat2(AT_FDCWD, path, &how);

	return fd >= 0 ? fd : -errno;
}

int mtp_fs_entry(int dirfd, const char *name, struct mtp_fs_stat *st)
{
	struct statx sx;

	/* A '/' would let statx() walk (and follow links) on the way. */
	if (strchr(name, '/'))
		return -EINVAL;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_SIZE |
		      STATX_MTIME | STATX_CTIME,
		  &sx) < 0)
		return -errno;
	/* The mount's root is what a name planted over shows: not ours. */
	if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		return -EACCES;
	if (!S_ISDIR(sx.stx_mode) &&
	    (!S_ISREG(sx.stx_mode) || sx.stx_nlink != 1))
		return -EACCES;
	st->dir = S_ISDIR(sx.stx_mode);
	st->mode = sx.stx_mode & 07777;
	st->size = st->dir ? 0 : sx.stx_size;
	st->mtime = sx.stx_mtime.tv_sec;
	st->ctime = sx.stx_ctime.tv_sec;
	return 0;
}

int mtp_fs_servable(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EISDIR;
	return sb.st_nlink == 1 ? 0 : -EACCES;
}

int mtp_fs_headroom(int fd, uint64_t reserve, uint64_t *bytes)
{
	struct statvfs vfs;
	uint64_t avail;

	if (fstatvfs(fd, &vfs) < 0)
		return -errno;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*bytes = avail > reserve ? avail - reserve : 0;
	return 0;
}

int mtp_fs_room(int fd, const struct mtp_fs_reserve *r, uint64_t bytes,
		uint64_t objects)
{
	struct statvfs vfs;
	uint64_t avail, need;

	if (fstatvfs(fd, &vfs) < 0)
		return -errno;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	/* Saturating: a host's sizes must not wrap around to "it fits". */
	need = objects > UINT64_MAX / (vfs.f_frsize ? vfs.f_frsize : 1)
		   ? UINT64_MAX
		   : objects * vfs.f_frsize;
	need = bytes > UINT64_MAX - need ? UINT64_MAX : need + bytes;
	if (avail <= r->bytes || avail - r->bytes < need)
		return -ENOSPC;
	if (vfs.f_files && (vfs.f_favail <= r->inodes ||
			    vfs.f_favail - r->inodes < objects))
		return -ENOSPC;
	return 0;
}

bool mtp_fs_is_tmp(const char *name)
{
	return !strncmp(name, MTP_FS_TMP_PREFIX, strlen(MTP_FS_TMP_PREFIX));
}

static bool mtp_fs_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* A fresh DIR of dirfd (fdopendir() takes the fd it is given). */
static DIR *mtp_fs_opendir(int dirfd, const char *name)
{
	int fd = mtp_fs_open(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

static int mtp_fs_rm_at(int dfd, const char *name, unsigned depth)
{
	struct dirent *de;
	struct statx sx;
	DIR *d;
	int rc = 0;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_TYPE,
		  &sx) < 0)
		return -errno;
	/* Emptying a mount would delete outside the storage. */
	if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		return -EBUSY;
	if (!S_ISDIR(sx.stx_mode))
		return unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	if (depth >= MTP_FS_MAX_DEPTH)
		return -ELOOP;
	d = mtp_fs_opendir(dfd, name);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int r;

		if (mtp_fs_dot(de->d_name))
			continue;
		r = mtp_fs_rm_at(dirfd(d), de->d_name, depth + 1);
		if (r < 0 && rc == 0)
			rc = r;
	}
	closedir(d);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		rc = -errno;
	return rc;
}

int mtp_fs_remove(int dirfd, const char *name)
{
	return mtp_fs_rm_at(dirfd, name, 0);
}

/* Copy up to n bytes with read and write; the bytes copied or -errno. */
static ssize_t mtp_fs_copy_by_hand(int sfd, int dfd, size_t n)
{
	static char buf[65536];
	size_t done = 0;

	while (done < n) {
		size_t want = n - done < sizeof(buf) ? n - done : sizeof(buf);
		ssize_t r = read(sfd, buf, want);

		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		for (ssize_t w = 0, k; w < r; w += k) {
			k = write(dfd, buf + w, r - w);
			if (k <= 0)
				return k < 0 ? -errno : -EIO;
		}
		done += r;
	}
	return done;
}

/* A folder being walked: the source, and in the copy pass its copy. */
struct mtp_fs_copy_level {
	DIR *src;
	int dst; /* -1 while counting */
};

struct mtp_fs_copy {
	int sdir, ddir;
	char *name;
	struct mtp_fs_reserve res;
	bool copying; /* the second pass: counting is over */
	bool started; /* the top object was visited in this pass */
	bool made;    /* ddir/name is ours: remove it unless complete */
	bool done;
	int err; /* the step that failed */
	struct mtp_fs_copy_level lv[MTP_FS_MAX_DEPTH + 1];
	unsigned depth;
	/* The file whose data is being copied. */
	int fsrc, fdst;
	uint64_t left;
	bool by_hand;
	/* What the first pass counted. */
	uint64_t bytes, objects;
};

int mtp_fs_copy_new(int sdir, int ddir, const char *name,
		    const struct mtp_fs_reserve *r, struct mtp_fs_copy **out)
{
	struct mtp_fs_copy *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->fsrc = c->fdst = -1;
	c->res = *r;
	c->name = strdup(name);
	c->sdir = fcntl(sdir, F_DUPFD_CLOEXEC, 0);
	c->ddir = fcntl(ddir, F_DUPFD_CLOEXEC, 0);
	if (!c->name || c->sdir < 0 || c->ddir < 0) {
		mtp_fs_copy_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static void mtp_fs_copy_close_file(struct mtp_fs_copy *c)
{
	if (c->fsrc >= 0)
		close(c->fsrc);
	if (c->fdst >= 0)
		close(c->fdst);
	c->fsrc = c->fdst = -1;
}

/* Close whatever the walk holds open. */
static void mtp_fs_copy_unwind(struct mtp_fs_copy *c)
{
	mtp_fs_copy_close_file(c);
	while (c->depth) {
		struct mtp_fs_copy_level *l = &c->lv[--c->depth];

		closedir(l->src);
		if (l->dst >= 0)
			close(l->dst);
	}
}

void mtp_fs_copy_free(struct mtp_fs_copy *c)
{
	if (!c)
		return;
	mtp_fs_copy_unwind(c);
	/* No half copy stays behind; what existed before is not ours. */
	if (c->made && !c->done)
		mtp_fs_remove(c->ddir, c->name);
	if (c->sdir >= 0)
		close(c->sdir);
	if (c->ddir >= 0)
		close(c->ddir);
	free(c->name);
	free(c);
}

void mtp_fs_copy_discard(struct mtp_fs_copy *c)
{
	if (c)
		c->done = false;
	mtp_fs_copy_free(c);
}

/* Make folder name in ddir (its copy pass) and descend into src. */
static int mtp_fs_copy_enter(struct mtp_fs_copy *c, int sfd, int ddir,
			     const char *name)
{
	struct mtp_fs_copy_level *l = &c->lv[c->depth];
	int rc;

	if (c->depth > MTP_FS_MAX_DEPTH - 1)
		return -ELOOP;
	l->dst = -1;
	if (c->copying) {
		rc = mtp_fs_room(ddir, &c->res, 0, 1);
		if (rc < 0)
			return rc;
		if (mkdirat(ddir, name, 0755) < 0)
			return -errno;
		c->made = true;
		l->dst = mtp_fs_open(ddir, name, O_RDONLY | O_DIRECTORY, 0);
		if (l->dst < 0)
			return l->dst;
	} else {
		c->objects++;
	}
	l->src = mtp_fs_opendir(sfd, ".");
	if (!l->src) {
		rc = -errno;
		if (l->dst >= 0)
			close(l->dst);
		return rc;
	}
	c->depth++;
	return 0;
}

/* Count a file, or (copy pass) create its copy and start on its data. */
static int mtp_fs_copy_file(struct mtp_fs_copy *c, int sfd, int ddir,
			    const char *name, uint64_t size)
{
	int rc;

	if (!c->copying) {
		c->objects++;
		c->bytes += size;
		return 0;
	}
	rc = mtp_fs_room(ddir, &c->res, size, 1);
	if (rc < 0)
		return rc;
	c->fdst = mtp_fs_open(ddir, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (c->fdst < 0)
		return c->fdst;
	c->made = true;
	c->fsrc = fcntl(sfd, F_DUPFD_CLOEXEC, 0);
	if (c->fsrc < 0)
		return -errno;
	c->left = size;
	return 0;
}

/* Visit sdir/name: a folder is entered, a file counted or started. */
static int mtp_fs_copy_visit(struct mtp_fs_copy *c, int sdir, int ddir,
			     const char *name)
{
	struct stat sb;
	int sfd, rc;

	sfd = mtp_fs_open(sdir, name, O_RDONLY | O_NONBLOCK, 0);
	if (sfd < 0)
		return sfd;
	/* O_NONBLOCK only keeps a FIFO planted under our feet from hanging;
	 * the checks are made on what was opened. */
	if (fstat(sfd, &sb) < 0)
		rc = -errno;
	else if (S_ISDIR(sb.st_mode))
		rc = mtp_fs_copy_enter(c, sfd, ddir, name);
	else if ((rc = mtp_fs_servable(sfd)) == 0)
		rc = mtp_fs_copy_file(c, sfd, ddir, name, sb.st_size);
	close(sfd);
	return rc;
}

/* Copy one piece of the current file's data; its size in *n. */
static int mtp_fs_copy_piece(struct mtp_fs_copy *c, size_t *n)
{
	size_t chunk = c->left < MTP_FS_COPY_STEP_BYTES
			   ? (size_t)c->left
			   : MTP_FS_COPY_STEP_BYTES;
	ssize_t k = -1;
	uint64_t room;
	int rc;

	rc = mtp_fs_headroom(c->fdst, c->res.bytes, &room);
	if (rc < 0)
		return rc;
	if (room < chunk)
		return -ENOSPC;
	if (!c->by_hand) {
		k = copy_file_range(c->fsrc, NULL, c->fdst, NULL, chunk, 0);
		/* Some file systems refuse it: copy by hand. */
		if (k < 0 && errno != EXDEV && errno != EOPNOTSUPP &&
		    errno != ENOSYS && errno != EINVAL)
			return -errno;
		c->by_hand = k < 0;
	}
	if (c->by_hand)
		k = mtp_fs_copy_by_hand(c->fsrc, c->fdst, chunk);
	if (k < 0)
		return (int)k;
	/* The source shrank meanwhile: the copy is what there was. */
	c->left = k == 0 ? 0 : c->left - (uint64_t)k;
	*n = k ? (size_t)k : chunk;
	if (!c->left) {
		rc = close(c->fdst) < 0 ? -errno : 0;
		c->fdst = -1;
		mtp_fs_copy_close_file(c);
		return rc;
	}
	return 0;
}

/* The next entry of the folder being walked, or the end of the folder. */
static int mtp_fs_copy_next(struct mtp_fs_copy *c)
{
	struct mtp_fs_copy_level *l = &c->lv[c->depth - 1];
	struct mtp_fs_stat st;
	struct dirent *de;

	errno = 0;
	de = readdir(l->src);
	if (!de) {
		if (errno)
			return -errno;
		closedir(l->src);
		if (l->dst >= 0)
			close(l->dst);
		c->depth--;
		return 0;
	}
	/* What the host cannot see, it does not get a copy of. */
	if (mtp_fs_dot(de->d_name) || mtp_fs_is_tmp(de->d_name) ||
	    mtp_fs_entry(dirfd(l->src), de->d_name, &st) < 0)
		return 0;
	return mtp_fs_copy_visit(c, dirfd(l->src), l->dst, de->d_name);
}

/* A pass is over: after counting, check the whole tree fits. */
static int mtp_fs_copy_pass_end(struct mtp_fs_copy *c)
{
	int rc;

	if (c->copying) {
		c->done = true;
		return 0;
	}
	rc = mtp_fs_room(c->ddir, &c->res, c->bytes, c->objects);
	if (rc < 0)
		return rc;
	c->copying = true;
	c->started = false;
	return 1;
}

static int mtp_fs_copy_work(struct mtp_fs_copy *c)
{
	size_t bytes = 0, n = 0;
	unsigned entries = 0;
	int rc = 0;

	while (rc == 0 && bytes < MTP_FS_COPY_STEP_BYTES &&
	       entries < MTP_FS_COPY_STEP_ENTRIES) {
		if (c->fsrc >= 0) {
			rc = mtp_fs_copy_piece(c, &n);
			bytes += n;
		} else if (!c->started) {
			c->started = true;
			entries++;
			rc = mtp_fs_copy_visit(c, c->sdir, c->ddir, c->name);
		} else if (c->depth) {
			entries++;
			rc = mtp_fs_copy_next(c);
		} else {
			return mtp_fs_copy_pass_end(c);
		}
	}
	return rc < 0 ? rc : 1;
}

int mtp_fs_copy_step(struct mtp_fs_copy *c)
{
	int rc;

	if (c->done || c->err)
		return c->err;
	rc = mtp_fs_copy_work(c);
	if (rc < 0) {
		c->err = rc;
		mtp_fs_copy_unwind(c);
		if (c->made)
			mtp_fs_remove(c->ddir, c->name);
		c->made = false;
	}
	return rc;
}

int mtp_fs_copy(int sdir, int ddir, const char *name,
		const struct mtp_fs_reserve *r)
{
	struct mtp_fs_copy *c;
	int rc = mtp_fs_copy_new(sdir, ddir, name, r, &c);

	if (rc < 0)
		return rc;
	while ((rc = mtp_fs_copy_step(c)) > 0)
		;
	mtp_fs_copy_free(c);
	return rc;
}

static int mtp_fs_sweep_at(int dfd, unsigned depth, unsigned *budget)
{
	struct dirent *de;
	int rc = 0;
	DIR *d = mtp_fs_opendir(dfd, ".");

	if (!d)
		return -errno;
	while (rc == 0 && (de = readdir(d))) {
		struct stat sb;

		if (mtp_fs_dot(de->d_name))
			continue;
		if (*budget == 0) {
			rc = -E2BIG;
			break;
		}
		(*budget)--;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(sb.st_mode) && mtp_fs_is_tmp(de->d_name)) {
			unlinkat(dirfd(d), de->d_name, 0);
		} else if (S_ISDIR(sb.st_mode) && depth < MTP_FS_MAX_DEPTH) {
			int sub = mtp_fs_open(dirfd(d), de->d_name,
					      O_RDONLY | O_DIRECTORY, 0);

			if (sub < 0)
				continue; /* a mount point, or gone */
			rc = mtp_fs_sweep_at(sub, depth + 1, budget);
			close(sub);
			if (rc != -E2BIG)
				rc = 0;
		}
	}
	closedir(d);
	return rc;
}

int mtp_fs_sweep(int dirfd, unsigned *budget)
{
	return mtp_fs_sweep_at(dirfd, 0, budget);
}
