/*
 * mtp_ops_object: the operations on objects: listing (GetNumObjects,
 * GetObjectHandles), ObjectInfo, reading (GetObject, GetPartialObject,
 * GetPartialObject64, GetThumb), DeleteObject, sending (SendObjectInfo
 * or SendObjectPropList, then SendObject), MoveObject, and CopyObject in
 * steps (mtp_ops_int.h).
 */
#include "mtp_ops_int.h"

#include "mtp_dataset.h"
#include "mtp_edit.h"
#include "mtp_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* remove: the upload failed, so a new object's placeholder goes too. */
void mtp_ops_object_drop_pending(struct mtp_ops *o, bool remove)
{
	if (o->upload)
		mtp_store_upload_abort(o->store, o->upload, !remove);
	o->upload = NULL;
	o->pending = 0;
	o->gone = false;
}

static bool mtp_ops_object_storage_ok(struct mtp_ops *o, uint32_t storage)
{
	for (unsigned i = 0; i < mtp_store_count(o->store); i++)
		if (mtp_store_id(o->store, i) == storage)
			return true;
	return false;
}

/* Keep only the handles of objects in format fmt. */
static void mtp_ops_object_filter(struct mtp_ops *o, uint16_t fmt, uint32_t *h,
				  size_t *n)
{
	uint16_t (*format_of)(const char *, bool) =
	    o->info.tables ? o->info.tables->format_of : mtp_dataset_format_of;
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		struct mtp_obj_stat st;

		if (mtp_store_stat(o->store, h[i], &st) == 0 &&
		    format_of(st.name, st.dir) == fmt)
			h[k++] = h[i];
	}
	*n = k;
}

/* GetObjectHandles / GetNumObjects: the children of parent. 0 and
 * 0xFFFFFFFF both mean the root, as Android and uMTP-Responder do. */
static uint16_t mtp_ops_object_list(struct mtp_ops *o,
				    const struct mtp_container *c, uint32_t **h,
				    size_t *n)
{
	uint32_t storage = c->params[0], parent = c->params[2];
	struct mtp_obj_stat st;
	int rc = 0;

	if (storage != MTP_ALL && !mtp_ops_object_storage_ok(o, storage))
		return MTP_RC_INVALID_STORAGE_ID;
	if (parent == MTP_ALL || parent == 0) {
		for (unsigned i = 0; rc == 0 && i < mtp_store_count(o->store);
		     i++) {
			uint32_t id = mtp_store_id(o->store, i);

			if (storage == MTP_ALL || storage == id)
				rc = mtp_store_list(o->store, id,
						    MTP_STORE_ROOT, h, n);
		}
	} else {
		rc = mtp_store_stat(o->store, parent, &st);
		if (rc == 0 && !st.dir)
			return MTP_RC_INVALID_PARENT_OBJECT;
		if (rc == 0)
			rc = mtp_store_list(o->store, st.storage, parent, h, n);
	}
	if (rc < 0)
		return mtp_ops_errno_code(rc);
	if (c->params[1] != 0)
		mtp_ops_object_filter(o, c->params[1], *h, n);
	return MTP_RC_OK;
}

void mtp_ops_object_get_num(struct mtp_ops *o, const struct mtp_container *c,
			    struct mtp_reply *r)
{
	uint32_t *h = NULL;
	size_t n = 0;

	mtp_ops_rc(r, mtp_ops_object_list(o, c, &h, &n));
	if (r->code == MTP_RC_OK)
		mtp_ops_param(r, n);
	free(h);
}

void mtp_ops_object_get_handles(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	uint32_t *h = NULL;
	size_t n = 0;

	mtp_ops_rc(r, mtp_ops_object_list(o, c, &h, &n));
	if (r->code == MTP_RC_OK) {
		mtp_buf_u32_array(&o->buf, h, n);
		mtp_ops_in_buf(o, r, 0);
	}
	free(h);
}

void mtp_ops_object_get_info(struct mtp_ops *o, const struct mtp_container *c,
			     struct mtp_reply *r)
{
	struct mtp_obj_stat st;
	int rc = mtp_store_stat(o->store, c->params[0], &st);

	if (rc == 0 && o->info.tables)
		rc = o->info.tables->object_info(o->store, &o->buf, &st);
	else if (rc == 0)
		rc = mtp_dataset_object_info(&o->buf, &st);
	mtp_ops_in_buf(o, r, rc);
}

