#include "mtp_ops.h"
#include "mtp_dataset.h"
#include "mtp_edit.h"
#include "mtp_proplist.h"
#include "mtp_proto.h"
#include "mtp_ptp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "All storages" / "root folder" in PTP operation parameters. */
#define MTP_ALL 0xFFFFFFFFu

struct mtp_ops {
	struct mtp_store *store;
	struct mtp_ops_info info;
	struct mtp_buf buf;
	bool session;
	uint32_t session_id;
	/* The file announced by SendObjectInfo, awaiting SendObject. */
	uint32_t pending;
	struct mtp_store_upload *upload;
	uint64_t pending_len;
	/* Android's in-place edits; partial: SendPartialObject's data
	 * goes to them rather than to an upload. */
	struct mtp_edit *edit;
	bool partial;
	/* The GetObjectPropList being sent (MTP_PHASE_IN_GEN). */
	struct mtp_proplist *gen;
	/* The CopyObject in progress (MTP_PHASE_STEP). */
	struct mtp_store_copy *copy;
};

typedef void (*mtp_ops_fn)(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);

struct mtp_ops_entry {
	uint16_t code;
	mtp_ops_fn fn;
	bool prop_list; /* listed only with the option object_prop_lists */
};

/* The operation codes of the table at the end, for DeviceInfo. */
static size_t mtp_ops_codes(const struct mtp_ops *o, uint16_t *out, size_t max);

static const uint16_t mtp_ops_events[] = {
    MTP_EV_OBJECT_ADDED,
    MTP_EV_OBJECT_REMOVED,
    MTP_EV_STORE_FULL,
    MTP_EV_OBJECT_INFO_CHANGED,
};

static const uint16_t mtp_ops_dprops[] = {MTP_DPROP_FRIENDLY_NAME};

struct mtp_ops *mtp_ops_new(struct mtp_store *store,
			    const struct mtp_ops_info *info)
{
	struct mtp_ops *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->store = store;
	o->info = *info;
	mtp_buf_init(&o->buf);
	o->edit = mtp_edit_new(store);
	if (!o->edit) {
		free(o);
		return NULL;
	}
	return o;
}

/* remove: the upload failed, so a new object's placeholder goes too. */
static void mtp_ops_drop_pending(struct mtp_ops *o, bool remove)
{
	if (o->upload)
		mtp_store_upload_abort(o->store, o->upload, !remove);
	o->upload = NULL;
	o->pending = 0;
}

void mtp_ops_free(struct mtp_ops *o)
{
	if (!o)
		return;
	mtp_ops_drop_pending(o, false);
	mtp_ops_step_abort(o);
	mtp_edit_free(o->edit);
	mtp_ops_gen_end(o);
	mtp_buf_finish(&o->buf);
	free(o);
}

struct mtp_buf *mtp_ops_buf(struct mtp_ops *o)
{
	return &o->buf;
}

bool mtp_ops_session_open(const struct mtp_ops *o)
{
	return o->session;
}

void mtp_ops_reset(struct mtp_ops *o)
{
	/* A half-sent object is worthless: remove it; a half copy too. */
	mtp_ops_drop_pending(o, true);
	mtp_ops_step_abort(o);
	/* Android keeps what an unfinished edit wrote: so do we. */
	o->partial = false;
	mtp_edit_end_all(o->edit);
	o->session = false;
}

uint16_t mtp_ops_errno_code(int err)
{
	switch (-err) {
	case 0: return MTP_RC_OK;
	case ENOENT: return MTP_RC_INVALID_OBJECT_HANDLE;
	case EROFS: return MTP_RC_STORE_READ_ONLY;
	case EACCES:
	case EPERM:
	case EEXIST:
	case ENOTEMPTY: return MTP_RC_ACCESS_DENIED;
	case EINVAL:
	case ENAMETOOLONG:
	case EBADMSG: return MTP_RC_INVALID_PARAMETER;
	case ENOTDIR: return MTP_RC_INVALID_PARENT_OBJECT;
	case ENOSPC:
	case EDQUOT: return MTP_RC_STORE_FULL;
	case EFBIG: return MTP_RC_OBJECT_TOO_LARGE;
	case ECANCELED: return MTP_RC_TRANSACTION_CANCELLED;
	}
	return MTP_RC_GENERAL_ERROR;
}

