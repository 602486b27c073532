/*
 * mtp_walk: from an object to an fd of its folder, one level at a time
 * from the storage's root, and the one folder kept open for stats with
 * the last stat made there.
 */
#include "mtp_walk.h"

#include "mtp_handles.h"
#include "monotime.h"
#include "mtp_storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long a kept folder may serve without a new walk. */
#define MTP_WALK_DIRCACHE_MS 1000

struct mtp_walk {
	mtp_walk_quiet_fn quiet_fn;
	void *quiet_data;
	/* The folder last walked to for a stat (see mtp_walk_quiet_fn). */
	int dc_fd;
	uint32_t dc_storage, dc_parent;
	uint64_t dc_ms;
	/* The object last stat'ed in that folder (0: none), valid as long
	 * as the folder is (see mtp_walk_stat). */
	uint32_t sc_handle;
	struct mtp_fs_stat sc_sb;
};

int mtp_walk_open_dir(struct mtp_handles *h, const struct mtp_storage *st,
		      uint32_t parent, int *out)
{
	const struct mtp_handles_obj *chain[MTP_FS_MAX_DEPTH];
	unsigned depth = 0;
	int fd;

	for (uint32_t p = parent; p != MTP_HANDLES_ROOT;) {
		const struct mtp_handles_obj *o = mtp_handles_obj(h, p);

		if (!o || o->storage != st->id)
			return -ENOENT;
		if (depth == MTP_FS_MAX_DEPTH)
			return -ELOOP;
		chain[depth++] = o;
		p = o->parent;
	}
	/* A fresh open file description: a dup() would share the
	 * directory offset, and a second listing would come out empty. */
	fd = mtp_fs_open(st->rootfd, ".", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	/* One level at a time: a path of 64 names may exceed PATH_MAX.
	 * A link or a mount met on the way ends the walk as -ENOENT. */
	while (depth--) {
		int next = mtp_fs_open(fd, chain[depth]->name,
				       O_RDONLY | O_DIRECTORY, 0);

		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	*out = fd;
	return 0;
}

int mtp_walk_parent_fd(struct mtp_handles *h, const struct mtp_storage *st,
		       const struct mtp_handles_obj *o, int *fd)
{
	int rc = mtp_walk_open_dir(h, st, o->parent, fd);

	/* A folder on the way that is no longer one (or became a link):
	 * the object is gone as far as the host is concerned. */
	return rc == -ENOTDIR ? -ENOENT : rc;
}

struct mtp_walk *mtp_walk_new(void)
{
	struct mtp_walk *w = calloc(1, sizeof(*w));

	if (w)
		w->dc_fd = -1;
	return w;
}

void mtp_walk_free(struct mtp_walk *w)
{
	if (!w)
		return;
	mtp_walk_changed(w);
	free(w);
}

void mtp_walk_set_quiet_fn(struct mtp_walk *w, mtp_walk_quiet_fn fn, void *data)
{
	w->quiet_fn = fn;
	w->quiet_data = data;
	mtp_walk_changed(w);
}

void mtp_walk_changed(struct mtp_walk *w)
{
	if (w->dc_fd >= 0)
		close(w->dc_fd);
	w->dc_fd = -1;
	w->sc_handle = 0;
}

/* mtp_walk_parent_fd() through the folder kept; the fd stays w's. */
static int mtp_walk_parent_kept(struct mtp_walk *w, struct mtp_handles *h,
				const struct mtp_storage *st,
				const struct mtp_handles_obj *o, int *fd)
{
	uint64_t now = monotime_ms();
	int rc;

	if (w->dc_fd >= 0 && (now - w->dc_ms >= MTP_WALK_DIRCACHE_MS ||
			      !w->quiet_fn(w->quiet_data)))
		mtp_walk_changed(w);
	if (w->dc_fd >= 0 && w->dc_storage == o->storage &&
	    w->dc_parent == o->parent) {
		*fd = w->dc_fd;
		return 0;
	}
	rc = mtp_walk_parent_fd(h, st, o, fd);
	if (rc < 0)
		return rc;
	mtp_walk_changed(w);
	w->dc_fd = *fd;
	w->dc_storage = o->storage;
	w->dc_parent = o->parent;
	w->dc_ms = now;
	return 0;
}

int mtp_walk_stat(struct mtp_walk *w, struct mtp_handles *h,
		  const struct mtp_storage *st, uint32_t handle,
		  const struct mtp_handles_obj *o, struct mtp_fs_stat *sb)
{
	int fd, rc;

	if (!w->quiet_fn) {
		rc = mtp_walk_parent_fd(h, st, o, &fd);
		if (rc < 0)
			return rc;
		rc = mtp_fs_entry(fd, o->name, sb);
		close(fd);
		return rc;
	}
	rc = mtp_walk_parent_kept(w, h, st, o, &fd);
	if (rc < 0)
		return rc;
	/* libmtp asks GetObjectInfo, then GetObjectPropList, of each object
	 * it walks: the second needs no system call. Handles carry a
	 * generation, so a reused slot never matches. */
	if (w->sc_handle == handle) {
		*sb = w->sc_sb;
		return 0;
	}
	rc = mtp_fs_entry(fd, o->name, sb);
	if (rc == 0) {
		w->sc_handle = handle;
		w->sc_sb = *sb;
	}
	return rc;
}
