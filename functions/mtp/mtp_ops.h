/*
 * mtp_ops: the MTP operations, independent of USB framing.
 *
 * mtp.c parses a command container and calls mtp_ops_command(), which
 * fills a struct mtp_reply: the response code and parameters, and the
 * data phase the operation needs. For IN_BUF the data is in
 * mtp_ops_buf(); for IN_FILE mtp.c streams `length` bytes of `fd` from
 * `offset` and then closes fd. For OUT_BUF mtp.c collects the host's data
 * into mtp_ops_buf() and calls mtp_ops_data_out() for the response. For
 * IN_GEN mtp.c streams `length` bytes pulled from mtp_ops_prop_gen_fill()
 * (a dataset too large to build at once) and then calls
 * mtp_ops_prop_gen_end(). For OUT_FILE mtp.c hands the data to
 * mtp_ops_object_write() (the upload of mtp_store: space and announced
 * size are checked there) and calls mtp_ops_object_done(). For
 * OUT_DISCARD the data is read and dropped and the response is the code
 * already in the reply. For STEP (a long CopyObject) the work goes on in
 * bounded steps: mtp.c calls mtp_ops_object_step() from its event loop
 * until it says the reply is ready, so the loop keeps running meanwhile.
 *
 * The module is split by operation family (mtp_ops_int.h lists the
 * files): a function's prefix names its file, mtp_ops_object_* in
 * mtp_ops_object.c, mtp_ops_prop_* in mtp_ops_prop.c.
 */
#ifndef GADGETD_MTP_OPS_H
#define GADGETD_MTP_OPS_H

#include "mtp_container.h"
#include "mtp_store.h"

enum mtp_phase {
	MTP_PHASE_NONE,
	MTP_PHASE_IN_BUF,
	MTP_PHASE_IN_FILE,
	MTP_PHASE_IN_GEN,
	MTP_PHASE_OUT_BUF,
	MTP_PHASE_OUT_FILE,
	MTP_PHASE_OUT_DISCARD,
	MTP_PHASE_STEP,
};

/* Data phase length that is not known in advance (objects >= 4 GiB). */
#define MTP_LEN_UNKNOWN UINT64_MAX
/* Largest dataset accepted in an OUT_BUF phase. */
#define MTP_OUT_BUF_MAX (64 * 1024)

struct mtp_reply {
	uint16_t code;
	unsigned nparams;
	uint32_t params[MTP_MAX_PARAMS];
	enum mtp_phase phase;
	int fd;
	uint64_t offset;
	uint64_t length;
};

/*
 * What a flavour changes in the operations (PTP's: functions/ptp/
 * ptp_tables.h). Without tables (mtp_ops_info's NULL) they are MTP's:
 * mtp_ops.c's events, mtp_dataset's formats, every operation but GetThumb.
 * A flavour with tables sets every field.
 */
struct mtp_ops_tables {
	/* DeviceInfo's EventsSupported and ImageFormats */
	const uint16_t *events;
	size_t n_events;
	const uint16_t *formats;
	size_t n_formats;
	/* Whether operation code is served (GetThumb only with get_thumb). */
	bool (*op_ok)(uint16_t code);
	/* An object's format code, by its name. */
	uint16_t (*format_of)(const char *name, bool dir);
	/* The ObjectInfo dataset of st into b: 0 or -errno. */
	int (*object_info)(struct mtp_store *s, struct mtp_buf *b,
			   const struct mtp_obj_stat *st);
	/* GetThumb's thumbnail of st into b: 0, -ENOENT when it has none,
	 * or -errno. */
	int (*get_thumb)(struct mtp_store *s, const struct mtp_obj_stat *st,
			 struct mtp_buf *b);
};

struct mtp_ops_info {
	const char *manufacturer;
	const char *model;
	const char *version;
	const char *serial;
	const char *friendly_name;
	/* Say "android.com" in DeviceInfo's vendor extensions, as Android
	 * does: go-mtpfs then edits in place, and libmtp applies its
	 * Android quirks (no GetObjectPropList, a reset on close). */
	bool android_extension;
	/* List GetObjectPropList and GetObjectPropsSupported in DeviceInfo
	 * (answered either way). Without them libmtp walks a folder with one
	 * transaction per object instead of two, but never asks for the
	 * whole device at once and sees sizes of 4 GiB at most
	 * (docs/mtp-clients.md, "MTP listing"). */
	bool object_prop_lists;
	/* PTP's flavour (mtp.h, struct mtp_flavour): DeviceInfo names no
	 * vendor extension and no device property. */
	bool ptp;
	/* The flavour's tables, or NULL for MTP's; they must outlive the
	 * ops. */
	const struct mtp_ops_tables *tables;
};

struct mtp_ops;

/* The strings in info must outlive the ops; store stays the caller's. */
struct mtp_ops *mtp_ops_new(struct mtp_store *store,
			    const struct mtp_ops_info *info);
void mtp_ops_free(struct mtp_ops *o);

struct mtp_buf *mtp_ops_buf(struct mtp_ops *o);
void mtp_ops_command(struct mtp_ops *o, const struct mtp_container *cmd,
		     struct mtp_reply *r);
void mtp_ops_data_out(struct mtp_ops *o, const struct mtp_container *cmd,
		      struct mtp_reply *r);
/* A piece of SendObject's data: 0, or -errno (-EFBIG beyond the size
 * announced, -ENOSPC into the reserve); after an error, write no more. */
int mtp_ops_object_write(struct mtp_ops *o, const void *data, size_t n);
/* status 0: all data came, and the object replaces its target; else
 * -errno (-ECANCELED, -EIO...) and the old content stays. */
void mtp_ops_object_done(struct mtp_ops *o, int status, struct mtp_reply *r);
/*
 * The next n bytes of an IN_GEN data phase into out: 0, or -EIO when the
 * store changed since the length was announced (the rest of out is then
 * zeros, so the framing holds; answer Incomplete_Transfer).
 */
int mtp_ops_prop_gen_fill(struct mtp_ops *o, uint8_t *out, size_t n);
/* The IN_GEN data phase is over, sent or abandoned. */
void mtp_ops_prop_gen_end(struct mtp_ops *o);
/* One step of the operation in progress (MTP_PHASE_STEP): false while
 * there is more to do, true when r holds the response. */
bool mtp_ops_object_step(struct mtp_ops *o, struct mtp_reply *r);
/* Give up the operation in progress, if any; what it made goes. */
void mtp_ops_object_step_abort(struct mtp_ops *o);
/*
 * Storage is about to be removed from the store: an upload into it is
 * aborted (nothing of it stays), a copy into it too, and the transfer
 * or copy ends with Store_Not_Available (mtp_ops_object_write() then
 * fails with -ENODEV). Call it before mtp_store_remove().
 */
void mtp_ops_storage_gone(struct mtp_ops *o, uint32_t storage);
/* The host went away or reset: close the session, drop a pending object. */
void mtp_ops_reset(struct mtp_ops *o);
bool mtp_ops_session_open(const struct mtp_ops *o);

#endif