static void mtp_ops_rc(struct mtp_reply *r, uint16_t code)
{
	r->code = code;
}

static void mtp_ops_param(struct mtp_reply *r, uint32_t v)
{
	if (r->nparams < MTP_MAX_PARAMS)
		r->params[r->nparams++] = v;
}

/* The reply to a dataset built into o->buf with result rc. */
static void mtp_ops_in_buf(struct mtp_ops *o, struct mtp_reply *r, int rc)
{
	if (rc == 0 && o->buf.oom)
		rc = -ENOMEM;
	if (rc < 0) {
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	r->phase = MTP_PHASE_IN_BUF;
}

static void mtp_ops_get_device_info(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	uint16_t ops[64];
	size_t n_ops = mtp_ops_codes(o, ops, 64);
	struct mtp_devinfo d = {
	    .manufacturer = o->info.manufacturer,
	    .model = o->info.model,
	    .version = o->info.version,
	    .serial = o->info.serial,
	    .extensions = o->info.android_extension
			      ? "microsoft.com: 1.0; android.com: 1.0;"
			      : NULL,
	    .ops = ops,
	    .n_ops = n_ops,
	    .events = mtp_ops_events,
	    .n_events = sizeof(mtp_ops_events) / sizeof(mtp_ops_events[0]),
	    .dprops = mtp_ops_dprops,
	    .n_dprops = 1,
	    .formats = mtp_dataset_formats,
	    .n_formats = mtp_dataset_n_formats,
	};

	if (o->info.ptp) { /* PTP's events and formats; no device property */
		d.ptp = true, d.n_dprops = 0;
		d.events = mtp_ptp_events, d.n_events = mtp_ptp_n_events;
		d.formats = mtp_ptp_formats, d.n_formats = mtp_ptp_n_formats;
	}
	mtp_ops_in_buf(o, r, mtp_dataset_device_info(&o->buf, &d));
}

static void mtp_ops_open_session(struct mtp_ops *o,
				 const struct mtp_container *c,
				 struct mtp_reply *r)
{
	if (c->nparams < 1 || c->params[0] == 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	if (o->session) {
		mtp_ops_rc(r, MTP_RC_SESSION_ALREADY_OPEN);
		mtp_ops_param(r, o->session_id);
		return;
	}
	o->session = true;
	o->session_id = c->params[0];
}

static void mtp_ops_close_session(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r)
{
	mtp_ops_reset(o);
}

static void mtp_ops_get_storage_ids(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	unsigned n = mtp_store_count(o->store);

	mtp_buf_u32(&o->buf, n);
	for (unsigned i = 0; i < n; i++)
		mtp_buf_u32(&o->buf, mtp_store_id(o->store, i));
	mtp_ops_in_buf(o, r, 0);
}

static void mtp_ops_get_storage_info(struct mtp_ops *o,
				     const struct mtp_container *c,
				     struct mtp_reply *r)
{
	struct mtp_storage_stat st;

	if (mtp_store_storage_stat(o->store, c->params[0], &st) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_STORAGE_ID);
		return;
	}
	mtp_ops_in_buf(o, r, mtp_dataset_storage_info(&o->buf, &st));
}

static bool mtp_ops_storage_ok(struct mtp_ops *o, uint32_t storage)
{
	for (unsigned i = 0; i < mtp_store_count(o->store); i++)
		if (mtp_store_id(o->store, i) == storage)
			return true;
	return false;
}

/* Keep only the handles of objects in format fmt. */
static void mtp_ops_filter(struct mtp_ops *o, uint16_t fmt, uint32_t *h,
			   size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		struct mtp_obj_stat st;

		if (mtp_store_stat(o->store, h[i], &st) == 0 &&
		    (o->info.ptp ? mtp_ptp_format_of : mtp_dataset_format_of)(
			st.name, st.dir) == fmt)
			h[k++] = h[i];
	}
	*n = k;
}

