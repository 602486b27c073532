#include "mtp_store.h"
#include "mtp_fs.h"

#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Deepest folder nesting resolved: mtp_fs's bound for its recursions. */
#define MTP_STORE_MAX_DEPTH MTP_FS_MAX_DEPTH
/* Entries the start-up sweep for left-over temporary files may visit;
 * listing a folder cleans it too. */
#define MTP_STORE_SWEEP_BUDGET 100000

/*
 * A handle is a slot of the table and that slot's generation:
 * gen << MTP_STORE_SLOT_BITS | (slot index + 1). Forgetting an object
 * bumps its slot's generation, so the old handle names nothing from then
 * on, whatever the slot holds later. Freed slots wait in a FIFO and are
 * taken again only while more than MTP_STORE_QUARANTINE others wait, so a
 * stale handle can name another object only after its slot went round
 * all 2^11 generations: more than 2 million deletions later. (With the
 * table full, over 2 million objects known, a freed slot is taken at once;
 * a smaller test table has a quarantine of half its size.)
 */
#define MTP_STORE_SLOT_BITS 21
#define MTP_STORE_SLOT_MASK ((1u << MTP_STORE_SLOT_BITS) - 1)
#define MTP_STORE_GEN_MASK ((1u << (32 - MTP_STORE_SLOT_BITS)) - 1)
#define MTP_STORE_QUARANTINE 1024u

struct mtp_obj {
	char *name; /* NULL once the object is gone */
	uint32_t storage;
	uint32_t parent; /* handle, or MTP_STORE_ROOT */
	uint32_t next;	 /* hash chain, by handle; 0 ends it */
	uint32_t gen;	 /* the slot's generation */
	uint32_t next_free; /* free FIFO, by slot index + 1; 0 ends it */
};

struct mtp_storage {
	uint32_t id;
	int rootfd;
	bool readonly;
	struct mtp_fs_reserve reserve; /* what writes must leave free */
	char *path;
	char *desc;
};

struct mtp_store_upload {
	struct mtp_store_upload *next;
	struct mtp_storage *st;
	uint32_t handle;
	int dirfd; /* the target's folder */
	int fd;	   /* the temporary file */
	bool made; /* the target did not exist: its placeholder is ours */
	uint64_t size;
	uint64_t written;
	char *name;
	char tmp[48];
};

struct mtp_store {
	struct mtp_storage st[MTP_STORE_MAX];
	unsigned n_st;
	struct mtp_obj *objs; /* objs[(h & MTP_STORE_SLOT_MASK) - 1] */
	uint32_t n_objs; /* slots in use or freed */
	uint32_t cap_objs;
	uint32_t max_objs;
	uint32_t free_head, free_tail; /* slot index + 1; 0: none */
	uint32_t n_free;
	uint32_t quarantine; /* freed slots kept out of use */
	uint32_t *buckets;
	uint32_t n_buckets;
	mtp_store_listed_fn listed_fn;
	void *listed_data;
	/* The folder last walked to for a stat (see mtp_store_quiet_fn). */
	mtp_store_quiet_fn quiet_fn;
	void *quiet_data;
	int dc_fd;
	uint32_t dc_storage, dc_parent;
	uint64_t dc_ms;
	struct mtp_store_upload *uploads; /* in progress */
	unsigned tmp_seq;
};

/* How long a cached folder may serve without a new walk. */
#define MTP_STORE_DIRCACHE_MS 1000

static uint64_t mtp_store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mtp_store_set_quiet_fn(struct mtp_store *s, mtp_store_quiet_fn fn,
			    void *data)
{
	s->quiet_fn = fn;
	s->quiet_data = data;
	mtp_store_changed(s);
}

void mtp_store_changed(struct mtp_store *s)
{
	if (s->dc_fd >= 0)
		close(s->dc_fd);
	s->dc_fd = -1;
}

struct mtp_store *mtp_store_new(void)
{
	struct mtp_store *s = calloc(1, sizeof(struct mtp_store));

	if (s) {
		s->dc_fd = -1;
		mtp_store_set_max_objs(s, 0);
	}
	return s;
}