void mtp_ops_object_get_thumb(struct mtp_ops *o, const struct mtp_container *c,
			      struct mtp_reply *r)
{
	struct mtp_obj_stat st;
	int rc = mtp_store_stat(o->store, c->params[0], &st);

	if (rc < 0) {
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	/* Served only with tables that have it (mtp_ops_served). */
	rc = o->info.tables->get_thumb(o->store, &st, &o->buf);
	/* A folder, a file of another format, or a JPEG without one. */
	if (rc == -ENOENT)
		mtp_ops_rc(r, MTP_RC_NO_THUMBNAIL_PRESENT);
	else
		mtp_ops_in_buf(o, r, rc);
}

/* Stream [offset, offset + max) of a file, clipped to its size. */
static void mtp_ops_object_send_file(struct mtp_ops *o, struct mtp_reply *r,
				     uint32_t handle, uint64_t offset,
				     uint64_t max)
{
	struct stat sb;
	int fd = -1, rc;

	rc = mtp_store_open(o->store, handle, O_RDONLY, &fd);
	if (rc == -EISDIR)
		rc = -EINVAL;
	if (rc == 0 && fstat(fd, &sb) < 0)
		rc = -errno;
	if (rc == 0 && offset > (uint64_t)sb.st_size)
		rc = -EINVAL;
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	/* Reading ahead is what a sequential GetObject wants. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r->phase = MTP_PHASE_IN_FILE;
	r->fd = fd;
	r->offset = offset;
	r->length = (uint64_t)sb.st_size - offset;
	if (r->length > max)
		r->length = max;
}

void mtp_ops_object_get(struct mtp_ops *o, const struct mtp_container *c,
			struct mtp_reply *r)
{
	mtp_ops_object_send_file(o, r, c->params[0], 0, UINT64_MAX);
}

void mtp_ops_object_get_partial(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	mtp_ops_object_send_file(o, r, c->params[0], c->params[1],
				 c->params[2]);
	if (r->phase == MTP_PHASE_IN_FILE)
		mtp_ops_param(r, (uint32_t)r->length);
}

void mtp_ops_object_get_partial64(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r)
{
	uint64_t off = c->params[1] | (uint64_t)c->params[2] << 32;

	mtp_ops_object_send_file(o, r, c->params[0], off, c->params[3]);
	if (r->phase == MTP_PHASE_IN_FILE)
		mtp_ops_param(r, (uint32_t)r->length);
}

void mtp_ops_object_delete(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r)
{
	struct mtp_obj_stat st = {.dir = false};
	int rc;

	/* Deleting everything at once is not something we offer. */
	if (c->params[0] == MTP_ALL) {
		mtp_ops_rc(r, MTP_RC_PARAMETER_NOT_SUPPORTED);
		return;
	}
	rc = mtp_store_stat(o->store, c->params[0], &st);
	if (rc == 0)
		rc = mtp_store_delete(o->store, c->params[0]);
	if (rc < 0 && st.dir && rc != -EROFS && rc != -ENOENT)
		mtp_ops_rc(r, MTP_RC_PARTIAL_DELETION);
	else
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
}

void mtp_ops_object_want_dataset(struct mtp_ops *o,
				 const struct mtp_container *c,
				 struct mtp_reply *r)
{
	r->phase = MTP_PHASE_OUT_BUF;
}

/* Resolve SendObjectInfo's storage and parent parameters. */
static uint16_t mtp_ops_object_target(struct mtp_ops *o, uint32_t *storage,
				      uint32_t *parent)
{
	struct mtp_obj_stat st;

	if (*parent == MTP_ALL || *parent == 0) {
		*parent = MTP_STORE_ROOT;
		if (*storage == 0 || *storage == MTP_ALL)
			*storage = mtp_store_id(o->store, 0);
		return mtp_ops_object_storage_ok(o, *storage)
			   ? MTP_RC_OK
			   : MTP_RC_INVALID_STORAGE_ID;
	}
	if (mtp_store_stat(o->store, *parent, &st) < 0)
		return MTP_RC_INVALID_PARENT_OBJECT;
	if (!st.dir ||
	    (*storage != 0 && *storage != MTP_ALL && *storage != st.storage))
		return MTP_RC_INVALID_PARENT_OBJECT;
	*storage = st.storage;
	return MTP_RC_OK;
}

/* Read-only first: that is the answer, whatever else is wrong. The
 * space is the store's to check, with the storage's reserve. */
static uint16_t mtp_ops_object_writable(struct mtp_ops *o, uint32_t storage)
{
	struct mtp_storage_stat st;

	if (mtp_store_storage_stat(o->store, storage, &st) < 0)
		return MTP_RC_INVALID_STORAGE_ID;
	return st.readonly ? MTP_RC_STORE_READ_ONLY : MTP_RC_OK;
}

/* Create what SendObjectInfo or SendObjectPropList announced and answer
 * with its storage, parent and handle. */
static void mtp_ops_object_announce(struct mtp_ops *o, struct mtp_reply *r,
				    uint32_t storage, uint32_t parent,
				    const char *name, bool dir, uint64_t size)
{
	uint32_t h;
	int rc;

	mtp_ops_rc(r, mtp_ops_object_target(o, &storage, &parent));
	if (r->code == MTP_RC_OK)
		mtp_ops_rc(r, mtp_ops_object_writable(o, storage));
	if (r->code != MTP_RC_OK)
		return;
	if (dir)
		rc = mtp_store_mkdir(o->store, storage, parent, name, &h);
	else
		rc = mtp_store_upload_begin(
		    o->store, storage, parent, name,
		    size == MTP_LEN_UNKNOWN ? MTP_UPLOAD_SIZE_UNKNOWN : size, &h,
		    &o->upload);
	if (rc < 0) {
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	if (!dir) {
		o->pending = h;
		o->pending_len = size;
	}
	mtp_ops_param(r, storage);
	mtp_ops_param(r, parent);
	mtp_ops_param(r, h);
}

void mtp_ops_object_info_data(struct mtp_ops *o, const struct mtp_container *c,
			      struct mtp_reply *r)
{
	struct mtp_objinfo oi;

	mtp_ops_object_drop_pending(o, false);
	if (mtp_dataset_parse_object_info(o->buf.data, o->buf.len, &oi) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_DATASET);
		return;
	}
	mtp_ops_object_announce(o, r, c->params[0], c->params[1], oi.name,
				oi.format == MTP_FMT_ASSOCIATION,
				oi.size == 0xFFFFFFFF ? MTP_LEN_UNKNOWN
						      : oi.size);
}

/* SendObjectPropList(storage, parent, format, size high, size low): an
 * exact 64-bit size, unlike ObjectInfo's 32 bits. */
void mtp_ops_object_send_props_data(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	char name[MTP_STR_MAX + 1];
	uint64_t size = (uint64_t)c->params[3] << 32 | c->params[4];
	int rc;

	mtp_ops_object_drop_pending(o, false);
	rc = mtp_dataset_parse_send_props(o->buf.data, o->buf.len, name,
					  sizeof(name));
	if (rc < 0) {
		mtp_ops_rc(r, rc == -ENOENT ? MTP_RC_INVALID_PARAMETER
					    : MTP_RC_INVALID_DATASET);
		return;
	}
	mtp_ops_object_announce(o, r, c->params[0], c->params[1], name,
				c->params[2] == MTP_FMT_ASSOCIATION, size);
	/* MTP 1.1 E.2.4: a fourth parameter, the index of the property that
	 * failed (0 when none did). libmtp reads three; android-file-transfer
	 * reads all four and fails on a 3-parameter answer. */
	if (r->code == MTP_RC_OK)
		mtp_ops_param(r, 0);
}

void mtp_ops_object_send(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r)
{
	if (!o->upload) {
		/* Its storage went since SendObjectInfo, or there was none. */
		mtp_ops_rc(r, o->gone ? MTP_RC_STORE_NOT_AVAILABLE
				      : MTP_RC_NO_VALID_OBJECT_INFO);
		o->gone = false;
		r->phase = MTP_PHASE_OUT_DISCARD;
		return;
	}
	r->phase = MTP_PHASE_OUT_FILE;
	r->length = o->pending_len;
}

int mtp_ops_object_write(struct mtp_ops *o, const void *data, size_t n)
{
	if (o->partial)
		return mtp_edit_write(o->edit, data, n);
	if (o->gone)
		return -ENODEV;
	if (!o->upload)
		return -EBADF;
	return mtp_upload_write(o->upload, data, n);
}

void mtp_ops_object_done(struct mtp_ops *o, int status, struct mtp_reply *r)
{
	uint32_t written;

	memset(r, 0, sizeof(*r));
	r->code = MTP_RC_OK;
	r->fd = -1;
	if (o->partial) {
		/* SendPartialObject answers with the bytes it wrote. */
		o->partial = false;
		status = mtp_edit_write_end(o->edit, status, &written);
		mtp_ops_param(r, written);
	} else if (status == 0 && o->upload)
		status = mtp_store_upload_commit(o->store, o->upload);
	else if (o->upload)
		mtp_store_upload_abort(o->store, o->upload, false);
	o->upload = NULL;
	o->pending = 0;
	if (o->gone)
		status = -ENODEV;
	o->gone = false;
	switch (-status) {
	case 0: break;
	case ENODEV: r->code = MTP_RC_STORE_NOT_AVAILABLE; break;
	case ECANCELED: r->code = MTP_RC_TRANSACTION_CANCELLED; break;
	case ENOSPC:
	case EDQUOT: r->code = MTP_RC_STORE_FULL; break;
	case EFBIG: r->code = MTP_RC_OBJECT_TOO_LARGE; break;
	default: r->code = MTP_RC_INCOMPLETE_TRANSFER; break;
	}
}

/* Folder handle given to Move/CopyObject, 0 and 0xFFFFFFFF for the root. */
static uint32_t mtp_ops_object_dest(uint32_t parent)
{
	return parent == MTP_ALL ? MTP_STORE_ROOT : parent;
}

/* Move/CopyObject's storage; 0 means the object's own. */
static uint32_t mtp_ops_object_dest_storage(struct mtp_ops *o, uint32_t handle,
					    uint32_t storage)
{
	struct mtp_obj_stat st;

	if (storage == 0 && mtp_store_stat(o->store, handle, &st) == 0)
		return st.storage;
	return storage;
}

void mtp_ops_object_move(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r)
{
	int rc = mtp_store_move(
	    o->store, c->params[0],
	    mtp_ops_object_dest_storage(o, c->params[0], c->params[1]),
	    mtp_ops_object_dest(c->params[2]));

	mtp_ops_rc(r, rc == -EXDEV ? MTP_RC_INVALID_STORAGE_ID
				   : mtp_ops_errno_code(rc));
}

/* CopyObject: a tree may take long to copy; it goes in steps. */
void mtp_ops_object_copy(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r)
{
	int rc;

	mtp_ops_object_step_abort(o);
	rc = mtp_store_copy_begin(
	    o->store, c->params[0],
	    mtp_ops_object_dest_storage(o, c->params[0], c->params[1]),
	    mtp_ops_object_dest(c->params[2]), &o->copy);
	if (rc < 0) {
		o->copy = NULL;
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	r->phase = MTP_PHASE_STEP;
}

bool mtp_ops_object_step(struct mtp_ops *o, struct mtp_reply *r)
{
	uint32_t h = 0;
	int rc = o->copy ? mtp_store_copy_step(o->store, o->copy, &h) : -EBADF;

	if (rc > 0)
		return false;
	if (o->gone)
		rc = -ENODEV;
	o->gone = false;
	o->copy = NULL;
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	mtp_ops_rc(r, mtp_ops_errno_code(rc));
	if (rc == 0)
		mtp_ops_param(r, h);
	return true;
}

void mtp_ops_object_step_abort(struct mtp_ops *o)
{
	mtp_store_copy_abort(o->store, o->copy);
	o->copy = NULL;
}

void mtp_ops_object_storage_gone(struct mtp_ops *o, uint32_t storage)
{
	/* Nothing half-written stays: the temporary file and a new
	 * object's placeholder go, and the host is told why. */
	if (o->upload && mtp_upload_storage(o->upload) == storage) {
		mtp_store_upload_abort(o->store, o->upload, false);
		o->upload = NULL;
		o->pending = 0;
		o->gone = true;
	}
	if (o->copy && mtp_store_copy_storage(o->copy) == storage) {
		mtp_ops_object_step_abort(o);
		o->gone = true;
	}
	/* Android's in-place edits keep what they wrote, as at the end of
	 * a session. */
	mtp_edit_end_storage(o->edit, storage);
}