/* GetObjectHandles / GetNumObjects: the children of parent. 0 and
 * 0xFFFFFFFF both mean the root, as Android and uMTP-Responder do. */
static uint16_t mtp_ops_list(struct mtp_ops *o, const struct mtp_container *c,
			     uint32_t **h, size_t *n)
{
	uint32_t storage = c->params[0], parent = c->params[2];
	struct mtp_obj_stat st;
	int rc = 0;

	if (storage != MTP_ALL && !mtp_ops_storage_ok(o, storage))
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
		mtp_ops_filter(o, c->params[1], *h, n);
	return MTP_RC_OK;
}

static void mtp_ops_get_num_objects(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	uint32_t *h = NULL;
	size_t n = 0;

	mtp_ops_rc(r, mtp_ops_list(o, c, &h, &n));
	if (r->code == MTP_RC_OK)
		mtp_ops_param(r, n);
	free(h);
}

static void mtp_ops_get_object_handles(struct mtp_ops *o,
				       const struct mtp_container *c,
				       struct mtp_reply *r)
{
	uint32_t *h = NULL;
	size_t n = 0;

	mtp_ops_rc(r, mtp_ops_list(o, c, &h, &n));
	if (r->code == MTP_RC_OK) {
		mtp_buf_u32_array(&o->buf, h, n);
		mtp_ops_in_buf(o, r, 0);
	}
	free(h);
}

static void mtp_ops_get_object_info(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	struct mtp_obj_stat st;
	int rc = mtp_store_stat(o->store, c->params[0], &st);

	if (rc == 0 && o->info.ptp)
		rc = mtp_ptp_object_info(o->store, &o->buf, &st);
	else if (rc == 0)
		rc = mtp_dataset_object_info(&o->buf, &st);
	mtp_ops_in_buf(o, r, rc);
}

static void mtp_ops_get_thumb(struct mtp_ops *o, const struct mtp_container *c,
			      struct mtp_reply *r)
{
	mtp_ops_rc(r, mtp_ptp_get_thumb(o->store, &o->buf, c->params[0]));
	if (r->code == MTP_RC_OK)
		mtp_ops_in_buf(o, r, 0);
}

/* Stream [offset, offset + max) of a file, clipped to its size. */
static void mtp_ops_send_file(struct mtp_ops *o, struct mtp_reply *r,
			      uint32_t handle, uint64_t offset, uint64_t max)
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

static void mtp_ops_get_object(struct mtp_ops *o, const struct mtp_container *c,
			       struct mtp_reply *r)
{
	mtp_ops_send_file(o, r, c->params[0], 0, UINT64_MAX);
}

static void mtp_ops_get_partial_object(struct mtp_ops *o,
				       const struct mtp_container *c,
				       struct mtp_reply *r)
{
	mtp_ops_send_file(o, r, c->params[0], c->params[1], c->params[2]);
	if (r->phase == MTP_PHASE_IN_FILE)
		mtp_ops_param(r, (uint32_t)r->length);
}

static void mtp_ops_get_partial_object64(struct mtp_ops *o,
					 const struct mtp_container *c,
					 struct mtp_reply *r)
{
	uint64_t off = c->params[1] | (uint64_t)c->params[2] << 32;

	mtp_ops_send_file(o, r, c->params[0], off, c->params[3]);
	if (r->phase == MTP_PHASE_IN_FILE)
		mtp_ops_param(r, (uint32_t)r->length);
}

