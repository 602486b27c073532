#include "mtp_store_int.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Entries the start-up sweep for left-over temporary files may visit;
 * listing a folder cleans it too. */
#define MTP_STORE_SWEEP_BUDGET 100000

/* The API's parent of a storage's top objects is the handle table's. */
_Static_assert(MTP_STORE_ROOT == MTP_HANDLES_ROOT,
	       "MTP_STORE_ROOT is MTP_HANDLES_ROOT");

void mtp_store_set_quiet_fn(struct mtp_store *s, mtp_store_quiet_fn fn,
			    void *data)
{
	mtp_walk_set_quiet_fn(s->walk, fn, data);
}

void mtp_store_changed(struct mtp_store *s)
{
	mtp_walk_changed(s->walk);
}

/* The handle table forgot or rekeyed a handle: the stat kept by handle
 * may name another object now. */
static void mtp_store_handles_changed(void *data)
{
	mtp_store_changed(data);
}

struct mtp_store *mtp_store_new(const char *name)
{
	struct mtp_store *s = calloc(1, sizeof(struct mtp_store));

	if (!s)
		return NULL;
	s->name = name;
	s->walk = mtp_walk_new();
	s->handles = mtp_handles_new(mtp_store_handles_changed, s);
	if (!s->walk || !s->handles) {
		mtp_walk_free(s->walk);
		mtp_handles_free(s->handles);
		free(s);
		return NULL;
	}
	s->uploads.handles = s->handles;
	return s;
}

void mtp_store_free(struct mtp_store *s)
{
	if (!s)
		return;
	while (s->uploads.head)
		mtp_store_upload_abort(s, s->uploads.head, true);
	mtp_walk_free(s->walk);
	for (unsigned i = 0; i < MTP_STORE_MAX; i++) {
		if (!s->st[i].id)
			continue;
		close(s->st[i].rootfd);
		free(s->st[i].path);
		free(s->st[i].desc);
	}
	mtp_handles_free(s->handles);
	free(s);
}

void mtp_store_set_max_objs(struct mtp_store *s, uint32_t n)
{
	mtp_handles_set_max(s->handles, n);
}

void mtp_store_set_listed_fn(struct mtp_store *s, mtp_store_listed_fn fn,
			     void *data)
{
	s->listed_fn = fn;
	s->listed_data = data;
}

int mtp_store_add(struct mtp_store *s, const char *path, const char *desc,
		  bool readonly, uint32_t *id)
{
	struct mtp_storage *st;
	unsigned budget = MTP_STORE_SWEEP_BUDGET;
	int fd, probe;

	if (s->n_st == MTP_STORE_MAX || s->next_phys >= 0xFFFF)
		return -ENOSPC;
	/* No link on the way either: the root is confined like the rest. */
	fd = mtp_fs_open_root(path);
	if (fd < 0)
		return fd;
	/* Without openat2 (Linux 5.6) nothing could be confined: refuse. */
	probe = mtp_fs_open(fd, ".", O_RDONLY | O_DIRECTORY, 0);
	if (probe < 0) {
		close(fd);
		return probe;
	}
	close(probe);
	/* Temporary files of uploads a killed worker left behind. */
	if (!readonly && mtp_fs_sweep(fd, &budget) == -E2BIG)
		log_info("%s: %s: over %u entries; the rest of the storage "
			 "is cleaned of temporary files as it is listed",
			 s->name, path, MTP_STORE_SWEEP_BUDGET);
	for (st = s->st; st->id; st++)
		; /* a free slot: n_st < MTP_STORE_MAX */
	st->path = strdup(path);
	st->desc = strdup(desc ? desc : path);
	if (!st->path || !st->desc) {
		free(st->path);
		free(st->desc);
		close(fd);
		return -ENOMEM;
	}
	st->rootfd = fd;
	st->readonly = readonly;
	st->reserve = (struct mtp_fs_reserve){0, 0};
	/* Physical storage n, logical storage 1, as PTP suggests; n counts
	 * every storage added, so an id is never given again. */
	st->id = ++s->next_phys << 16 | 1;
	s->n_st++;
	*id = st->id;
	return 0;
}

unsigned mtp_store_count(const struct mtp_store *s)
{
	return s->n_st;
}

