/*
 * mtp_store: the storages an MTP responder exports and the object handles
 * of the files and folders in them.
 *
 * Handles are assigned lazily, when a folder is listed or an object is
 * created, and stay stable for the life of the store (a re-listed name
 * keeps its handle; a renamed object keeps its handle). Nothing is read
 * at start-up beyond the storage roots.
 *
 * Every access is confined to its storage's root: paths are resolved
 * component by component with openat(O_NOFOLLOW) from a directory fd of
 * the root, names must be non-empty, not "." or "..", and contain no '/'.
 * Symbolic links are never followed nor listed.
 */
#ifndef GADGETD_MTP_STORE_H
#define GADGETD_MTP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define MTP_STORE_MAX 8
/* Upper bound on handles, to bound memory whatever the host lists. */
#define MTP_STORE_MAX_OBJS (1u << 21)
/* Parent value meaning "the storage root" in this API. */
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
	uint64_t free_bytes;
	bool readonly;
	const char *description;
	const char *path;
};

struct mtp_store *mtp_store_new(void);
void mtp_store_free(struct mtp_store *s);

/* Add a storage rooted at path (must be an existing directory).
 * *id gets its storage id. */
int mtp_store_add(struct mtp_store *s, const char *path, const char *desc,
		  bool readonly, uint32_t *id);
unsigned mtp_store_count(const struct mtp_store *s);
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

/* Stat the object now. -ENOENT for an unknown or vanished handle. */
int mtp_store_stat(struct mtp_store *s, uint32_t handle,
		   struct mtp_obj_stat *st);
/* Open a regular file object with flags (O_RDONLY or O_WRONLY). */
int mtp_store_open(struct mtp_store *s, uint32_t handle, int flags, int *fd);

/*
 * Create a folder (dir) or an empty regular file named name under parent.
 * A folder that exists is reused; a file that exists is truncated.
 * For a file, *fd gets it opened for writing. -EROFS on a read-only
 * storage, -EINVAL for a bad name.
 */
int mtp_store_create(struct mtp_store *s, uint32_t storage, uint32_t parent,
		     const char *name, bool dir, uint32_t *handle, int *fd);
/* Delete an object, folders recursively. The handle is dropped. */
int mtp_store_delete(struct mtp_store *s, uint32_t handle);
int mtp_store_rename(struct mtp_store *s, uint32_t handle, const char *name);
/* Move within the same storage (-EXDEV otherwise). */
int mtp_store_move(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent);
/* Copy a file or folder tree; *copy gets the new handle. */
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
void mtp_store_forget(struct mtp_store *s, uint32_t handle);
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