static void mtp_ops_delete_object(struct mtp_ops *o,
				  const struct mtp_container *c,
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

static void mtp_ops_want_dataset(struct mtp_ops *o,
				     const struct mtp_container *c,
				     struct mtp_reply *r)
{
	r->phase = MTP_PHASE_OUT_BUF;
}

/* Resolve SendObjectInfo's storage and parent parameters. */
static uint16_t mtp_ops_target(struct mtp_ops *o, uint32_t *storage,
			       uint32_t *parent)
{
	struct mtp_obj_stat st;

	if (*parent == MTP_ALL || *parent == 0) {
		*parent = MTP_STORE_ROOT;
		if (*storage == 0 || *storage == MTP_ALL)
			*storage = mtp_store_id(o->store, 0);
		return mtp_ops_storage_ok(o, *storage)
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
static uint16_t mtp_ops_writable(struct mtp_ops *o, uint32_t storage)
{
	struct mtp_storage_stat st;

	if (mtp_store_storage_stat(o->store, storage, &st) < 0)
		return MTP_RC_INVALID_STORAGE_ID;
	return st.readonly ? MTP_RC_STORE_READ_ONLY : MTP_RC_OK;
}

/* Create what SendObjectInfo or SendObjectPropList announced and answer
 * with its storage, parent and handle. */
static void mtp_ops_announce(struct mtp_ops *o, struct mtp_reply *r,
			     uint32_t storage, uint32_t parent,
			     const char *name, bool dir, uint64_t size)
{
	uint32_t h;
	int rc;

	mtp_ops_rc(r, mtp_ops_target(o, &storage, &parent));
	if (r->code == MTP_RC_OK)
		mtp_ops_rc(r, mtp_ops_writable(o, storage));
	if (r->code != MTP_RC_OK)
		return;
	if (dir)
		rc = mtp_store_mkdir(o->store, storage, parent, name, &h);
	else
		rc = mtp_store_upload_begin(
		    o->store, storage, parent, name,
		    size == MTP_LEN_UNKNOWN ? MTP_STORE_SIZE_UNKNOWN : size, &h,
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

static void mtp_ops_object_info_data(struct mtp_ops *o,
				     const struct mtp_container *c,
				     struct mtp_reply *r)
{
	struct mtp_objinfo oi;

	mtp_ops_drop_pending(o, false);
	if (mtp_dataset_parse_object_info(o->buf.data, o->buf.len, &oi) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_DATASET);
		return;
	}
	mtp_ops_announce(o, r, c->params[0], c->params[1], oi.name,
			 oi.format == MTP_FMT_ASSOCIATION,
			 oi.size == 0xFFFFFFFF ? MTP_LEN_UNKNOWN : oi.size);
}

/* SendObjectPropList(storage, parent, format, size high, size low): an
 * exact 64-bit size, unlike ObjectInfo's 32 bits. */
static void mtp_ops_send_props_data(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	char name[MTP_STR_MAX + 1];
	uint64_t size = (uint64_t)c->params[3] << 32 | c->params[4];
	int rc;

	mtp_ops_drop_pending(o, false);
	rc = mtp_dataset_parse_send_props(o->buf.data, o->buf.len, name,
					  sizeof(name));
	if (rc < 0) {
		mtp_ops_rc(r, rc == -ENOENT ? MTP_RC_INVALID_PARAMETER
					    : MTP_RC_INVALID_DATASET);
		return;
	}
	mtp_ops_announce(o, r, c->params[0], c->params[1], name,
			 c->params[2] == MTP_FMT_ASSOCIATION, size);
	/* MTP 1.1 E.2.4: a fourth parameter, the index of the property that
	 * failed (0 when none did). libmtp reads three; android-file-transfer
	 * reads all four and fails on a 3-parameter answer. */
	if (r->code == MTP_RC_OK)
		mtp_ops_param(r, 0);
}

static void mtp_ops_send_object(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	if (!o->upload) {
		mtp_ops_rc(r, MTP_RC_NO_VALID_OBJECT_INFO);
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
	if (!o->upload)
		return -EBADF;
	return mtp_store_upload_write(o->upload, data, n);
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
	switch (-status) {
	case 0: break;
	case ECANCELED: r->code = MTP_RC_TRANSACTION_CANCELLED; break;
	case ENOSPC:
	case EDQUOT: r->code = MTP_RC_STORE_FULL; break;
	case EFBIG: r->code = MTP_RC_OBJECT_TOO_LARGE; break;
	default: r->code = MTP_RC_INCOMPLETE_TRANSFER; break;
	}
}

/* Folder handle given to Move/CopyObject, 0 and 0xFFFFFFFF for the root. */
static uint32_t mtp_ops_dest(uint32_t parent)
{
	return parent == MTP_ALL ? MTP_STORE_ROOT : parent;
}

/* Move/CopyObject's storage; 0 means the object's own. */
static uint32_t mtp_ops_dest_storage(struct mtp_ops *o, uint32_t handle,
				     uint32_t storage)
{
	struct mtp_obj_stat st;

	if (storage == 0 && mtp_store_stat(o->store, handle, &st) == 0)
		return st.storage;
	return storage;
}

static void mtp_ops_move_object(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	int rc =
	    mtp_store_move(o->store, c->params[0],
			   mtp_ops_dest_storage(o, c->params[0], c->params[1]),
			   mtp_ops_dest(c->params[2]));

	mtp_ops_rc(r, rc == -EXDEV ? MTP_RC_INVALID_STORAGE_ID
				   : mtp_ops_errno_code(rc));
}

/* CopyObject: a tree may take long to copy; it goes in steps. */
static void mtp_ops_copy_object(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	int rc;

	mtp_ops_step_abort(o);
	rc = mtp_store_copy_begin(
	    o->store, c->params[0],
	    mtp_ops_dest_storage(o, c->params[0], c->params[1]),
	    mtp_ops_dest(c->params[2]), &o->copy);
	if (rc < 0) {
		o->copy = NULL;
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	r->phase = MTP_PHASE_STEP;
}

bool mtp_ops_step(struct mtp_ops *o, struct mtp_reply *r)
{
	uint32_t h = 0;
	int rc = o->copy ? mtp_store_copy_step(o->store, o->copy, &h) : -EBADF;

	if (rc > 0)
		return false;
	o->copy = NULL;
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	mtp_ops_rc(r, mtp_ops_errno_code(rc));
	if (rc == 0)
		mtp_ops_param(r, h);
	return true;
}

void mtp_ops_step_abort(struct mtp_ops *o)
{
	mtp_store_copy_abort(o->store, o->copy);
	o->copy = NULL;
}

static void mtp_ops_get_props_supported(struct mtp_ops *o,
					const struct mtp_container *c,
					struct mtp_reply *r)
{
	mtp_buf_u16_array(&o->buf, mtp_dataset_props, mtp_dataset_n_props);
	mtp_ops_in_buf(o, r, 0);
}

static void mtp_ops_get_prop_desc(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r)
{
	if (mtp_dataset_prop_desc(&o->buf, c->params[0]) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_CODE);
		return;
	}
	mtp_ops_in_buf(o, r, 0);
}

static void mtp_ops_get_prop_value(struct mtp_ops *o,
				   const struct mtp_container *c,
				   struct mtp_reply *r)
{
	struct mtp_obj_stat st;
	int rc = mtp_store_stat(o->store, c->params[0], &st);

	if (rc == 0 && !mtp_dataset_prop_type(c->params[1])) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_CODE);
		return;
	}
	if (rc == 0)
		rc = mtp_dataset_prop_value(&o->buf, &st, c->params[1]);
	mtp_ops_in_buf(o, r, rc);
}

static void mtp_ops_set_prop_value(struct mtp_ops *o,
				   const struct mtp_container *c,
				   struct mtp_reply *r)
{
	r->phase = MTP_PHASE_OUT_BUF;
}

static void mtp_ops_prop_value_data(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	char name[MTP_STR_MAX + 1];
	struct mtp_rd rd;
	int rc;

	if (!mtp_dataset_prop_type(c->params[1])) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_CODE);
		return;
	}
	if (c->params[1] != MTP_PROP_OBJECT_FILE_NAME) {
		mtp_ops_rc(r, MTP_RC_ACCESS_DENIED);
		return;
	}
	mtp_rd_init(&rd, o->buf.data, o->buf.len);
	if (mtp_rd_str(&rd, name, sizeof(name)) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_VALUE);
		return;
	}
	rc = mtp_store_rename(o->store, c->params[0], name);
	mtp_ops_rc(r, rc == -EINVAL ? MTP_RC_INVALID_OBJECT_PROP_VALUE
				    : mtp_ops_errno_code(rc));
}