uint32_t mtp_store_id(const struct mtp_store *s, unsigned i)
{
	uint32_t prev = 0;

	/* In the order they were added: ids grow. */
	for (unsigned k = 0; k <= i; k++) {
		uint32_t next = 0;

		for (unsigned j = 0; j < MTP_STORE_MAX; j++)
			if (s->st[j].id > prev && (!next || s->st[j].id < next))
				next = s->st[j].id;
		if (!next)
			return 0;
		prev = next;
	}
	return prev;
}

struct mtp_storage *mtp_store_find(struct mtp_store *s, uint32_t id)
{
	for (unsigned i = 0; id && i < MTP_STORE_MAX; i++)
		if (s->st[i].id == id)
			return &s->st[i];
	return NULL;
}

uint32_t mtp_store_find_desc(const struct mtp_store *s, const char *desc)
{
	for (unsigned i = 0; i < MTP_STORE_MAX; i++)
		if (s->st[i].id && !strcmp(s->st[i].desc, desc))
			return s->st[i].id;
	return 0;
}

int mtp_store_remove(struct mtp_store *s, uint32_t id)
{
	struct mtp_storage *st = mtp_store_find(s, id);
	struct mtp_upload *up, *next;

	if (!st)
		return -ENOENT;
	/* Uploads into it lose their temporary file and placeholder. */
	for (up = s->uploads.head; up; up = next) {
		next = mtp_upload_next(up);
		if (mtp_upload_storage(up) == id)
			mtp_store_upload_abort(s, up, false);
	}
	mtp_store_changed(s);
	mtp_handles_forget_storage(s->handles, id);
	close(st->rootfd);
	free(st->path);
	free(st->desc);
	memset(st, 0, sizeof(*st));
	s->n_st--;
	return 0;
}

int mtp_store_set_reserve(struct mtp_store *s, uint32_t id, uint64_t bytes)
{
	struct mtp_storage *st = mtp_store_find(s, id);

	if (!st)
		return -ENOENT;
	st->reserve.bytes = bytes;
	return 0;
}

int mtp_store_set_reserve_inodes(struct mtp_store *s, uint32_t id,
				 uint64_t inodes)
{
	struct mtp_storage *st = mtp_store_find(s, id);

	if (!st)
		return -ENOENT;
	st->reserve.inodes = inodes;
	return 0;
}

int mtp_store_storage_stat(struct mtp_store *s, uint32_t id,
			   struct mtp_storage_stat *out)
{
	struct mtp_storage *st = mtp_store_find(s, id);
	struct statvfs vfs;
	int rc;

	if (!st)
		return -ENOENT;
	if (fstatvfs(st->rootfd, &vfs) < 0)
		return -errno;
	out->capacity = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	rc = mtp_fs_headroom(st->rootfd, st->reserve.bytes, &out->free_bytes);
	if (rc < 0)
		return rc;
	out->reserve = st->reserve.bytes;
	out->reserve_inodes = st->reserve.inodes;
	out->readonly = st->readonly;
	out->description = st->desc;
	out->path = st->path;
	return 0;
}

bool mtp_store_name_ok(const char *name)
{
	size_t n = strlen(name);

	/* 253 bytes keep any name within a PTP string's 254 UTF-16 units. */
	if (n == 0 || n > 253 || strchr(name, '/') || mtp_fs_is_tmp(name))
		return false;
	return strcmp(name, ".") && strcmp(name, "..");
}

int mtp_store_dirfd(struct mtp_store *s, uint32_t storage, uint32_t parent,
		    int *fd)
{
	struct mtp_storage *st = mtp_store_find(s, storage);

	if (!st)
		return -ENOENT;
	return mtp_walk_open_dir(s->handles, st, parent, fd);
}

/* The live object of handle and its storage: 0 or -ENOENT. */
static int mtp_store_obj(struct mtp_store *s, uint32_t handle,
			 const struct mtp_handles_obj **o,
			 struct mtp_storage **st)
{
	*o = mtp_handles_obj(s->handles, handle);
	if (!*o)
		return -ENOENT;
	*st = mtp_store_find(s, (*o)->storage);
	return *st ? 0 : -ENOENT;
}

int mtp_store_parent_fd(struct mtp_store *s, uint32_t handle,
			const struct mtp_handles_obj **o,
			struct mtp_storage **st, int *fd)
{
	int rc = mtp_store_obj(s, handle, o, st);

	return rc < 0 ? rc : mtp_walk_parent_fd(s->handles, *st, *o, fd);
}

