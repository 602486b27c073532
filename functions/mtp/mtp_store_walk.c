/*
 * mtp_store_walk: from a handle to an fd of its folder, one level at a
 * time from the storage's root, and the one folder kept open for stats
 * with the last stat made there.
 */
#include "mtp_store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* How long a cached folder may serve without a new walk. */
#define MTP_STORE_DIRCACHE_MS 1000

static uint64_t mtp_store_walk_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Open folder `parent` of storage st by walking down from the root. */
int mtp_store_walk_open_dir(struct mtp_store *s, struct mtp_storage *st,
			    uint32_t parent, int *out)
{
	uint32_t chain[MTP_STORE_MAX_DEPTH];
	unsigned depth = 0;
	int fd;

	for (uint32_t h = parent; h != MTP_STORE_ROOT;) {
		struct mtp_obj *o = mtp_store_handle_obj(s, h);

		if (!o || o->storage != st->id)
			return -ENOENT;
		if (depth == MTP_STORE_MAX_DEPTH)
			return -ELOOP;
		chain[depth++] = h;
		h = o->parent;
	}
	/* A fresh open file description: a dup() would share the
	 * directory offset, and a second listing would come out empty. */
	fd = mtp_fs_open(st->rootfd, ".", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	/* One level at a time: a path of 64 names may exceed PATH_MAX.
	 * A link or a mount met on the way ends the walk as -ENOENT. */
	while (depth--) {
		int next = mtp_fs_open(
		    fd, mtp_store_handle_slot(s, chain[depth])->name,
		    O_RDONLY | O_DIRECTORY, 0);

		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	*out = fd;
	return 0;
}

/* Open the folder holding handle; *o gets its entry. */
int mtp_store_walk_parent_fd(struct mtp_store *s, uint32_t handle,
			     struct mtp_obj **o, struct mtp_storage **st,
			     int *fd)
{
	*o = mtp_store_handle_obj(s, handle);
	if (!*o)
		return -ENOENT;
	int rc;

	*st = mtp_store_find(s, (*o)->storage);
	if (!*st)
		return -ENOENT;
	rc = mtp_store_walk_open_dir(s, *st, (*o)->parent, fd);
	/* A folder on the way that is no longer one (or became a link):
	 * the object is gone as far as the host is concerned. */
	return rc == -ENOTDIR ? -ENOENT : rc;
}

/* mtp_store_walk_parent_fd() through the folder cache; the fd stays s's.
 * -ENOSYS: no cache without a quiet_fn. */
int mtp_store_walk_parent_cached(struct mtp_store *s, uint32_t handle,
				 struct mtp_obj **o, struct mtp_storage **st,
				 int *fd)
{
	uint64_t now = mtp_store_walk_now_ms();
	int rc;

	if (!s->quiet_fn)
		return -ENOSYS;
	if (s->dc_fd >= 0 && (now - s->dc_ms >= MTP_STORE_DIRCACHE_MS ||
			      !s->quiet_fn(s->quiet_data)))
		mtp_store_changed(s);
	*o = mtp_store_handle_obj(s, handle);
	if (*o && s->dc_fd >= 0 && s->dc_storage == (*o)->storage &&
	    s->dc_parent == (*o)->parent) {
		*st = mtp_store_find(s, (*o)->storage);
		*fd = s->dc_fd;
		return *st ? 0 : -ENOENT;
	}
	rc = mtp_store_walk_parent_fd(s, handle, o, st, fd);
	if (rc < 0)
		return rc;
	mtp_store_changed(s);
	s->dc_fd = *fd;
	s->dc_storage = (*o)->storage;
	s->dc_parent = (*o)->parent;
	s->dc_ms = now;
	return 0;
}

int mtp_store_walk_stat_cached(struct mtp_store *s, uint32_t handle,
			       struct mtp_obj **o, struct mtp_storage **st,
			       struct mtp_fs_stat *sb)
{
	int fd, rc = mtp_store_walk_parent_cached(s, handle, o, st, &fd);

	if (rc < 0)
		return rc;
	/* libmtp asks GetObjectInfo, then GetObjectPropList, of each object
	 * it walks: the second needs no system call. Handles carry a
	 * generation, so a reused slot never matches. */
	if (s->sc_handle == handle) {
		*sb = s->sc_sb;
		return 0;
	}
	rc = mtp_fs_entry(fd, (*o)->name, sb);
	if (rc == 0) {
		s->sc_handle = handle;
		s->sc_sb = *sb;
	}
	return rc;
}