/* GetObjectPropList is answered as its data phase goes (MTP_PHASE_IN_GEN,
 * see mtp_proplist.h): nothing like the whole list is ever in memory. */
static void mtp_ops_get_prop_list(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r)
{
	struct mtp_proplist *pl;
	uint64_t len = 0;
	int rc;

	/* prop 0 asks by group (params[3]); we have no groups to offer. */
	if (c->params[2] == 0) {
		mtp_ops_rc(r, MTP_RC_SPEC_BY_GROUP_UNSUPPORTED);
		return;
	}
	if (c->params[2] != MTP_ALL &&
	    (c->params[2] > 0xFFFF || !mtp_dataset_prop_type(c->params[2]))) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_CODE);
		return;
	}
	/* Format codes are 16 bits; anything else names no format. */
	if (c->params[1] > 0xFFFF) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_FORMAT);
		return;
	}
	/* One object (libmtp asks so for every object it walks): built
	 * whole, like an ObjectInfo, with one stat. */
	if (c->params[0] != 0 && c->params[0] != MTP_ALL && c->params[4] == 0) {
		rc = mtp_proplist_one(o->store, c->params[0],
				      (uint16_t)c->params[1], c->params[2],
				      &o->buf);
		mtp_ops_in_buf(o, r, rc);
		return;
	}
	rc = mtp_proplist_new(o->store, c->params[0], (uint16_t)c->params[1],
			      c->params[2], c->params[4], &pl, &len);
	if (rc < 0) {
		mtp_ops_rc(r, rc == -E2BIG ? MTP_RC_SPEC_BY_DEPTH_UNSUPPORTED
					   : mtp_ops_errno_code(rc));
		return;
	}
	mtp_proplist_free(o->gen);
	o->gen = pl;
	r->phase = MTP_PHASE_IN_GEN;
	r->length = len;
}

