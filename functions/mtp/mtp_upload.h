/*
 * mtp_upload: receiving a file from the host into a hidden temporary file
 * in the target's folder, which replaces the target only once it is
 * complete, so a cancelled or failed transfer leaves the old content.
 * Writes keep the storage's reserve of bytes and inodes free.
 *
 * An upload is made in a storage it is handed (whoever calls checks that
 * it may be written) and gets its object's handle from the table its
 * list is handed. It tells no cache of its changes on disk: whoever
 * commits or aborts it does (a handle it forgets, the table tells).
 */
#ifndef GADGETD_MTP_UPLOAD_H
#define GADGETD_MTP_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mtp_handles;
struct mtp_storage;

/* An upload's size when the host did not say (ObjectInfo's 0xFFFFFFFF). */
#define MTP_UPLOAD_SIZE_UNKNOWN UINT64_MAX
/* How many bytes may go in between two looks at the free space (see
 * mtp_upload_write). */
#define MTP_UPLOAD_SPACE_LOOK (1024 * 1024)

struct mtp_upload;

/* The uploads in progress of a store, embedded in it: zeroed, then
 * handles set to the table their objects' handles come from. */
struct mtp_upload_list {
	struct mtp_upload *head;
	struct mtp_handles *handles;
	unsigned tmp_seq; /* numbers the temporary files */
};

/*
 * Start receiving the file name (a good name) under parent of storage st
 * (writable), size bytes long (or MTP_UPLOAD_SIZE_UNKNOWN, counted as
 * 4 GiB - 1 for the space check), as a member of l. *handle gets the
 * object's handle: the existing file's, or that of an empty placeholder
 * made for a new name. -ENOSPC when the storage cannot take size bytes
 * and keep its reserve; -EEXIST when a folder has the name, -EACCES when
 * something invisible has it or the worker may not write the file.
 */
int mtp_upload_begin(struct mtp_upload_list *l, struct mtp_storage *st,
		     uint32_t parent, const char *name, uint64_t size,
		     uint32_t *handle, struct mtp_upload **up);
/*
 * Append n bytes: -EFBIG beyond the announced size, -ENOSPC when the
 * storage would keep less than its reserve. Nothing is written then. The
 * free space is looked at again once MTP_UPLOAD_SPACE_LOOK bytes went in
 * since the last look, and before every write once that look left less
 * than MTP_UPLOAD_SPACE_LOOK above the reserve: a board that fills the
 * disk meanwhile is seen within that many bytes of the upload.
 */
int mtp_upload_write(struct mtp_upload *up, const void *data, size_t n);
/*
 * The data is complete: replace the target with it. -EIO when fewer bytes
 * than announced came. Frees up whatever the result; on failure the old
 * content stays and a placeholder is removed (its handle forgotten).
 */
int mtp_upload_commit(struct mtp_upload *up);
/* Give up an upload: the temporary file goes; a new object's empty
 * placeholder stays when keep_new (the host may have meant it empty). */
void mtp_upload_abort(struct mtp_upload *up, bool keep_new);
/* The storage id of up's target, and the next upload of its list. */
uint32_t mtp_upload_storage(const struct mtp_upload *up);
struct mtp_upload *mtp_upload_next(const struct mtp_upload *up);
/* True when name is the temporary file of an upload in progress. */
bool mtp_upload_owns(const struct mtp_upload_list *l, const char *name);

#endif