void mtp_store_free(struct mtp_store *s)
{
	if (!s)
		return;
	while (s->uploads)
		mtp_store_upload_abort(s, s->uploads, true);
	mtp_store_changed(s);
	for (unsigned i = 0; i < s->n_st; i++) {
		close(s->st[i].rootfd);
		free(s->st[i].path);
		free(s->st[i].desc);
	}
	for (uint32_t h = 0; h < s->n_objs; h++)
		free(s->objs[h].name);
	free(s->objs);
	free(s->buckets);
	free(s);
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

	if (s->n_st == MTP_STORE_MAX)
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
		log_info("mtp: %s: over %u entries; the rest of the storage "
			 "is cleaned of temporary files as it is listed",
			 path, MTP_STORE_SWEEP_BUDGET);
	st = &s->st[s->n_st];
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
	/* Physical storage i+1, logical storage 1, as PTP suggests. */
	st->id = (s->n_st + 1) << 16 | 1;
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
	return i < s->n_st ? s->st[i].id : 0;
}

static struct mtp_storage *mtp_store_find(struct mtp_store *s, uint32_t id)
{
	for (unsigned i = 0; i < s->n_st; i++)
		if (s->st[i].id == id)
			return &s->st[i];
	return NULL;
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

static uint32_t mtp_store_hash(uint32_t storage, uint32_t parent,
			       const char *name)
{
	uint32_t h = 2166136261u ^ storage ^ (parent * 16777619u);

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

void mtp_store_set_max_objs(struct mtp_store *s, uint32_t n)
{
	s->max_objs = n && n < MTP_STORE_MAX_OBJS ? n : MTP_STORE_MAX_OBJS;
	s->quarantine = s->max_objs / 2 < MTP_STORE_QUARANTINE
			    ? s->max_objs / 2
			    : MTP_STORE_QUARANTINE;
}

/* The slot of handle h, whatever its generation (h names a slot). */
static struct mtp_obj *mtp_store_slot(struct mtp_store *s, uint32_t h)
{
	return &s->objs[(h & MTP_STORE_SLOT_MASK) - 1];
}

static uint32_t mtp_store_handle_of(struct mtp_store *s, uint32_t idx)
{
	return s->objs[idx].gen << MTP_STORE_SLOT_BITS | (idx + 1);
}

static struct mtp_obj *mtp_store_obj(struct mtp_store *s, uint32_t handle)
{
	uint32_t slot = handle & MTP_STORE_SLOT_MASK;
	struct mtp_obj *o;

	if (slot == 0 || slot > s->n_objs)
		return NULL;
	o = &s->objs[slot - 1];
	if (!o->name || o->gen != handle >> MTP_STORE_SLOT_BITS)
		return NULL;
	return o;
}

static uint32_t *mtp_store_bucket(struct mtp_store *s, const struct mtp_obj *o)
{
	return &s->buckets[mtp_store_hash(o->storage, o->parent, o->name) &
			   (s->n_buckets - 1)];
}

static void mtp_store_unhash(struct mtp_store *s, uint32_t handle)
{
	uint32_t *p = mtp_store_bucket(s, mtp_store_slot(s, handle));

	while (*p && *p != handle)
		p = &mtp_store_slot(s, *p)->next;
	if (*p)
		*p = mtp_store_slot(s, handle)->next;
	mtp_store_slot(s, handle)->next = 0;
}

static void mtp_store_rehash(struct mtp_store *s, uint32_t handle)
{
	uint32_t *b = mtp_store_bucket(s, mtp_store_slot(s, handle));

	mtp_store_slot(s, handle)->next = *b;
	*b = handle;
}

static int mtp_store_grow(struct mtp_store *s)
{
	if (s->n_objs >= s->max_objs)
		return -ENOSPC;
	if (s->n_objs == s->cap_objs) {
		uint32_t cap = s->cap_objs ? 2 * s->cap_objs : 1024;
		struct mtp_obj *o = realloc(s->objs, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		s->objs = o;
		s->cap_objs = cap;
	}
	if (s->n_objs + 1 > s->n_buckets) {
		uint32_t nb = s->n_buckets ? 2 * s->n_buckets : 1024;
		uint32_t *b = calloc(nb, sizeof(*b));

		if (!b)
			return -ENOMEM;
		free(s->buckets);
		s->buckets = b;
		s->n_buckets = nb;
		for (uint32_t i = 0; i < s->n_objs; i++)
			if (s->objs[i].name)
				mtp_store_rehash(s, mtp_store_handle_of(s, i));
	}
	return 0;
}

static uint32_t mtp_store_find_obj(struct mtp_store *s, uint32_t storage,
				   uint32_t parent, const char *name)
{
	uint32_t h;

	if (!s->n_buckets)
		return 0;
	h = s->buckets[mtp_store_hash(storage, parent, name) &
		       (s->n_buckets - 1)];
	for (; h; h = mtp_store_slot(s, h)->next) {
		const struct mtp_obj *o = mtp_store_slot(s, h);

		if (o->storage == storage && o->parent == parent &&
		    !strcmp(o->name, name))
			return h;
	}
	return 0;
}

/* A slot for a new entry: a freed one out of quarantine, else a new one,
 * else (the table is full) any freed one. Its index, or -errno. */
static int64_t mtp_store_take_slot(struct mtp_store *s)
{
	uint32_t idx;
	int rc;

	if (s->n_free <= s->quarantine) {
		rc = mtp_store_grow(s);
		if (rc == 0) {
			s->objs[s->n_objs].gen = 0;
			return s->n_objs++;
		}
		if (!s->n_free)
			return rc;
	}
	idx = s->free_head - 1;
	s->free_head = s->objs[idx].next_free;
	if (!s->free_head)
		s->free_tail = 0;
	s->n_free--;
	return idx;
}

/* The handle of (storage, parent, name), adding an entry if needed. */
static int mtp_store_intern(struct mtp_store *s, uint32_t storage,
			    uint32_t parent, const char *name, uint32_t *out)
{
	struct mtp_obj *o;
	char *copy;
	int64_t idx;

	*out = mtp_store_find_obj(s, storage, parent, name);
	if (*out)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	idx = mtp_store_take_slot(s);
	if (idx < 0) {
		free(copy);
		return (int)idx;
	}
	o = &s->objs[idx];
	o->name = copy;
	o->storage = storage;
	o->parent = parent;
	o->next = 0;
	o->next_free = 0;
	*out = mtp_store_handle_of(s, (uint32_t)idx);
	mtp_store_rehash(s, *out);
	return 0;
}

void mtp_store_forget(struct mtp_store *s, uint32_t handle)
{
	struct mtp_obj *o = mtp_store_obj(s, handle);
	uint32_t idx;

	mtp_store_changed(s);
	if (!o)
		return;
	mtp_store_unhash(s, handle);
	free(o->name);
	o->name = NULL;
	/* The handle dies with the object; 0xFFFFFFFF means "all" in MTP
	 * and is never handed out. */
	idx = (handle & MTP_STORE_SLOT_MASK) - 1;
	do
		o->gen = (o->gen + 1) & MTP_STORE_GEN_MASK;
	while (mtp_store_handle_of(s, idx) == 0xFFFFFFFFu);
	o->next_free = 0;
	if (s->free_tail)
		s->objs[s->free_tail - 1].next_free = idx + 1;
	else
		s->free_head = idx + 1;
	s->free_tail = idx + 1;
	s->n_free++;
}

/* True when anc is h or one of its folders (all live). */
static bool mtp_store_under(struct mtp_store *s, uint32_t h, uint32_t anc)
{
	for (unsigned i = 0; h != MTP_STORE_ROOT && i <= MTP_STORE_MAX_DEPTH;
	     i++) {
		struct mtp_obj *o;

		if (h == anc)
			return true;
		o = mtp_store_obj(s, h);
		if (!o)
			return false;
		h = o->parent;
	}
	return false;
}

/* Forget handle and everything listed below it: a deleted folder's
 * children must neither linger in memory nor be reported again. They are
 * found first and forgotten after, as forgetting kills the handles the
 * search follows. */
static void mtp_store_forget_tree(struct mtp_store *s, uint32_t handle)
{
	uint32_t *found = NULL, n = 0, cap = 0;

	for (uint32_t i = 0; i < s->n_objs; i++) {
		uint32_t h = mtp_store_handle_of(s, i);

		if (!s->objs[i].name || h == handle || !mtp_store_under(s, h, handle))
			continue;
		if (n == cap) {
			uint32_t *a = realloc(found, (cap ? 2 * cap : 64) *
							 sizeof(*a));

			if (!a)
				break; /* the rest lingers, unreachable */
			found = a;
			cap = cap ? 2 * cap : 64;
		}
		found[n++] = h;
	}
	for (uint32_t i = 0; i < n; i++)
		mtp_store_forget(s, found[i]);
	free(found);
	mtp_store_forget(s, handle);
}

/* Open folder `parent` of storage st by walking down from the root. */
static int mtp_store_open_dir(struct mtp_store *s, struct mtp_storage *st,
			      uint32_t parent, int *out)
{
	uint32_t chain[MTP_STORE_MAX_DEPTH];
	unsigned depth = 0;
	int fd;

	for (uint32_t h = parent; h != MTP_STORE_ROOT;) {
		struct mtp_obj *o = mtp_store_obj(s, h);

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
		int next = mtp_fs_open(fd, mtp_store_slot(s, chain[depth])->name,
				       O_RDONLY | O_DIRECTORY, 0);

		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	*out = fd;
	return 0;
}

int mtp_store_dirfd(struct mtp_store *s, uint32_t storage, uint32_t parent,
		    int *fd)
{
	struct mtp_storage *st = mtp_store_find(s, storage);

	if (!st)
		return -ENOENT;
	return mtp_store_open_dir(s, st, parent, fd);
}

/* Open the folder holding handle; *o gets its entry. */
static int mtp_store_parent_fd(struct mtp_store *s, uint32_t handle,
			       struct mtp_obj **o, struct mtp_storage **st,
			       int *fd)
{
	*o = mtp_store_obj(s, handle);
	if (!*o)
		return -ENOENT;
	int rc;

	*st = mtp_store_find(s, (*o)->storage);
	if (!*st)
		return -ENOENT;
	rc = mtp_store_open_dir(s, *st, (*o)->parent, fd);
	/* A folder on the way that is no longer one (or became a link):
	 * the object is gone as far as the host is concerned. */
	return rc == -ENOTDIR ? -ENOENT : rc;
}

/* Stat name in dirfd: -ENOENT unless it is an object the host may see. */
static int mtp_store_lstat(int dirfd, const char *name, struct mtp_fs_stat *sb)
{
	int rc = mtp_fs_entry(dirfd, name, sb);

	return rc == -EACCES ? -ENOENT : rc;
}

/* mtp_store_parent_fd() through the folder cache; the fd stays s's.
 * -ENOSYS: no cache without a quiet_fn. */
static int mtp_store_parent_cached(struct mtp_store *s, uint32_t handle,
				   struct mtp_obj **o, struct mtp_storage **st,
				   int *fd)
{
	uint64_t now = mtp_store_now_ms();
	int rc;

	if (!s->quiet_fn)
		return -ENOSYS;
	if (s->dc_fd >= 0 && (now - s->dc_ms >= MTP_STORE_DIRCACHE_MS ||
			      !s->quiet_fn(s->quiet_data)))
		mtp_store_changed(s);
	*o = mtp_store_obj(s, handle);
	if (*o && s->dc_fd >= 0 && s->dc_storage == (*o)->storage &&
	    s->dc_parent == (*o)->parent) {
		*st = mtp_store_find(s, (*o)->storage);
		*fd = s->dc_fd;
		return *st ? 0 : -ENOENT;
	}
	rc = mtp_store_parent_fd(s, handle, o, st, fd);
	if (rc < 0)
		return rc;
	mtp_store_changed(s);
	s->dc_fd = *fd;
	s->dc_storage = (*o)->storage;
	s->dc_parent = (*o)->parent;
	s->dc_ms = now;
	return 0;
}

int mtp_store_stat(struct mtp_store *s, uint32_t handle,
		   struct mtp_obj_stat *out)
{
	struct mtp_obj *o;
	struct mtp_storage *st;
	struct mtp_fs_stat sb;
	bool cached = true;
	int fd, rc;

	rc = mtp_store_parent_cached(s, handle, &o, &st, &fd);
	if (rc == -ENOSYS) {
		cached = false;
		rc = mtp_store_parent_fd(s, handle, &o, &st, &fd);
	}
	if (rc < 0)
		return rc;
	rc = mtp_store_lstat(fd, o->name, &sb);
	if (!cached)
		close(fd);
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
	struct mtp_obj *o;
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
	struct mtp_obj *o;
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

/* True when name is the temporary file of an upload in progress. */
static bool mtp_store_uploading(struct mtp_store *s, const char *name)
{
	for (struct mtp_store_upload *u = s->uploads; u; u = u->next)
		if (!strcmp(u->tmp, name))
			return true;
	return false;
}

static bool mtp_store_dirent_ok(struct mtp_store *s, int dfd,
				const struct dirent *de)
{
	struct mtp_fs_stat sb;

	/* A temporary file no upload owns was left by a killed worker. */
	if (mtp_fs_is_tmp(de->d_name) && de->d_type != DT_DIR &&
	    !mtp_store_uploading(s, de->d_name)) {
		if (mtp_fs_entry(dfd, de->d_name, &sb) == 0 && !sb.dir)
			unlinkat(dfd, de->d_name, 0);
		return false;
	}
	if (!mtp_store_name_ok(de->d_name))
		return false;
	/* d_type cannot tell a mount point or a hard-linked file. */
	if (de->d_type != DT_DIR && de->d_type != DT_REG &&
	    de->d_type != DT_UNKNOWN)
		return false;
	return mtp_fs_entry(dfd, de->d_name, &sb) == 0;
}

static int mtp_store_push(uint32_t **out, size_t *n, uint32_t h)
{
	/* Capacity is 64, then powers of two: grow when n reaches it. */
	if (*n == 0 || (*n >= 64 && (*n & (*n - 1)) == 0)) {
		size_t cap = *n ? 2 * *n : 64;
		uint32_t *a = realloc(*out, cap * sizeof(**out));

		if (!a)
			return -ENOMEM;
		*out = a;
	}
	(*out)[(*n)++] = h;
	return 0;
}

int mtp_store_list(struct mtp_store *s, uint32_t storage, uint32_t parent,
		   uint32_t **out, size_t *n)
{
	struct dirent *de;
	DIR *d;
	int fd, rc;

	rc = mtp_store_dirfd(s, storage, parent, &fd);
	if (rc < 0)
		return rc;
	if (s->listed_fn)
		s->listed_fn(s->listed_data, storage, parent, fd);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		uint32_t h;

		if (!mtp_store_dirent_ok(s, dirfd(d), de))
			continue;
		rc = mtp_store_intern(s, storage, parent, de->d_name, &h);
		if (rc == 0)
			rc = mtp_store_push(out, n, h);
		if (rc < 0)
			break;
	}
	closedir(d);
	return rc;
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
		mtp_store_intern(s, storage, parent, name, &h);
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
	rc = mtp_store_open_dir(s, st, parent, &dfd);
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
		rc = mtp_store_intern(s, storage, parent, name, handle);
	return rc;
}

int mtp_store_delete(struct mtp_store *s, uint32_t handle)
{
	struct mtp_obj *o;
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
		mtp_store_forget_tree(s, handle);
	return rc;
}

/* Re-key handle under (parent, name); a stale entry there is dropped. */
static int mtp_store_rekey(struct mtp_store *s, uint32_t handle,
			   uint32_t parent, const char *name)
{
	struct mtp_obj *o = mtp_store_slot(s, handle);
	uint32_t old = mtp_store_find_obj(s, o->storage, parent, name);
	char *n = strdup(name);

	if (!n)
		return -ENOMEM;
	if (old && old != handle)
		mtp_store_forget(s, old);
	mtp_store_unhash(s, handle);
	free(o->name);
	o->name = n;
	o->parent = parent;
	mtp_store_rehash(s, handle);
	return 0;
}

int mtp_store_rename(struct mtp_store *s, uint32_t handle, const char *name)
{
	struct mtp_obj *o;
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
	return rc < 0 ? rc : mtp_store_rekey(s, handle, o->parent, name);
}

/* True when folder `anc` is parent or one of its ancestors. */
static bool mtp_store_is_ancestor(struct mtp_store *s, uint32_t anc,
				  uint32_t parent)
{
	for (unsigned i = 0;
	     parent != MTP_STORE_ROOT && i < MTP_STORE_MAX_DEPTH; i++) {
		struct mtp_obj *o = mtp_store_obj(s, parent);

		if (parent == anc)
			return true;
		if (!o)
			return false;
		parent = o->parent;
	}
	return false;
}

int mtp_store_move(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent)
{
	struct mtp_storage *st, *dst = mtp_store_find(s, storage);
	struct mtp_obj *o;
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
	if (mtp_store_is_ancestor(s, handle, parent)) {
		close(sfd);
		return -EINVAL;
	}
	rc = mtp_store_open_dir(s, st, parent, &dfd);
	if (rc == 0) {
		if (renameat2(sfd, o->name, dfd, o->name, RENAME_NOREPLACE) < 0)
			rc = -errno;
		close(dfd);
	}
	close(sfd);
	return rc < 0 ? rc : mtp_store_rekey(s, handle, parent, o->name);
}

struct mtp_store_copy {
	struct mtp_fs_copy *fc;
	uint32_t storage, parent;
	char *name;
};

void mtp_store_copy_abort(struct mtp_store *s, struct mtp_store_copy *c)
{
	if (!c)
		return;
	mtp_store_changed(s);
	mtp_fs_copy_free(c->fc);
	free(c->name);
	free(c);
}

int mtp_store_copy_begin(struct mtp_store *s, uint32_t handle,
			 uint32_t storage, uint32_t parent,
			 struct mtp_store_copy **out)
{
	struct mtp_storage *st, *dst = mtp_store_find(s, storage);
	struct mtp_store_copy *c;
	struct mtp_obj *o;
	int sfd, dfd, rc;

	mtp_store_changed(s);
	if (!dst)
		return -ENOENT;
	if (dst->readonly)
		return -EROFS;
	rc = mtp_store_parent_fd(s, handle, &o, &st, &sfd);
	if (rc < 0)
		return rc;
	if (st == dst && mtp_store_is_ancestor(s, handle, parent)) {
		close(sfd);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	rc = c ? 0 : -ENOMEM;
	if (rc == 0)
		rc = mtp_store_open_dir(s, dst, parent, &dfd);
	if (rc == 0) {
		c->storage = storage;
		c->parent = parent;
		c->name = strdup(o->name);
		rc = c->name ? mtp_fs_copy_new(sfd, dfd, o->name,
					       &dst->reserve, &c->fc)
			     : -ENOMEM;
		close(dfd);
	}
	close(sfd);
	if (rc < 0) {
		mtp_store_copy_abort(s, c);
		return rc;
	}
	*out = c;
	return 0;
}

int mtp_store_copy_step(struct mtp_store *s, struct mtp_store_copy *c,
			uint32_t *copy)
{
	int rc = mtp_fs_copy_step(c->fc);

	if (rc > 0)
		return rc;
	if (rc == 0)
		rc = mtp_store_intern(s, c->storage, c->parent, c->name, copy);
	/* A copy the host cannot be given a handle for goes again. */
	if (rc < 0)
		mtp_fs_copy_discard(c->fc);
	else
		mtp_fs_copy_free(c->fc);
	c->fc = NULL;
	mtp_store_copy_abort(s, c);
	return rc;
}

int mtp_store_copy(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent, uint32_t *copy)
{
	struct mtp_store_copy *c;
	int rc = mtp_store_copy_begin(s, handle, storage, parent, &c);

	if (rc < 0)
		return rc;
	while ((rc = mtp_store_copy_step(s, c, copy)) > 0)
		;
	return rc;
}

/* Create the hidden temporary file of an upload in dfd; tmp gets its name. */
static int mtp_store_tmp_open(struct mtp_store *s, int dfd, char *tmp,
			      size_t size)
{
	/* O_EXCL refuses whatever holds the name, a planted link included. */
	for (unsigned i = 0; i < 100; i++) {
		int fd;

		snprintf(tmp, size, MTP_FS_TMP_PREFIX "%ld-%u", (long)getpid(),
			 s->tmp_seq++);
		fd = mtp_fs_open(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

/* Close and remove what an upload holds; drop_new also removes the
 * placeholder of a new object and forgets its handle. */
static void mtp_store_upload_free(struct mtp_store *s,
				  struct mtp_store_upload *up, bool drop_new)
{
	struct mtp_fs_stat sb;

	for (struct mtp_store_upload **p = &s->uploads; *p; p = &(*p)->next)
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
		mtp_store_forget(s, up->handle);
	if (up->dirfd >= 0)
		close(up->dirfd);
	free(up->name);
	free(up);
}

/* Everything mtp_store_upload_begin() checks and creates. */
static int mtp_store_upload_prepare(struct mtp_store *s,
				    struct mtp_store_upload *up,
				    uint32_t parent)
{
	struct mtp_fs_stat sb;
	uint64_t need;
	int rc, fd;

	rc = mtp_store_open_dir(s, up->st, parent, &up->dirfd);
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
	need = up->size == MTP_STORE_SIZE_UNKNOWN ? 0xFFFFFFFFull : up->size;
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
	up->fd = mtp_store_tmp_open(s, up->dirfd, up->tmp, sizeof(up->tmp));
	if (up->fd < 0) {
		up->tmp[0] = 0;
		return up->fd;
	}
	/* The new version keeps the old one's permissions. */
	if (!up->made && fchmod(up->fd, sb.mode & 0777) < 0)
		return -errno;
	return mtp_store_intern(s, up->st->id, parent, up->name, &up->handle);
}

int mtp_store_upload_begin(struct mtp_store *s, uint32_t storage,
			   uint32_t parent, const char *name, uint64_t size,
			   uint32_t *handle, struct mtp_store_upload **out)
{
	struct mtp_storage *st;
	struct mtp_store_upload *up;
	int rc;

	rc = mtp_store_writable(s, storage, name, &st);
	if (rc < 0)
		return rc;
	up = calloc(1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	up->st = st;
	up->size = size;
	up->fd = -1;
	up->dirfd = -1;
	up->name = strdup(name);
	rc = up->name ? mtp_store_upload_prepare(s, up, parent) : -ENOMEM;
	if (rc < 0) {
		mtp_store_upload_free(s, up, true);
		return rc;
	}
	up->next = s->uploads;
	s->uploads = up;
	*handle = up->handle;
	*out = up;
	return 0;
}

int mtp_store_upload_write(struct mtp_store_upload *up, const void *data,
			   size_t n)
{
	const uint8_t *p = data;
	uint64_t room;
	int rc;

	if (up->size != MTP_STORE_SIZE_UNKNOWN && n > up->size - up->written)
		return -EFBIG;
	/* Checked on every write: the announced size may be unknown, and
	 * the board may fill the disk meanwhile. */
	rc = mtp_fs_headroom(up->fd, up->st->reserve.bytes, &room);
	if (rc < 0)
		return rc;
	if (room < n)
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
	}
	return 0;
}

int mtp_store_upload_commit(struct mtp_store *s, struct mtp_store_upload *up)
{
	int rc = 0;

	mtp_store_changed(s);
	if (up->size != MTP_STORE_SIZE_UNKNOWN && up->written != up->size)
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
	mtp_store_upload_free(s, up, rc < 0);
	return rc;
}

void mtp_store_upload_abort(struct mtp_store *s, struct mtp_store_upload *up,
			    bool keep_new)
{
	mtp_store_changed(s);
	mtp_store_upload_free(s, up, !keep_new);
}

uint32_t mtp_store_handle(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name)
{
	return mtp_store_find_obj(s, storage, parent, name);
}