int mtp_ops_gen_fill(struct mtp_ops *o, uint8_t *out, size_t n)
{
	if (!o->gen) {
		memset(out, 0, n);
		return -EBADF;
	}
	return mtp_proplist_fill(o->gen, out, n);
}

void mtp_ops_gen_end(struct mtp_ops *o)
{
	mtp_proplist_free(o->gen);
	o->gen = NULL;
}

static void mtp_ops_get_dprop_desc(struct mtp_ops *o,
				   const struct mtp_container *c,
				   struct mtp_reply *r)
{
	if (c->params[0] != MTP_DPROP_FRIENDLY_NAME) {
		mtp_ops_rc(r, MTP_RC_DEVICE_PROP_NOT_SUPPORTED);
		return;
	}
	mtp_ops_in_buf(
	    o, r,
	    mtp_dataset_friendly_name_desc(&o->buf, o->info.friendly_name));
}

static void mtp_ops_get_dprop_value(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r)
{
	if (c->params[0] != MTP_DPROP_FRIENDLY_NAME) {
		mtp_ops_rc(r, MTP_RC_DEVICE_PROP_NOT_SUPPORTED);
		return;
	}
	mtp_ops_in_buf(o, r, mtp_buf_str(&o->buf, o->info.friendly_name));
}

/* Android's edit operations answer with the store's codes, and with
 * General_Error for what Android refuses so: an object that is not (or
 * already) being edited, too many edits. */
static uint16_t mtp_ops_edit_code(int rc)
{
	if (rc == -EBADF || rc == -EBUSY || rc == -EMFILE)
		return MTP_RC_GENERAL_ERROR;
	if (rc == -EISDIR)
		return MTP_RC_INVALID_OBJECT_HANDLE;
	return mtp_ops_errno_code(rc);
}