/* Stat name in dirfd: -ENOENT unless it is an object the host may see. */
static int mtp_store_lstat(int dirfd, const char *name, struct mtp_fs_stat *sb)
{
	int rc = mtp_fs_entry(dirfd, name, sb);

	return rc == -EACCES ? -ENOENT : rc;
}

int mtp_store_stat(struct mtp_store *s, uint32_t handle,
		   struct mtp_obj_stat *out)
{
	const struct mtp_handles_obj *o;
	struct mtp_storage *st;
	struct mtp_fs_stat sb;
	int rc;

	rc = mtp_store_obj(s, handle, &o, &st);
	if (rc == 0)
		rc = mtp_walk_stat(s->walk, s->handles, st, handle, o, &sb);
	if (rc == -EACCES)
		rc = -ENOENT;
	if (rc < 0)
		return rc;
	out->handle = handle;
	out->storage = o->storage;
	out->parent = o->parent;
	out->dir = sb.dir;
	out->readonly = st->readonly;
	out->size = sb.size;
	out->mtime = sb.mtime;
	out->ctime = sb.ctime;
	out->name = o->name;
	return 0;
}

/*
 * Opens name in dfd (and closes dfd) for mtp_store_open() and
 * mtp_store_edit_open(). O_NONBLOCK only keeps a FIFO planted under our
 * feet from hanging; what was opened is checked, so a swap after a stat
 * cannot fool us.
 */
