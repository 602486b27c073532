/*
 * mtp_store: the storages an MTP responder exports and the object handles
 * of the files and folders in them.
 *
 * Handles are assigned lazily, when a folder is listed or an object is
 * created, and stay stable while the object lives (a re-listed name keeps
 * its handle; a renamed object keeps its handle). The slots of deleted
 * objects are reused, under new handles. Nothing is read at start-up
 * beyond the storage roots.
 *
 * Every access is confined to its storage's root: paths are resolved
 * component by component from a directory fd of the root with mtp_fs's
 * openat2() (no symbolic link followed, no mount crossed); names must be
 * non-empty, not "." or "..", contain no '/' and not start with
 * MTP_FS_TMP_PREFIX. Symbolic links, mount points and hard-linked files
 * are never listed, served nor overwritten (see mtp_fs.h).
 *
 * Files the host sends are uploads: the data goes to a hidden temporary
 * file in the target's folder and replaces the target only once it is
 * complete, so a cancelled or failed transfer leaves the old content.
 * Writes keep each storage's reserve of bytes and inodes free.
 */
#ifndef GADGETD_MTP_STORE_H
#define GADGETD_MTP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mtp_upload.h"

#define MTP_STORE_MAX 8
/* Parent value meaning "the storage root" in this API (the handle
 * table's MTP_HANDLES_ROOT). */
#define MTP_STORE_ROOT 0u

struct mtp_store;

struct mtp_obj_stat {
	uint32_t handle;
	uint32_t storage;
	uint32_t parent; /* MTP_STORE_ROOT at the top of a storage */
	bool dir;
	bool readonly; /* on a read-only storage */
	uint64_t size;
	time_t mtime;
	time_t ctime;
	const char *name; /* valid until the next call that changes the store */
};

struct mtp_storage_stat {
	uint64_t capacity;
	uint64_t free_bytes; /* what may be written: free less the reserve */
	uint64_t reserve;
	uint64_t reserve_inodes;
	bool readonly;
	const char *description;
	const char *path;
};

/* name starts the store's log lines ("mtp"); it must outlive the store. */
struct mtp_store *mtp_store_new(const char *name);
void mtp_store_free(struct mtp_store *s);

/*
 * The store knows MTP_HANDLES_MAX objects at once at the most, to bound
 * memory whatever the host lists (-ENOSPC beyond). A handle of a
 * forgotten or deleted object is dead: it is never given to another
 * object until its slot was reused 2048 times, which takes more than 2
 * million deletions (see mtp_handles.h). For tests: hold at most n
 * objects at once (0: MTP_HANDLES_MAX).
 */
void mtp_store_set_max_objs(struct mtp_store *s, uint32_t n);

/*
 * Add a storage rooted at path (must be an existing directory). *id gets
 * its storage id. Temporary files a killed worker left in a writable
 * storage are removed. -ENOSYS without openat2 (Linux < 5.6), -ELOOP
 * when a component of path is a symbolic link (none is followed).
 */
int mtp_store_add(struct mtp_store *s, const char *path, const char *desc,
		  bool readonly, uint32_t *id);
/*
 * Take storage id away (-ENOENT when there is none): its uploads in
 * progress are aborted (temporary file and placeholder removed), and
 * the handles of its objects die, never to name another object (see
 * mtp_store_set_max_objs). Its id is never given again by this store:
 * ids count every storage added (-ENOSPC after 65534 of them).
 * Whoever holds one of its uploads must drop it first.
 */
int mtp_store_remove(struct mtp_store *s, uint32_t id);
/* The id of the storage described desc, or 0. */
uint32_t mtp_store_find_desc(const struct mtp_store *s, const char *desc);
/*
 * Writes to storage id must leave bytes free and inodes unused (0 and 0
 * by default). Every creation counts (mtp_fs_room): a folder, an empty
 * file, each object of a copied tree, an upload's temporary file.
 */
int mtp_store_set_reserve(struct mtp_store *s, uint32_t id, uint64_t bytes);
int mtp_store_set_reserve_inodes(struct mtp_store *s, uint32_t id,
				 uint64_t inodes);
unsigned mtp_store_count(const struct mtp_store *s);
/* The i-th storage's id, in the order they were added (0 beyond). */
uint32_t mtp_store_id(const struct mtp_store *s, unsigned i);
/* -ENOENT for an unknown storage id. */
int mtp_store_storage_stat(struct mtp_store *s, uint32_t id,
			   struct mtp_storage_stat *st);

/* True for a name that may be used inside a storage. */
bool mtp_store_name_ok(const char *name);

/*
 * List the objects directly under parent (a folder handle or
 * MTP_STORE_ROOT) of storage id. Handles are appended to *out, a
 * malloc'ed array of *n entries grown as needed: NULL, or with room for
 * 64 entries, or for n rounded up to a power of two. -ENOENT for an unknown
 * storage or handle, -ENOTDIR when parent is a file, -ENOSPC when the
 * handle table is full.
 */
int mtp_store_list(struct mtp_store *s, uint32_t storage, uint32_t parent,
		   uint32_t **out, size_t *n);
/*
 * mtp_store_list() that also appends each object's stat, made while
 * listing, to *stats (unless stats is NULL): an array grown like *out,
 * in step with it. The names in it are valid until the next call that
 * changes the store.
 */
