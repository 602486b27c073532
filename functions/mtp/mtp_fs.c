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

/* Space is checked again before each piece of this size is copied. */
#define MTP_FS_COPY_CHUNK (4u << 20)

int mtp_fs_open(int dirfd, const char *name, int flags, mode_t mode)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_CLOEXEC),
	    .mode = (flags & O_CREAT) ? mode : 0,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
	};
	long fd;

	/* EAGAIN: a rename raced the lookup; the kernel asks for a retry. */
	for (unsigned i = 0; i < 4; i++) {
		fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			break;
	}
	if (errno == ELOOP || errno == EXDEV)
		return -ENOENT;
	return -errno;
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

/* Copy size bytes of sfd to dfd, keeping reserve free before each piece. */
static int mtp_fs_copy_data(int sfd, int dfd, uint64_t size, uint64_t reserve)
{
	bool by_hand = false;
	uint64_t done = 0, room;
	int rc;

	while (done < size) {
		size_t chunk = size - done < MTP_FS_COPY_CHUNK
				   ? (size_t)(size - done)
				   : MTP_FS_COPY_CHUNK;
		ssize_t n = -1;

		rc = mtp_fs_headroom(dfd, reserve, &room);
		if (rc < 0)
			return rc;
		if (room < chunk)
			return -ENOSPC;
		if (!by_hand) {
			n = copy_file_range(sfd, NULL, dfd, NULL, chunk, 0);
			/* Some file systems refuse it: copy by hand. */
			if (n < 0 && errno != EXDEV && errno != EOPNOTSUPP &&
			    errno != ENOSYS && errno != EINVAL)
				return -errno;
			by_hand = n < 0;
		}
		if (by_hand)
			n = mtp_fs_copy_by_hand(sfd, dfd, chunk);
		if (n < 0)
			return n;
		if (n == 0)
			break; /* the source shrank meanwhile */
		done += n;
	}
	return 0;
}

static int mtp_fs_copy_at(int sdir, int ddir, const char *name, unsigned depth,
			  uint64_t reserve, bool *made);

static int mtp_fs_copy_file(int sfd, int ddir, const char *name, uint64_t size,
			    uint64_t reserve, bool *made)
{
	uint64_t room;
	int dfd, rc;

	rc = mtp_fs_headroom(ddir, reserve, &room);
	if (rc == 0 && room < size)
		rc = -ENOSPC;
	if (rc < 0)
		return rc;
	dfd = mtp_fs_open(ddir, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (dfd < 0)
		return dfd;
	*made = true;
	rc = mtp_fs_copy_data(sfd, dfd, size, reserve);
	if (close(dfd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int mtp_fs_copy_dir(int sfd, int ddir, const char *name, unsigned depth,
			   uint64_t reserve, bool *made)
{
	struct dirent *de;
	int dfd, rc = 0;
	DIR *d;

	if (depth >= MTP_FS_MAX_DEPTH)
		return -ELOOP;
	if (mkdirat(ddir, name, 0755) < 0)
		return -errno;
	*made = true;
	dfd = mtp_fs_open(ddir, name, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0)
		return dfd;
	d = mtp_fs_opendir(sfd, ".");
	if (!d)
		rc = -errno;
	while (rc == 0 && (de = readdir(d))) {
		struct mtp_fs_stat st;
		bool sub = false;

		/* What the host cannot see, it does not get a copy of. */
		if (mtp_fs_dot(de->d_name) || mtp_fs_is_tmp(de->d_name) ||
		    mtp_fs_entry(dirfd(d), de->d_name, &st) < 0)
			continue;
		rc = mtp_fs_copy_at(dirfd(d), dfd, de->d_name, depth + 1,
				    reserve, &sub);
	}
	if (d)
		closedir(d);
	close(dfd);
	return rc;
}

static int mtp_fs_copy_at(int sdir, int ddir, const char *name, unsigned depth,
			  uint64_t reserve, bool *made)
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
		rc = mtp_fs_copy_dir(sfd, ddir, name, depth, reserve, made);
	else if ((rc = mtp_fs_servable(sfd)) == 0)
		rc = mtp_fs_copy_file(sfd, ddir, name, sb.st_size, reserve,
				      made);
	close(sfd);
	return rc;
}

int mtp_fs_copy(int sdir, int ddir, const char *name, uint64_t reserve)
{
	bool made = false;
	int rc = mtp_fs_copy_at(sdir, ddir, name, 0, reserve, &made);

	/* No half copy stays behind; what existed before is not ours. */
	if (rc < 0 && made)
		mtp_fs_remove(ddir, name);
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