static int mtp_store_open_at(int dfd, const char *name, int flags, int *out)
{
	int fd = mtp_fs_open(dfd, name, flags | O_NONBLOCK, 0);
	int rc;

	close(dfd);
	if (fd < 0)
		return fd;
	rc = mtp_fs_servable(fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	fcntl(fd, F_SETFL, 0);
	*out = fd;
	return 0;
}

int mtp_store_open(struct mtp_store *s, uint32_t handle, int flags, int *out)
{
	const struct mtp_handles_obj *o;
	struct mtp_storage *st;
	int dfd, rc;

	/* Reads only: in-place writes go through mtp_store_edit_open(). */
	if ((flags & O_ACCMODE) != O_RDONLY)
		return -EINVAL;
	rc = mtp_store_parent_fd(s, handle, &o, &st, &dfd);
	if (rc < 0)
		return rc;
	return mtp_store_open_at(dfd, o->name, flags, out);
}

int mtp_store_edit_open(struct mtp_store *s, uint32_t handle, int *out,
			uint64_t *reserve)
{
	const struct mtp_handles_obj *o;
	struct mtp_storage *st;
	int dfd, rc;

	mtp_store_changed(s);
	rc = mtp_store_parent_fd(s, handle, &o, &st, &dfd);
	if (rc < 0)
		return rc;
	if (st->readonly) {
		close(dfd);
		return -EROFS;
	}
	/* The worker may own the storage and still be refused a file. */
	if (faccessat(dfd, o->name, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW)) {
		rc = errno == ENOENT ? -ENOENT : -EACCES;
		close(dfd);
		return rc;
	}
	*reserve = st->reserve.bytes;
	return mtp_store_open_at(dfd, o->name, O_RDWR, out);
}

uint32_t mtp_store_lookup(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name)
{
	struct mtp_fs_stat sb;
	uint32_t h = 0;
	int fd;

	if (!mtp_store_name_ok(name) ||
	    mtp_store_dirfd(s, storage, parent, &fd) < 0)
		return 0;
	if (mtp_store_lstat(fd, name, &sb) == 0)
		mtp_handles_intern(s->handles, storage, parent, name, &h);
	close(fd);
	return h;
}

/* A new entry called name may be made in storage: 0 or -errno. */
static int mtp_store_writable(struct mtp_store *s, uint32_t storage,
			      const char *name, struct mtp_storage **out)
{
	struct mtp_storage *st = mtp_store_find(s, storage);

	mtp_store_changed(s);
	if (!st)
		return -ENOENT;
	if (st->readonly)
		return -EROFS;
	if (!mtp_store_name_ok(name))
		return -EINVAL;
	*out = st;
	return 0;
}

int mtp_store_mkdir(struct mtp_store *s, uint32_t storage, uint32_t parent,
		    const char *name, uint32_t *handle)
{
	struct mtp_storage *st;
	struct mtp_fs_stat sb;
	int dfd, rc;

	rc = mtp_store_writable(s, storage, name, &st);
	if (rc < 0)
		return rc;
	rc = mtp_walk_open_dir(s->handles, st, parent, &dfd);
	if (rc < 0)
		return rc;
	/* A folder that exists is reused, unless it is a mount point; a
	 * new one is paid for like any object, above the reserve. */
	rc = mtp_fs_entry(dfd, name, &sb);
	if (rc == 0)
		rc = sb.dir ? 0 : -EEXIST;
	else if (rc == -ENOENT)
		rc = mtp_fs_room(dfd, &st->reserve, 0, 1);
	else
		rc = -EEXIST;
	if (rc == 0 && mkdirat(dfd, name, 0755) < 0) {
		rc = -errno;
		if (rc == -EEXIST && mtp_fs_entry(dfd, name, &sb) == 0 &&
		    sb.dir)
			rc = 0;
	}
	close(dfd);
	if (rc == 0)
		rc = mtp_handles_intern(s->handles, storage, parent, name,
					handle);
	return rc;
}

int mtp_store_delete(struct mtp_store *s, uint32_t handle)
{
	const struct mtp_handles_obj *o;
	struct mtp_storage *st;
	int fd, rc;

	mtp_store_changed(s);
	rc = mtp_store_parent_fd(s, handle, &o, &st, &fd);
	if (rc < 0)
		return rc;
	if (st->readonly) {
		close(fd);
		return -EROFS;
	}
	rc = mtp_fs_remove(fd, o->name);
	close(fd);
	if (rc == 0 || rc == -ENOENT)
		mtp_handles_forget_tree(s->handles, handle);
	return rc;
}

int mtp_store_rename(struct mtp_store *s, uint32_t handle, const char *name)
{
	const struct mtp_handles_obj *o;
	struct mtp_storage *st;
	int fd, rc;

	mtp_store_changed(s);
	if (!mtp_store_name_ok(name))
		return -EINVAL;
	rc = mtp_store_parent_fd(s, handle, &o, &st, &fd);
	if (rc < 0)
		return rc;
	if (st->readonly)
		rc = -EROFS;
	else if (renameat2(fd, o->name, fd, name, RENAME_NOREPLACE) < 0)
		rc = -errno;
	close(fd);
	return rc < 0 ? rc
		      : mtp_handles_rekey(s->handles, handle, o->parent, name);
}

int mtp_store_move(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent)
{
	struct mtp_storage *st, *dst = mtp_store_find(s, storage);
	const struct mtp_handles_obj *o;
	int sfd, dfd, rc;

	mtp_store_changed(s);
	if (!dst)
		return -ENOENT;
	if (dst->readonly)
		return -EROFS;
	rc = mtp_store_parent_fd(s, handle, &o, &st, &sfd);
	if (rc < 0)
		return rc;
	if (st->readonly || dst != st) {
		close(sfd);
		return st->readonly ? -EROFS : -EXDEV;
	}
	if (mtp_handles_is_ancestor(s->handles, handle, parent)) {
		close(sfd);
		return -EINVAL;
	}
	rc = mtp_walk_open_dir(s->handles, st, parent, &dfd);
	if (rc == 0) {
		if (renameat2(sfd, o->name, dfd, o->name, RENAME_NOREPLACE) < 0)
			rc = -errno;
		close(dfd);
	}
	close(sfd);
	return rc < 0 ? rc
		      : mtp_handles_rekey(s->handles, handle, parent, o->name);
}

uint32_t mtp_store_handle(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name)
{
	return mtp_handles_find(s->handles, storage, parent, name);
}

void mtp_store_handle_forget(struct mtp_store *s, uint32_t handle)
{
	mtp_handles_forget(s->handles, handle);
}

int mtp_store_upload_begin(struct mtp_store *s, uint32_t storage,
			   uint32_t parent, const char *name, uint64_t size,
			   uint32_t *handle, struct mtp_upload **up)
{
	struct mtp_storage *st;
	int rc = mtp_store_writable(s, storage, name, &st);

	if (rc < 0)
		return rc;
	return mtp_upload_begin(&s->uploads, st, parent, name, size, handle,
				up);
}

int mtp_store_upload_commit(struct mtp_store *s, struct mtp_upload *up)
{
	mtp_store_changed(s);
	return mtp_upload_commit(up);
}

void mtp_store_upload_abort(struct mtp_store *s, struct mtp_upload *up,
			    bool keep_new)
{
	mtp_store_changed(s);
	mtp_upload_abort(up, keep_new);
}
