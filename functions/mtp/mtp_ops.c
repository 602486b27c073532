/*
 * mtp_ops: the operation table and its dispatch, with the session,
 * DeviceInfo and storage operations; the other families are the files
 * mtp_ops_int.h lists, reached through the table.
 */
#include "mtp_ops_int.h"

#include "mtp_dataset.h"
#include "mtp_edit.h"
#include "mtp_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    MTP_EV_STORE_ADDED,
    MTP_EV_STORE_REMOVED,
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

void mtp_ops_free(struct mtp_ops *o)
{
	if (!o)
		return;
	mtp_ops_object_drop_pending(o, false);
	mtp_ops_object_step_abort(o);
	mtp_edit_free(o->edit);
	mtp_ops_prop_gen_end(o);
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

void mtp_ops_storage_gone(struct mtp_ops *o, uint32_t storage)
{
	mtp_ops_object_storage_gone(o, storage);
}

void mtp_ops_reset(struct mtp_ops *o)
{
	/* A half-sent object is worthless: remove it; a half copy too. */
	mtp_ops_object_drop_pending(o, true);
	mtp_ops_object_step_abort(o);
	/* Android keeps what an unfinished edit wrote: so do we. */
	o->partial = false;
	mtp_edit_end_all(o->edit);
	o->session = false;
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

	if (o->info.ptp) /* no vendor extension, no device property */
		d.ptp = true, d.n_dprops = 0;
	if (o->info.tables) { /* the flavour's events and formats */
		d.events = o->info.tables->events;
		d.n_events = o->info.tables->n_events;
		d.formats = o->info.tables->formats;
		d.n_formats = o->info.tables->n_formats;
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

static const struct mtp_ops_entry mtp_ops_table[] = {
    {MTP_OP_GET_DEVICE_INFO, mtp_ops_get_device_info, false},
    {MTP_OP_OPEN_SESSION, mtp_ops_open_session, false},
    {MTP_OP_CLOSE_SESSION, mtp_ops_close_session, false},
    {MTP_OP_GET_STORAGE_IDS, mtp_ops_get_storage_ids, false},
    {MTP_OP_GET_STORAGE_INFO, mtp_ops_get_storage_info, false},
    {MTP_OP_GET_NUM_OBJECTS, mtp_ops_object_get_num, false},
    {MTP_OP_GET_OBJECT_HANDLES, mtp_ops_object_get_handles, false},
    {MTP_OP_GET_OBJECT_INFO, mtp_ops_object_get_info, false},
    {MTP_OP_GET_OBJECT, mtp_ops_object_get, false},
    {MTP_OP_GET_THUMB, mtp_ops_object_get_thumb, false},
    {MTP_OP_DELETE_OBJECT, mtp_ops_object_delete, false},
    {MTP_OP_SEND_OBJECT_INFO, mtp_ops_object_want_dataset, false},
    {MTP_OP_SEND_OBJECT, mtp_ops_object_send, false},
    {MTP_OP_SEND_OBJECT_PROP_LIST, mtp_ops_object_want_dataset, false},
    {MTP_OP_GET_DEVICE_PROP_DESC, mtp_ops_prop_get_dprop_desc, false},
    {MTP_OP_GET_DEVICE_PROP_VALUE, mtp_ops_prop_get_dprop_value, false},
    {MTP_OP_MOVE_OBJECT, mtp_ops_object_move, false},
    {MTP_OP_COPY_OBJECT, mtp_ops_object_copy, false},
    {MTP_OP_GET_PARTIAL_OBJECT, mtp_ops_object_get_partial, false},
    {MTP_OP_GET_PARTIAL_OBJECT_64, mtp_ops_object_get_partial64, false},
    {MTP_OP_GET_OBJECT_PROPS_SUPPORTED, mtp_ops_prop_get_supported, true},
    {MTP_OP_GET_OBJECT_PROP_DESC, mtp_ops_prop_get_desc, false},
    {MTP_OP_GET_OBJECT_PROP_VALUE, mtp_ops_prop_get_value, false},
    {MTP_OP_SET_OBJECT_PROP_VALUE, mtp_ops_prop_set_value, false},
    {MTP_OP_GET_OBJECT_PROP_LIST, mtp_ops_prop_get_list, true},
    {MTP_OP_SEND_PARTIAL_OBJECT, mtp_ops_edit_send_partial, false},
    {MTP_OP_TRUNCATE_OBJECT, mtp_ops_edit_truncate, false},
    {MTP_OP_BEGIN_EDIT_OBJECT, mtp_ops_edit_begin, false},
    {MTP_OP_END_EDIT_OBJECT, mtp_ops_edit_end, false},
};
static const size_t mtp_ops_n =
    sizeof(mtp_ops_table) / sizeof(mtp_ops_table[0]);

/* Whether operation code is served: as the flavour's tables say, or in
 * MTP any but GetThumb (MTP's ObjectInfo names no thumbnail). */
static bool mtp_ops_served(const struct mtp_ops *o, uint16_t code)
{
	const struct mtp_ops_tables *t = o->info.tables;

	if (code == MTP_OP_GET_THUMB && !(t && t->get_thumb))
		return false;
	return !t || t->op_ok(code);
}

static size_t mtp_ops_codes(const struct mtp_ops *o, uint16_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < mtp_ops_n && n < max; i++)
		if (mtp_ops_served(o, mtp_ops_table[i].code) &&
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
		    !mtp_ops_served(o, c->code))
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
		mtp_ops_object_send_props_data(o, &cmd, r);
	else if (c->code == MTP_OP_SET_OBJECT_PROP_VALUE)
		mtp_ops_prop_value_data(o, &cmd, r);
	else
		mtp_ops_rc(r, MTP_RC_GENERAL_ERROR);
}
