/*
 * mtp_walk: from an object to an fd of its folder, one level at a time
 * from its storage's root (mtp_fs's openat2: no link followed, no mount
 * crossed), and struct mtp_walk, the one folder kept open for stats with
 * the last stat made there.
 *
 * It reads the handle table and the storage it is given, and changes
 * neither: whoever changes the disk or forgets a handle tells it with
 * mtp_walk_changed().
 */
#ifndef GADGETD_MTP_WALK_H
#define GADGETD_MTP_WALK_H

#include "mtp_fs.h"

#include <stdbool.h>
#include <stdint.h>

struct mtp_handles;
struct mtp_handles_obj;
struct mtp_storage;

/*
 * Open folder `parent` (a handle or MTP_HANDLES_ROOT) of storage st by
 * walking down from its root. -ENOENT for a handle unknown or of another
 * storage, -ELOOP deeper than MTP_FS_MAX_DEPTH, and what mtp_fs_open()
 * says of a level (a link or a mount met on the way).
 */
int mtp_walk_open_dir(struct mtp_handles *h, const struct mtp_storage *st,
		      uint32_t parent, int *out);
/* Open the folder holding o, a live object of storage st; a folder on
 * the way that is no longer one makes it -ENOENT. */
int mtp_walk_parent_fd(struct mtp_handles *h, const struct mtp_storage *st,
		       const struct mtp_handles_obj *o, int *fd);

struct mtp_walk;

/*
 * Whether nothing on disk can have changed unseen: true when no inotify
 * event is waiting. Only with it does struct mtp_walk keep the folder it
 * last walked to open between two stats; a waiting event, a change
 * (mtp_walk_changed) and age all make it walk again.
 */
typedef bool (*mtp_walk_quiet_fn)(void *data);

/* NULL when out of memory. No quiet_fn at first: nothing is kept. */
struct mtp_walk *mtp_walk_new(void);
void mtp_walk_free(struct mtp_walk *w);
/* fn NULL: keep nothing. Drops the folder kept. */
void mtp_walk_set_quiet_fn(struct mtp_walk *w, mtp_walk_quiet_fn fn,
			   void *data);
/* Something may have changed on disk, or a handle names another object
 * now: close the folder kept and forget the stat made there. */
void mtp_walk_changed(struct mtp_walk *w);

/*
 * mtp_fs_entry() of handle (its live object o, in storage st) in its
 * folder. With a quiet_fn, through the folder kept: the object last asked
 * for is answered again from memory while that folder holds (no inotify
 * record pending, no change, the folder walked under
 * MTP_WALK_DIRCACHE_MS ago); without, a walk of its own.
 */
int mtp_walk_stat(struct mtp_walk *w, struct mtp_handles *h,
		  const struct mtp_storage *st, uint32_t handle,
		  const struct mtp_handles_obj *o, struct mtp_fs_stat *sb);

#endif
