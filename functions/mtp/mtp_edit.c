#include "mtp_edit.h"
#include "mtp_fs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest size a file may be given: off_t is signed. */
#define MTP_EDIT_SIZE_MAX ((uint64_t)INT64_MAX)

struct mtp_edit_slot {
	uint32_t handle; /* 0: free */
	uint32_t storage;
	int fd;
	uint64_t reserve;
};

struct mtp_edit {
	struct mtp_store *store;
	struct mtp_edit_slot slots[MTP_EDIT_MAX];
	/* The SendPartialObject in progress, if any. */
	struct mtp_edit_slot *w;
	uint64_t w_pos;
	uint32_t w_left;
	uint32_t w_done;
	bool w_gone; /* its storage went (mtp_edit_end_storage) */
};

struct mtp_edit *mtp_edit_new(struct mtp_store *store)
{
	struct mtp_edit *e = calloc(1, sizeof(*e));

	if (e)
		e->store = store;
	return e;
}

void mtp_edit_free(struct mtp_edit *e)
{
	if (!e)
		return;
	mtp_edit_end_all(e);
	free(e);
}

static struct mtp_edit_slot *mtp_edit_find(struct mtp_edit *e, uint32_t handle)
{
	if (handle == 0)
		return NULL;
	for (unsigned i = 0; i < MTP_EDIT_MAX; i++)
		if (e->slots[i].handle == handle)
			return &e->slots[i];
	return NULL;
}

bool mtp_edit_active(const struct mtp_edit *e, uint32_t handle)
{
	return mtp_edit_find((struct mtp_edit *)e, handle) != NULL;
}

int mtp_edit_begin(struct mtp_edit *e, uint32_t handle)
{
	struct mtp_edit_slot *free_slot = NULL;
	struct mtp_obj_stat st;
	int rc;

	if (mtp_edit_find(e, handle))
		return -EBUSY;
	for (unsigned i = 0; i < MTP_EDIT_MAX && !free_slot; i++)
		if (!e->slots[i].handle)
			free_slot = &e->slots[i];
	if (!free_slot)
		return -EMFILE;
	rc = mtp_store_edit_open(e->store, handle, &free_slot->fd,
				 &free_slot->reserve);
	if (rc < 0)
		return rc;
	/* Its storage, for mtp_edit_end_storage(). */
	rc = mtp_store_stat(e->store, handle, &st);
	if (rc < 0) {
		close(free_slot->fd);
		return rc;
	}
	free_slot->handle = handle;
	free_slot->storage = st.storage;
	return 0;
}

static int mtp_edit_close(struct mtp_edit *e, struct mtp_edit_slot *s)
{
	int rc = 0;

	if (e->w == s)
		e->w = NULL;
	/* EndEditObject is the host's "save": it may unplug next. */
	if (fdatasync(s->fd) < 0)
		rc = -errno;
	if (close(s->fd) < 0 && rc == 0)
		rc = -errno;
	s->handle = 0;
	s->fd = -1;
	return rc;
}

int mtp_edit_end(struct mtp_edit *e, uint32_t handle)
{
	struct mtp_edit_slot *s = mtp_edit_find(e, handle);

	if (!s)
		return -EBADF;
	mtp_store_changed(e->store);
	return mtp_edit_close(e, s);
}

void mtp_edit_end_all(struct mtp_edit *e)
{
	for (unsigned i = 0; i < MTP_EDIT_MAX; i++)
		if (e->slots[i].handle)
			mtp_edit_close(e, &e->slots[i]);
	e->w = NULL;
}

void mtp_edit_end_storage(struct mtp_edit *e, uint32_t storage)
{
	for (unsigned i = 0; i < MTP_EDIT_MAX; i++) {
		struct mtp_edit_slot *s = &e->slots[i];

		if (!s->handle || s->storage != storage)
			continue;
		if (e->w == s)
			e->w_gone = true;
		mtp_edit_close(e, s);
	}
}

/* The file's size now: the board may have changed it meanwhile. */
static int mtp_edit_size(const struct mtp_edit_slot *s, uint64_t *size)
{
	struct stat sb;

	/* Set on failure too: gcc for armhf cannot see that -errno < 0. */
	*size = 0;
	if (fstat(s->fd, &sb) < 0)
		return -errno;
	*size = (uint64_t)sb.st_size;
	return 0;
}

/* Growing the file from `size` to `end` must leave the reserve free. */
static int mtp_edit_room(const struct mtp_edit_slot *s, uint64_t size,
			 uint64_t end)
{
	uint64_t room;
	int rc;

	if (end <= size)
		return 0;
	rc = mtp_fs_headroom(s->fd, s->reserve, &room);
	if (rc < 0)
		return rc;
	return end - size > room ? -ENOSPC : 0;
}

int mtp_edit_truncate(struct mtp_edit *e, uint32_t handle, uint64_t size)
{
	struct mtp_edit_slot *s = mtp_edit_find(e, handle);
	uint64_t cur;
	int rc;

	if (!s)
		return -EBADF;
	if (size > MTP_EDIT_SIZE_MAX)
		return -EFBIG;
	rc = mtp_edit_size(s, &cur);
	if (rc == 0)
		rc = mtp_edit_room(s, cur, size);
	if (rc == 0 && ftruncate(s->fd, (off_t)size) < 0)
		rc = -errno;
	mtp_store_changed(e->store);
	return rc;
}

int mtp_edit_write_begin(struct mtp_edit *e, uint32_t handle, uint64_t offset,
			 uint32_t length)
{
	struct mtp_edit_slot *s = mtp_edit_find(e, handle);
	uint64_t cur;
	int rc;

	e->w = NULL;
	if (!s)
		return -EBADF;
	/* offset <= 2^63 - 1 and length < 2^32: the sum cannot wrap. */
	if (offset > MTP_EDIT_SIZE_MAX || offset + length > MTP_EDIT_SIZE_MAX)
		return -EFBIG;
	rc = mtp_edit_size(s, &cur);
	if (rc < 0)
		return rc;
	if (offset > cur)
		return -EINVAL;
	rc = mtp_edit_room(s, cur, offset + length);
	if (rc < 0)
		return rc;
	e->w = s;
	e->w_pos = offset;
	e->w_left = length;
	e->w_done = 0;
	e->w_gone = false;
	return 0;
}

int mtp_edit_write(struct mtp_edit *e, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t cur;
	int rc;

	if (!e->w)
		return e->w_gone ? -ENODEV : -EBADF;
	if (n > e->w_left)
		return -EFBIG;
	/* Checked again for each piece: the board may fill the disk. */
	rc = mtp_edit_size(e->w, &cur);
	if (rc == 0)
		rc = mtp_edit_room(e->w, cur, e->w_pos + n);
	if (rc < 0)
		return rc;
	while (n) {
		ssize_t w = pwrite(e->w->fd, p, n, (off_t)e->w_pos);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
		e->w_pos += (uint64_t)w;
		e->w_left -= (uint32_t)w;
		e->w_done += (uint32_t)w;
	}
	return 0;
}

int mtp_edit_write_end(struct mtp_edit *e, int status, uint32_t *written)
{
	*written = e->w ? e->w_done : 0;
	if (e->w_gone)
		status = -ENODEV;
	e->w_gone = false;
	if (status == 0 && !e->w)
		status = -EBADF;
	if (status == 0 && e->w_left)
		status = -EIO;
	e->w = NULL;
	mtp_store_changed(e->store);
	return status;
}
