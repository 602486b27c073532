/*
 * mtp_upload: receiving a file from the host into a hidden temporary file
 * that replaces the target once complete.
 */
#include "mtp_upload.h"

#include "mtp_fs.h"
#include "mtp_handles.h"
#include "mtp_storage.h"
#include "mtp_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mtp_upload {
	struct mtp_upload *next;
	struct mtp_upload_list *list; /* the list it is on */
	struct mtp_storage *st;
	uint32_t handle;
	int dirfd; /* the target's folder */
	int fd;	   /* the temporary file */
	bool made; /* the target did not exist: its placeholder is ours */
	uint64_t size;
	uint64_t written;
	uint64_t room; /* headroom at the last look, less what went in since */
	uint64_t unseen; /* bytes written since that look */
	char *name;
	char tmp[48];
};

bool mtp_upload_owns(const struct mtp_upload_list *l, const char *name)
{
	for (struct mtp_upload *u = l->head; u; u = u->next)
		if (!strcmp(u->tmp, name))
			return true;
	return false;
}

/* Create the hidden temporary file of an upload in dfd; tmp gets its name. */
static int mtp_upload_tmp_open(struct mtp_upload_list *l, int dfd, char *tmp,
			       size_t size)
{
	/* O_EXCL refuses whatever holds the name, a planted link included. */
	for (unsigned i = 0; i < 100; i++) {
		int fd;

		snprintf(tmp, size, MTP_FS_TMP_PREFIX "%ld-%u", (long)getpid(),
			 l->tmp_seq++);
		fd = mtp_fs_open(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

/* Close and remove what an upload holds; drop_new also removes the
 * placeholder of a new object and forgets its handle. */
static void mtp_upload_free(struct mtp_upload *up, bool drop_new)
{
	struct mtp_upload_list *l = up->list;
	struct mtp_fs_stat sb;

	for (struct mtp_upload **p = &l->head; *p; p = &(*p)->next)
		if (*p == up) {
			*p = up->next;
			break;
		}
	if (up->fd >= 0)
		close(up->fd);
	if (up->tmp[0])
		unlinkat(up->dirfd, up->tmp, 0);
	/* Only an empty file is still the placeholder we made. */
	if (up->made && drop_new &&
	    mtp_fs_entry(up->dirfd, up->name, &sb) == 0 && !sb.dir &&
	    sb.size == 0)
		unlinkat(up->dirfd, up->name, 0);
	if (up->made && drop_new && up->handle)
		mtp_handles_forget(l->handles, up->handle);
	if (up->dirfd >= 0)
		close(up->dirfd);
	free(up->name);
	free(up);
}

/* Everything mtp_upload_begin() checks and creates. */
static int mtp_upload_prepare(struct mtp_upload *up, uint32_t parent)
{
	struct mtp_upload_list *l = up->list;
	struct mtp_fs_stat sb;
	uint64_t need;
	int rc, fd;

	rc = mtp_walk_open_dir(l->handles, up->st, parent, &up->dirfd);
	if (rc < 0)
		return rc;
	rc = mtp_fs_entry(up->dirfd, up->name, &sb);
	if (rc == 0 && sb.dir)
		return -EEXIST;
	/* -EACCES: a link, a mount point, a hard-linked file... */
	if (rc < 0 && rc != -ENOENT)
		return rc;
	up->made = rc == -ENOENT;
	/* Replacing is not a way to write a file the worker could not. */
	if (!up->made && faccessat(up->dirfd, up->name, W_OK,
				   AT_EACCESS | AT_SYMLINK_NOFOLLOW))
		return -EACCES;
	/* Room for all of it, next to the old version while it lasts: the
	 * temporary file, and a new object's placeholder, are objects of
	 * their own (an empty file too takes an inode). An ObjectInfo's
	 * 0xFFFFFFFF says 4 GiB or more. */
	need = up->size == MTP_UPLOAD_SIZE_UNKNOWN ? 0xFFFFFFFFull : up->size;
	rc = mtp_fs_room(up->dirfd, &up->st->reserve, need, up->made ? 2 : 1);
	if (rc < 0)
		return rc;
	if (up->made) {
		/* Opened read-only: its close is no news for inotify. */
		fd = mtp_fs_open(up->dirfd, up->name,
				 O_RDONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			up->made = false;
			return fd;
		}
		close(fd);
	}
	up->fd = mtp_upload_tmp_open(l, up->dirfd, up->tmp, sizeof(up->tmp));
	if (up->fd < 0) {
		up->tmp[0] = 0;
		return up->fd;
	}
	/* The new version keeps the old one's permissions. */
	if (!up->made && fchmod(up->fd, sb.mode & 0777) < 0)
		return -errno;
	return mtp_handles_intern(l->handles, up->st->id, parent, up->name,
				  &up->handle);
}

int mtp_upload_begin(struct mtp_upload_list *l, struct mtp_storage *st,
		     uint32_t parent, const char *name, uint64_t size,
		     uint32_t *handle, struct mtp_upload **out)
{
	struct mtp_upload *up;
	int rc;

	up = calloc(1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	up->list = l;
	up->st = st;
	up->size = size;
	up->fd = -1;
	up->dirfd = -1;
	up->name = strdup(name);
	rc = up->name ? mtp_upload_prepare(up, parent) : -ENOMEM;
	if (rc < 0) {
		mtp_upload_free(up, true);
		return rc;
	}
	up->next = l->head;
	l->head = up;
	*handle = up->handle;
	*out = up;
	return 0;
}

int mtp_upload_write(struct mtp_upload *up, const void *data, size_t n)
{
	const uint8_t *p = data;
	int rc;

	if (up->size != MTP_UPLOAD_SIZE_UNKNOWN && n > up->size - up->written)
		return -EFBIG;
	/* Checked during the upload, not only at its start: the announced
	 * size may be unknown, and the board may fill the disk meanwhile.
	 * Not before every 64 KiB read though: fstatfs was a fifth of the
	 * worker's system calls in a 50 MB send (docs/benchmarks.md). */
	if (up->unseen + n > MTP_UPLOAD_SPACE_LOOK ||
	    up->room < MTP_UPLOAD_SPACE_LOOK + n) {
		rc = mtp_fs_headroom(up->fd, up->st->reserve.bytes, &up->room);
		if (rc < 0)
			return rc;
		up->unseen = 0;
	}
	if (up->room < n)
		return -ENOSPC;
	while (n) {
		ssize_t w = write(up->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= w;
		up->written += w;
		up->room -= w;
		up->unseen += w;
	}
	return 0;
}

int mtp_upload_commit(struct mtp_upload *up)
{
	int rc = 0;

	if (up->size != MTP_UPLOAD_SIZE_UNKNOWN && up->written != up->size)
		rc = -EIO;
	/* On disk and closed before the rename: the host takes a completed
	 * SendObject as stored, and a board loses power without warning. A
	 * failed sync or close fails the upload, and the host is not told
	 * about a change of its own. */
	if (rc == 0 && fdatasync(up->fd) < 0)
		rc = -errno;
	if (rc == 0) {
		int fd = up->fd;

		up->fd = -1;
		if (close(fd) < 0)
			rc = -errno;
	}
	if (rc == 0 && renameat(up->dirfd, up->tmp, up->dirfd, up->name) < 0)
		rc = -errno;
	/* The rename itself: a directory that loses it loses the file. */
	if (rc == 0 && fsync(up->dirfd) < 0)
		rc = -errno;
	if (rc == 0)
		up->tmp[0] = 0;
	mtp_upload_free(up, rc < 0);
	return rc;
}

void mtp_upload_abort(struct mtp_upload *up, bool keep_new)
{
	mtp_upload_free(up, !keep_new);
}

uint32_t mtp_upload_storage(const struct mtp_upload *up)
{
	return up->st->id;
}

struct mtp_upload *mtp_upload_next(const struct mtp_upload *up)
{
	return up->next;
}