int mtp_store_list_stat(struct mtp_store *s, uint32_t storage,
			uint32_t parent, uint32_t **out,
			struct mtp_obj_stat **stats, size_t *n);

/* Stat the object now. -ENOENT for an unknown or vanished handle. */
int mtp_store_stat(struct mtp_store *s, uint32_t handle,
		   struct mtp_obj_stat *st);
/* Open a regular file object for reading (flags: O_RDONLY and the like;
 * anything that writes is -EINVAL). -EACCES for a hard-linked file,
 * -EISDIR for a folder or another kind of file. */
int mtp_store_open(struct mtp_store *s, uint32_t handle, int flags, int *fd);

/*
 * Open a file object to edit it in place (Android's edit extensions),
 * read-write and confined like mtp_store_open(); *reserve gets what its
 * storage must keep free. -EROFS on a read-only storage, -EACCES for a
 * file the worker may not write or a hard-linked one, -EISDIR for a
 * folder or another kind of file.
 */
int mtp_store_edit_open(struct mtp_store *s, uint32_t handle, int *fd,
			uint64_t *reserve);

/*
 * Create a folder named name under parent; one that exists is reused.
 * -EROFS on a read-only storage, -EINVAL for a bad name, -EEXIST when a
 * file (or anything invisible) has the name.
 */
int mtp_store_mkdir(struct mtp_store *s, uint32_t storage, uint32_t parent,
		    const char *name, uint32_t *handle);

/*
 * Start receiving the file name under parent (mtp_upload_begin, which
 * says what *handle gets and what fails), in storage (-EROFS when it is
 * read-only, -EINVAL for a bad name). mtp_upload_write() sends the data.
 */
int mtp_store_upload_begin(struct mtp_store *s, uint32_t storage,
			   uint32_t parent, const char *name, uint64_t size,
			   uint32_t *handle, struct mtp_upload **up);
/* mtp_upload_commit(), mtp_upload_abort(), and the store knows that the
 * disk changed. */
int mtp_store_upload_commit(struct mtp_store *s, struct mtp_upload *up);
void mtp_store_upload_abort(struct mtp_store *s, struct mtp_upload *up,
			    bool keep_new);
/* Delete an object, folders recursively. The handle is dropped. */
int mtp_store_delete(struct mtp_store *s, uint32_t handle);
int mtp_store_rename(struct mtp_store *s, uint32_t handle, const char *name);
/* Move within the same storage (-EXDEV otherwise). */
int mtp_store_move(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent);
/*
 * Copy a file or folder tree into parent of storage, in steps (see
 * mtp_fs_copy_new): begin checks what it can at once (-ENOENT, -EROFS,
 * -EINVAL for a folder into itself); each step does a bounded piece and
 * returns 1 while there is more, or frees the job and returns 0 (*copy
 * gets the new handle) or -errno. -ENOSPC when the whole tree, counted
 * before anything is made, does not fit above the destination's reserve
 * of bytes and inodes, or when the disk fills meanwhile. Nothing of a
 * failed or aborted copy stays.
 */
struct mtp_store_copy;
int mtp_store_copy_begin(struct mtp_store *s, uint32_t handle,
			 uint32_t storage, uint32_t parent,
			 struct mtp_store_copy **c);
int mtp_store_copy_step(struct mtp_store *s, struct mtp_store_copy *c,
			uint32_t *copy);
/* The storage a copy in progress writes into. */
uint32_t mtp_store_copy_storage(const struct mtp_store_copy *c);
/* Give up a copy in progress (NULL is fine): what it made goes. */
void mtp_store_copy_abort(struct mtp_store *s, struct mtp_store_copy *c);
/* The whole copy at once, as above. */
int mtp_store_copy(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent, uint32_t *copy);

/* Open the directory of parent (handle or MTP_STORE_ROOT) in storage. */
int mtp_store_dirfd(struct mtp_store *s, uint32_t storage, uint32_t parent,
		    int *fd);
/* The handle of name under parent, assigning one if the object exists;
 * 0 when it does not. */
uint32_t mtp_store_lookup(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name);
/* The handle already assigned to name under parent, or 0. */
uint32_t mtp_store_handle(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name);
/* Forget a handle whose object disappeared behind our back. */
void mtp_store_handle_forget(struct mtp_store *s, uint32_t handle);
/* Something may have changed on disk (an inotify batch): forget cached
 * folders. */
void mtp_store_changed(struct mtp_store *s);

/* Called after a folder was listed, with an fd of it (not to be kept):
 * the events module watches exactly the folders the host has seen. */
typedef void (*mtp_store_listed_fn)(void *data, uint32_t storage,
				    uint32_t parent, int dirfd);
/*
 * Whether nothing on disk can have changed unseen: true when no inotify
 * event is waiting. Only with it does the store keep the folder it last
 * walked to open between two stats (saving an open and a close per level
 * when a host asks about each object of a folder in turn); a waiting
 * event, a change of ours and age all make it walk again.
 */
typedef bool (*mtp_store_quiet_fn)(void *data);
void mtp_store_set_quiet_fn(struct mtp_store *s, mtp_store_quiet_fn fn,
			    void *data);
void mtp_store_set_listed_fn(struct mtp_store *s, mtp_store_listed_fn fn,
			     void *data);

#endif
