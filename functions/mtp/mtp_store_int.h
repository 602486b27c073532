/*
 * mtp_store_int: what the files of the mtp_store module share, and nothing
 * outside them may use (mtp_store.h is the public face). The module is
 * split by job:
 *
 *   mtp_store.c         the store and its storages (reserve, space), and
 *                       the operations on one object: stat, open, lookup,
 *                       mkdir, delete, rename, move
 *   mtp_store_list.c    listing a folder
 *   mtp_store_copy.c    copying a file or a folder tree, in steps
 *
 * It is made of objects of its own, below it, that know nothing of the
 * store: the handle table (mtp_handles.c, its names packed by
 * mtp_names.c), the walk from a handle to its
 * folder and the folder kept for stats (mtp_walk.c), the uploads
 * (mtp_upload.c), and the storages they are handed (mtp_storage.h). The
 * store calls them; the table calls back when it forgets or rekeys a
 * handle, and the store then drops the folder kept.
 */
#ifndef GADGETD_MTP_STORE_INT_H
#define GADGETD_MTP_STORE_INT_H

#include "mtp_fs.h"
#include "mtp_handles.h"
#include "mtp_storage.h"
#include "mtp_store.h"
#include "mtp_upload.h"
#include "mtp_walk.h"

#include <stdbool.h>
#include <stdint.h>

struct mtp_store {
	const char *name; /* what its log lines start with */
	/* A free slot has id 0. Slots never move: walks and uploads hold
	 * pointers to theirs. */
	struct mtp_storage st[MTP_STORE_MAX];
	unsigned n_st;	    /* slots in use */
	uint32_t next_phys; /* the next storage id's physical number */
	struct mtp_handles *handles;
	struct mtp_walk *walk;		/* the folder kept for stats */
	struct mtp_upload_list uploads; /* in progress */
	mtp_store_listed_fn listed_fn;
	void *listed_data;
};

/* mtp_store.c */
struct mtp_storage *mtp_store_find(struct mtp_store *s, uint32_t id);
/* Open the folder holding handle (mtp_walk_parent_fd); *o gets its
 * entry, *st its storage. */
int mtp_store_parent_fd(struct mtp_store *s, uint32_t handle,
			const struct mtp_handles_obj **o,
			struct mtp_storage **st, int *fd);

#endif
