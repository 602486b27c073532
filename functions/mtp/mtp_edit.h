/*
 * mtp_edit: in-place edits of file objects, as Android's MTP extensions
 * (BeginEditObject, SendPartialObject, TruncateObject, EndEditObject)
 * make them.
 *
 * As on Android, an object is written or truncated only between
 * BeginEditObject and EndEditObject on that object; each open edit holds
 * the file open read-write, at most MTP_EDIT_MAX at once. The writes go
 * to the file itself, not to a copy: a host that edits a 4 GiB video
 * sends only the bytes it changes, and sees them at once in what it
 * reads back. So a write that fails half-way (a cancel, a short data
 * phase, a full disk) leaves the bytes that came before it; the host is
 * told how many in the response. Everything that can be checked before
 * the first byte is (the edit, the offset, the size limits, the space),
 * so a refused write changes nothing.
 *
 * The space rules of uploads apply: what a write or a truncation adds to
 * the file must leave the storage's reserve free.
 *
 * Functions return 0 or -errno: -EBADF when the object is not being
 * edited (Android answers General_Error), -EBUSY when it already is,
 * -EMFILE with MTP_EDIT_MAX edits open, -EINVAL for a write that starts
 * past the end of the file, -EFBIG beyond 2^63 - 1 bytes (or beyond the
 * announced length of a write), -ENOSPC into the reserve, and the
 * store's errors.
 */
#ifndef GADGETD_MTP_EDIT_H
#define GADGETD_MTP_EDIT_H

#include "mtp_store.h"

#include <stdint.h>

/* Edits open at once: each one holds a file descriptor. */
#define MTP_EDIT_MAX 16

struct mtp_edit;

struct mtp_edit *mtp_edit_new(struct mtp_store *store);
/* Ends every edit first (mtp_edit_end_all). */
void mtp_edit_free(struct mtp_edit *e);

int mtp_edit_begin(struct mtp_edit *e, uint32_t handle);
/* The data is flushed to disk before the edit is closed; the edit ends
 * even when that fails (and the failure is returned). */
int mtp_edit_end(struct mtp_edit *e, uint32_t handle);
/* The session ended: close every edit, keeping what was written, as
 * Android commits open edits when the host goes away. */
void mtp_edit_end_all(struct mtp_edit *e);
bool mtp_edit_active(const struct mtp_edit *e, uint32_t handle);
/* Storage goes away: close its edits, keeping what was written (as at
 * the end of a session); a SendPartialObject into one of them then
 * fails with -ENODEV, as does mtp_edit_write_end(). */
void mtp_edit_end_storage(struct mtp_edit *e, uint32_t storage);

/* Set the file's size; growth must fit the storage's space. */
int mtp_edit_truncate(struct mtp_edit *e, uint32_t handle, uint64_t size);

/*
 * SendPartialObject: length bytes will follow for offset, which may be
 * at most the current size (writes extend a file, never leave a hole).
 * Then mtp_edit_write() as the data comes and mtp_edit_write_end().
 */
int mtp_edit_write_begin(struct mtp_edit *e, uint32_t handle, uint64_t offset,
			 uint32_t length);
/* -EFBIG beyond the announced length; -ENOSPC when the growth would eat
 * into the reserve. Nothing of that piece is written then. */
int mtp_edit_write(struct mtp_edit *e, const void *data, size_t n);
/* The data phase ended with status (0 or -errno): *written gets the
 * bytes that went to the file. -EIO when fewer than announced came. */
int mtp_edit_write_end(struct mtp_edit *e, int status, uint32_t *written);

#endif
