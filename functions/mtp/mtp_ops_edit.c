/*
 * mtp_ops_edit: Android's operations that edit an object in place
 * (BeginEditObject, SendPartialObject, TruncateObject, EndEditObject),
 * on the edits of mtp_edit.h (mtp_ops_int.h).
 */
#include "mtp_ops_int.h"

#include "mtp_edit.h"
#include "mtp_proto.h"

#include <errno.h>

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

static uint64_t mtp_ops_edit_offset64(const struct mtp_container *c)
{
	return c->params[1] | (uint64_t)c->params[2] << 32;
}

/* BeginEditObject(handle) */
void mtp_ops_edit_begin(struct mtp_ops *o, const struct mtp_container *c,
			struct mtp_reply *r)
{
	if (c->nparams < 1) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_begin(o->edit, c->params[0])));
}

/* EndEditObject(handle) */
void mtp_ops_edit_end(struct mtp_ops *o, const struct mtp_container *c,
		      struct mtp_reply *r)
{
	if (c->nparams < 1) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_end(o->edit, c->params[0])));
}

/* TruncateObject(handle, size low, size high) */
void mtp_ops_edit_truncate(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r)
{
	if (c->nparams < 3) {
		mtp_ops_rc(r, MTP_RC_INVALID_PARAMETER);
		return;
	}
	mtp_ops_rc(r, mtp_ops_edit_code(mtp_edit_truncate(
			  o->edit, c->params[0], mtp_ops_edit_offset64(c))));
}

/* SendPartialObject(handle, offset low, offset high, length): the data
 * phase of a refused one is read and dropped. */
void mtp_ops_edit_send_partial(struct mtp_ops *o, const struct mtp_container *c,
			       struct mtp_reply *r)
{
	int rc = -EINVAL;

	if (c->nparams >= 4)
		rc = mtp_edit_write_begin(o->edit, c->params[0],
					  mtp_ops_edit_offset64(c),
					  c->params[3]);
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
