/*
 * mtp_ops_prop: the property operations: an object's properties one by
 * one (GetObjectPropsSupported, GetObjectPropDesc, GetObjectPropValue,
 * SetObjectPropValue), GetObjectPropList streamed as it is built, and
 * the device's one property, its friendly name (mtp_ops_int.h).
 */
#include "mtp_ops_int.h"

#include "mtp_dataset.h"
#include "mtp_proplist.h"
#include "mtp_proto.h"

#include <errno.h>
#include <string.h>

void mtp_ops_prop_get_supported(struct mtp_ops *o,
				const struct mtp_container *c,
				struct mtp_reply *r)
{
	mtp_buf_u16_array(&o->buf, mtp_dataset_props, mtp_dataset_n_props);
	mtp_ops_in_buf(o, r, 0);
}

void mtp_ops_prop_get_desc(struct mtp_ops *o, const struct mtp_container *c,
			   struct mtp_reply *r)
{
	if (mtp_dataset_prop_desc(&o->buf, c->params[0]) < 0) {
		mtp_ops_rc(r, MTP_RC_INVALID_OBJECT_PROP_CODE);
		return;
	}
	mtp_ops_in_buf(o, r, 0);
}

void mtp_ops_prop_get_value(struct mtp_ops *o, const struct mtp_container *c,
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

void mtp_ops_prop_set_value(struct mtp_ops *o, const struct mtp_container *c,
			    struct mtp_reply *r)
{
	r->phase = MTP_PHASE_OUT_BUF;
}

void mtp_ops_prop_value_data(struct mtp_ops *o, const struct mtp_container *c,
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
void mtp_ops_prop_get_list(struct mtp_ops *o, const struct mtp_container *c,
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

int mtp_ops_prop_gen_fill(struct mtp_ops *o, uint8_t *out, size_t n)
{
	if (!o->gen) {
		memset(out, 0, n);
		return -EBADF;
	}
	return mtp_proplist_fill(o->gen, out, n);
}

void mtp_ops_prop_gen_end(struct mtp_ops *o)
{
	mtp_proplist_free(o->gen);
	o->gen = NULL;
}

void mtp_ops_prop_get_dprop_desc(struct mtp_ops *o,
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

void mtp_ops_prop_get_dprop_value(struct mtp_ops *o,
				  const struct mtp_container *c,
				  struct mtp_reply *r)
{
	if (c->params[0] != MTP_DPROP_FRIENDLY_NAME) {
		mtp_ops_rc(r, MTP_RC_DEVICE_PROP_NOT_SUPPORTED);
		return;
	}
	mtp_ops_in_buf(o, r, mtp_buf_str(&o->buf, o->info.friendly_name));
}