static uint64_t mtp_ops_offset64(const struct mtp_container *c)
{
	return c->params[1] | (uint64_t)c->params[2] << 32;
}

/* BeginEditObject(handle) */
static void mtp_ops_begin_edit(struct mtp_ops *o, const struct mtp_container *c,
			       struct mtp_reply *r)
{
	if (c->nparams < 1) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_begin(o->edit, c->params[0])));
}

/* EndEditObject(handle) */
static void mtp_ops_end_edit(struct mtp_ops *o, const struct mtp_container *c,
			     struct mtp_reply *r)
{
	if (c->nparams < 1) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_end(o->edit, c->params[0])));
}

/* TruncateObject(handle, size low, size high) */
static void mtp_ops_truncate(struct mtp_ops *o, const struct mtp_container *c,
			     struct mtp_reply *r)
{
	if (c->nparams < 3) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_truncate(
			  o->edit, c->params[0], mtp_ops_offset64(c))));
}

/* SendPartialObject(handle, offset low, offset high, length): the data
 * phase of a refused one is read and dropped. */
static void mtp_ops_send_partial(struct mtp_ops *o,
				 const struct mtp_container *c,
				 struct mtp_reply *r)
{
	int rc = -EINVAL;

	if (c->nparams >= 4)
		rc = mtp_edit_write_begin(o->edit, c->params[0],
					  mtp_ops_offset64(c), c->params[3]);
	if (rc < 0) {
		mtp_ops_rc(r, mtp_ops_edit_code(rc));
		mtp_ops_param(r, 0);
		r->phase = MTP_PHASE_OUT_DISCARD;
		return;
	}
	o->partial = true;
	r->phase = MTP_PHASE_OUT_FILE;
	r->length = c->params[3];
}

static const struct mtp_ops_entry mtp_ops_table[] = {
    {MTP_OP_GET_DEVICE_INFO, mtp_ops_get_device_info, false},
    {MTP_OP_OPEN_SESSION, mtp_ops_open_session, false},
    {MTP_OP_CLOSE_SESSION, mtp_ops_close_session, false},
    {MTP_OP_GET_STORAGE_IDS, mtp_ops_get_storage_ids, false},
    {MTP_OP_GET_STORAGE_INFO, mtp_ops_get_storage_info, false},
    {MTP_OP_GET_NUM_OBJECTS, mtp_ops_get_num_objects, false},
    {MTP_OP_GET_OBJECT_HANDLES, mtp_ops_get_object_handles, false},
    {MTP_OP_GET_OBJECT_INFO, mtp_ops_get_object_info, false},
    {MTP_OP_GET_OBJECT, mtp_ops_get_object, false},
    {MTP_OP_GET_THUMB, mtp_ops_get_thumb, false},
    {MTP_OP_DELETE_OBJECT, mtp_ops_delete_object, false},
    {MTP_OP_SEND_OBJECT_INFO, mtp_ops_want_dataset, false},
    {MTP_OP_SEND_OBJECT, mtp_ops_send_object, false},
    {MTP_OP_SEND_OBJECT_PROP_LIST, mtp_ops_want_dataset, false},
    {MTP_OP_GET_DEVICE_PROP_DESC, mtp_ops_get_dprop_desc, false},
    {MTP_OP_GET_DEVICE_PROP_VALUE, mtp_ops_get_dprop_value, false},
    {MTP_OP_MOVE_OBJECT, mtp_ops_move_object, false},
    {MTP_OP_COPY_OBJECT, mtp_ops_copy_object, false},
    {MTP_OP_GET_PARTIAL_OBJECT, mtp_ops_get_partial_object, false},
    {MTP_OP_GET_PARTIAL_OBJECT_64, mtp_ops_get_partial_object64, false},
    {MTP_OP_GET_OBJECT_PROPS_SUPPORTED, mtp_ops_get_props_supported, true},
    {MTP_OP_GET_OBJECT_PROP_DESC, mtp_ops_get_prop_desc, false},
    {MTP_OP_GET_OBJECT_PROP_VALUE, mtp_ops_get_prop_value, false},
    {MTP_OP_SET_OBJECT_PROP_VALUE, mtp_ops_set_prop_value, false},
    {MTP_OP_GET_OBJECT_PROP_LIST, mtp_ops_get_prop_list, true},
    {MTP_OP_SEND_PARTIAL_OBJECT, mtp_ops_send_partial, false},
    {MTP_OP_TRUNCATE_OBJECT, mtp_ops_truncate, false},
    {MTP_OP_BEGIN_EDIT_OBJECT, mtp_ops_begin_edit, false},
    {MTP_OP_END_EDIT_OBJECT, mtp_ops_end_edit, false},
};
static const size_t mtp_ops_n =
    sizeof(mtp_ops_table) / sizeof(mtp_ops_table[0]);

