/*
 * mtp_ops_int: what the files of the mtp_ops module share, and nothing
 * outside them may use (mtp_ops.h is the public face). The module is
 * split by operation family:
 *
 *   mtp_ops.c         the operation table and its dispatch, the session
 *                     (OpenSession, CloseSession), DeviceInfo and the
 *                     storages (GetStorageIDs, GetStorageInfo)
 *   mtp_ops_object.c  objects: listing, ObjectInfo, reading, deleting,
 *                     sending, moving and copying
 *   mtp_ops_prop.c    object and device properties, property lists
 *   mtp_ops_edit.c    Android's in-place edits
 *
 * mtp_ops.c reaches a family through the handlers declared here, which
 * its table lists; a family reaches no other family.
 */
#ifndef GADGETD_MTP_OPS_INT_H
#define GADGETD_MTP_OPS_INT_H

#include "mtp_ops.h"
#include "mtp_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

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
	struct mtp_upload *upload;
	uint64_t pending_len;
	/* Android's in-place edits; partial: SendPartialObject's data
	 * goes to them rather than to an upload. */
	struct mtp_edit *edit;
	bool partial;
	/* The GetObjectPropList being sent (MTP_PHASE_IN_GEN). */
	struct mtp_proplist *gen;
	/* The CopyObject in progress (MTP_PHASE_STEP). */
	struct mtp_store_copy *copy;
	/* The storage of the upload or copy in progress went away
	 * (mtp_ops_storage_gone): it ends with Store_Not_Available. */
	bool gone;
};

typedef void (*mtp_ops_fn)(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);

/* The reply helpers of every family. */
static inline void mtp_ops_rc(struct mtp_reply *r, uint16_t code)
{
	r->code = code;
}

static inline void mtp_ops_param(struct mtp_reply *r, uint32_t v)
{
	if (r->nparams < MTP_MAX_PARAMS)
		r->params[r->nparams++] = v;
}

/* Map -errno from the store to a response code. */
static inline uint16_t mtp_ops_errno_code(int err)
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
	case ENODEV: return MTP_RC_STORE_NOT_AVAILABLE;
	}
	return MTP_RC_GENERAL_ERROR;
}

/* The reply to a dataset built into o->buf with result rc. */
static inline void mtp_ops_in_buf(struct mtp_ops *o, struct mtp_reply *r,
				  int rc)
{
	if (rc == 0 && o->buf.oom)
		rc = -ENOMEM;
	if (rc < 0) {
		mtp_ops_rc(r, mtp_ops_errno_code(rc));
		return;
	}
	r->phase = MTP_PHASE_IN_BUF;
}

/*
 * The families' handlers, each an mtp_ops_fn listed in mtp_ops.c's
 * table; the *_data ones answer an OUT_BUF data phase (mtp_ops_data_out).
 */

/* mtp_ops_object.c */
void mtp_ops_object_get_num(struct mtp_ops *o, const struct mtp_container *c,
			    struct mtp_reply *r);
void mtp_ops_object_get_handles(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r);
void mtp_ops_object_get_info(struct mtp_ops *o, const struct mtp_container *c,
			     struct mtp_reply *r);
void mtp_ops_object_get_thumb(struct mtp_ops *o, const struct mtp_container *c,
			      struct mtp_reply *r);
void mtp_ops_object_get(struct mtp_ops *o, const struct mtp_container *c,
			struct mtp_reply *r);
void mtp_ops_object_get_partial(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r);
void mtp_ops_object_get_partial64(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r);
void mtp_ops_object_delete(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);
void mtp_ops_object_want_dataset(struct mtp_ops *o,
				 const struct mtp_container *c,
				 struct mtp_reply *r);
void mtp_ops_object_send(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r);
void mtp_ops_object_move(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r);
void mtp_ops_object_copy(struct mtp_ops *o, const struct mtp_container *c,
			 struct mtp_reply *r);
void mtp_ops_object_info_data(struct mtp_ops *o, const struct mtp_container *c,
			      struct mtp_reply *r);
void mtp_ops_object_send_props_data(struct mtp_ops *o,
				    const struct mtp_container *c,
				    struct mtp_reply *r);
/* End the upload or copy in progress into storage (mtp_ops_storage_gone). */
void mtp_ops_object_storage_gone(struct mtp_ops *o, uint32_t storage);
/* Forget the object SendObjectInfo announced; remove: its upload
 * failed, so a new object's placeholder goes too. */
void mtp_ops_object_drop_pending(struct mtp_ops *o, bool remove);

/* mtp_ops_prop.c */
void mtp_ops_prop_get_supported(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r);
void mtp_ops_prop_get_desc(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);
void mtp_ops_prop_get_value(struct mtp_ops *o, const struct mtp_container *c,
			    struct mtp_reply *r);
void mtp_ops_prop_set_value(struct mtp_ops *o, const struct mtp_container *c,
			    struct mtp_reply *r);
void mtp_ops_prop_get_list(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);
void mtp_ops_prop_get_dprop_desc(struct mtp_ops *o,
				 const struct mtp_container *c,
				 struct mtp_reply *r);
void mtp_ops_prop_get_dprop_value(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r);
void mtp_ops_prop_value_data(struct mtp_ops *o, const struct mtp_container *c,
			     struct mtp_reply *r);

/* mtp_ops_edit.c */
void mtp_ops_edit_begin(struct mtp_ops *o, const struct mtp_container *c,
			struct mtp_reply *r);
void mtp_ops_edit_end(struct mtp_ops *o, const struct mtp_container *c,
		      struct mtp_reply *r);
void mtp_ops_edit_truncate(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r);
void mtp_ops_edit_send_partial(struct mtp_ops *o, const struct mtp_container *c,
			       struct mtp_reply *r);

#endif
