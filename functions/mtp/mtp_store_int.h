/*
 * mtp_store_int: what the files of the mtp_store module share, and nothing
 * outside them may use (mtp_store.h is the public face). The module is
 * split by job:
 *
 *   mtp_store.c         the store and its storages (reserve, space), and
 *                       the operations on one object: stat, open, lookup,
 *                       mkdir, delete, rename, move
 *   mtp_store_handle.c  the handle table: slots, generations, the hash by
 *                       (storage, parent, name), forgetting
 *   mtp_store_walk.c    from a handle to an fd of its folder, walking down
 *                       from the storage's root; the folder kept for stats
 *   mtp_store_list.c    listing a folder
 *   mtp_store_copy.c    copying a file or a folder tree, in steps
 *   mtp_store_upload.c  receiving a file into a temporary one
 */
#ifndef GADGETD_MTP_STORE_INT_H
#define GADGETD_MTP_STORE_INT_H

#include "mtp_store.h"
#include "mtp_fs.h"

#include <stdbool.h>
#include <stdint.h>

/* Deepest folder nesting resolved: mtp_fs's bound for its recursions. */
#define MTP_STORE_MAX_DEPTH MTP_FS_MAX_DEPTH

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

struct mtp_store {
	const char *name; /* what its log lines start with */
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
	/* The object last stat'ed in that folder (0: none), valid as long
	 * as the folder is (see mtp_store_walk_stat_cached). */
	uint32_t sc_handle;
	struct mtp_fs_stat sc_sb;
	struct mtp_store_upload *uploads; /* in progress */
	unsigned tmp_seq;
};

/* mtp_store.c */
struct mtp_storage *mtp_store_find(struct mtp_store *s, uint32_t id);
/* A new entry called name may be made in storage: 0 or -errno. */
int mtp_store_writable(struct mtp_store *s, uint32_t storage, const char *name,
		       struct mtp_storage **out);

/* mtp_store_handle.c */
/* The slot of handle h, whatever its generation (h names a slot). */
struct mtp_obj *mtp_store_handle_slot(struct mtp_store *s, uint32_t h);
/* The live object of handle, or NULL. */
struct mtp_obj *mtp_store_handle_obj(struct mtp_store *s, uint32_t handle);
/* The handle of (storage, parent, name), adding an entry if needed. */
int mtp_store_handle_intern(struct mtp_store *s, uint32_t storage,
			    uint32_t parent, const char *name, uint32_t *out);
/* Forget handle and everything listed below it. */
void mtp_store_handle_forget_tree(struct mtp_store *s, uint32_t handle);
/* Re-key handle under (parent, name); a stale entry there is dropped. */
int mtp_store_handle_rekey(struct mtp_store *s, uint32_t handle,
			   uint32_t parent, const char *name);
/* True when folder `anc` is parent or one of its ancestors. */
bool mtp_store_handle_is_ancestor(struct mtp_store *s, uint32_t anc,
				  uint32_t parent);

/* mtp_store_walk.c */
/* Open folder `parent` of storage st by walking down from the root. */
int mtp_store_walk_open_dir(struct mtp_store *s, struct mtp_storage *st,
			    uint32_t parent, int *out);
/* Open the folder holding handle; *o gets its entry. */
int mtp_store_walk_parent_fd(struct mtp_store *s, uint32_t handle,
			     struct mtp_obj **o, struct mtp_storage **st,
			     int *fd);
/* mtp_store_walk_parent_fd() through the folder cache; the fd stays s's.
 * -ENOSYS: no cache without a quiet_fn. */
int mtp_store_walk_parent_cached(struct mtp_store *s, uint32_t handle,
				 struct mtp_obj **o, struct mtp_storage **st,
				 int *fd);

/*
 * mtp_fs_entry() of handle in its folder, through the folder cache; the
 * object last asked for is answered again from memory while that cache
 * holds (no inotify record pending, no change of ours, the folder walked
 * under MTP_STORE_DIRCACHE_MS ago). -ENOSYS: no cache without a quiet_fn.
 */
int mtp_store_walk_stat_cached(struct mtp_store *s, uint32_t handle,
			       struct mtp_obj **o, struct mtp_storage **st,
			       struct mtp_fs_stat *sb);

/* mtp_store_upload.c */
/* True when name is the temporary file of an upload in progress. */
bool mtp_store_upload_owns(struct mtp_store *s, const char *name);

#endif