static size_t mtp_ops_codes(const struct mtp_ops *o, uint16_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < mtp_ops_n && n < max; i++)
		if (mtp_ptp_op_ok(o->info.ptp, mtp_ops_table[i].code) &&
		    (o->info.object_prop_lists || !mtp_ops_table[i].prop_list))
			out[n++] = mtp_ops_table[i].code;
	return n;
}

void mtp_ops_command(struct mtp_ops *o, const struct mtp_container *c,
		     struct mtp_reply *r)
{
	struct mtp_container cmd = *c;

	memset(r, 0, sizeof(*r));
	r->code = MTP_RC_OK;
	r->fd = -1;
	mtp_buf_reset(&o->buf);
	/* Missing parameters read as 0, as PTP says. */
	for (unsigned i = cmd.nparams; i < MTP_MAX_PARAMS; i++)
		cmd.params[i] = 0;
	for (size_t i = 0; i < mtp_ops_n; i++) {
		if (mtp_ops_table[i].code != c->code ||
		    !mtp_ptp_op_ok(o->info.ptp, c->code))
			continue;
		if (!o->session && c->code != MTP_OP_GET_DEVICE_INFO &&
		    c->code != MTP_OP_OPEN_SESSION) {
			mtp_ops_rc(r, MTP_RC_SESSION_NOT_OPEN);
			if (c->code == MTP_OP_SEND_OBJECT_INFO ||
			    c->code == MTP_OP_SEND_OBJECT_PROP_LIST ||
			    c->code == MTP_OP_SEND_OBJECT ||
			    c->code == MTP_OP_SEND_PARTIAL_OBJECT ||
			    c->code == MTP_OP_SET_OBJECT_PROP_VALUE)
				r->phase = MTP_PHASE_OUT_DISCARD;
			return;
		}
		mtp_ops_table[i].fn(o, &cmd, r);
		return;
	}
	mtp_ops_rc(r, MTP_RC_OPERATION_NOT_SUPPORTED);
}

void mtp_ops_data_out(struct mtp_ops *o, const struct mtp_container *c,
		      struct mtp_reply *r)
{
	struct mtp_container cmd = *c;

	memset(r, 0, sizeof(*r));
	r->code = MTP_RC_OK;
	r->fd = -1;
	for (unsigned i = cmd.nparams; i < MTP_MAX_PARAMS; i++)
		cmd.params[i] = 0;
	if (o->buf.oom) {
		mtp_ops_rc(r, MTP_RC_INVALID_DATASET);
		return;
	}
	if (c->code == MTP_OP_SEND_OBJECT_INFO)
		mtp_ops_object_info_data(o, &cmd, r);
	else if (c->code == MTP_OP_SEND_OBJECT_PROP_LIST)
		mtp_ops_send_props_data(o, &cmd, r);
	else if (c->code == MTP_OP_SET_OBJECT_PROP_VALUE)
		mtp_ops_prop_value_data(o, &cmd, r);
	else
		mtp_ops_rc(r, MTP_RC_GENERAL_ERROR);
}
