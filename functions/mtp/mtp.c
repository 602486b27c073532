#include "mtp.h"
#include "mtp_container.h"
#include "mtp_events.h"
#include "mtp_hotplug.h"
#include "mtp_ops.h"
#include "mtp_prep.h"
#include "mtp_proto.h"
#include "mtp_store.h"

#include "log.h"
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum mtp_state {
	MTP_IDLE,
	MTP_DATA_OUT, /* receiving the host's data phase */
	MTP_DATA_IN,  /* streaming a file to the host */
	MTP_STEPPING, /* an operation going on in steps (MTP_PHASE_STEP) */
};

struct mtp {
	struct plugin *p;
	struct mtp_store *store;
	struct mtp_ops *ops;
	struct mtp_events *events;
	struct mtp_hotplug *hotplug; /* storages that come and go */
	const struct mtp_flavour *flavour;
	struct mtp_ops_info info;
	char *strings[5]; /* owned copies behind info */
	bool enabled;
	unsigned mps;
	enum mtp_state state;
	struct mtp_container cmd;
	struct mtp_reply reply;
	/* DATA_OUT */
	uint8_t hdr[MTP_HDR_LEN];
	size_t hdr_got;
	uint64_t expect; /* payload bytes, or MTP_LEN_UNKNOWN */
	uint64_t got;
	int out_err;
	size_t rx_max; /* longest read of this data phase */
	bool stray;    /* a data phase nobody asked for */
	/* DATA_IN */
	uint64_t in_off;
	uint64_t in_left;
	uint64_t in_total; /* header included */
	bool in_hdr_sent;
	int in_err;
	uint8_t *iobuf; /* MTP_XFER bytes */
	/* STEPPING: the idle watch that runs the next step. */
	struct loop_watch *step_w;
	/* Lines a host can make us log at will (issue 21). */
	struct log_burst host_log;
	/* statistics for `gadgetctl mtp stats` */
	uint64_t bytes_in;
	uint64_t bytes_out;
};

/* Lines a host may make us log: so many per window of seconds. */
#define MTP_HOST_LOG_BURST 20
#define MTP_HOST_LOG_WINDOW_S 60

/*
 * Whether to log a line that the host's bytes caused. A hostile host can
 * send thousands of odd commands a second; the log must not carry them all.
 * Debug lines (the trace of every operation, which tests and people read
 * with -v) are not counted: they are off unless asked for, and counting
 * them would spend the budget of the warnings.
 */
static bool mtp_log_ok(struct mtp *m)
{
	return log_burst_ok(&m->host_log);
}

static void mtp_write(struct mtp *m, unsigned ep, const void *buf, size_t len)
{
	int rc = plugin_write(m->p, ep, buf, len);

	if (rc < 0 && rc != -ESHUTDOWN && mtp_log_ok(m))
		log_warnx("%s: queueing %zu bytes on ep%u: %s",
			  m->flavour->name, len, ep + 1, strerror(-rc));
	if (rc == 0 && ep == MTP_EP_IN)
		m->bytes_out += len;
}

static void mtp_respond(struct mtp *m, const struct mtp_reply *r)
{
	uint8_t out[MTP_HDR_LEN + 4 * MTP_MAX_PARAMS];
	size_t n = mtp_container_build(out, MTP_TYPE_RESPONSE, r->code,
				       m->cmd.tid, r->params, r->nparams);

	if (r->code != MTP_RC_OK)
		log_debug("%s: op 0x%04x -> 0x%04x", m->flavour->name,
			  m->cmd.code, r->code);
	mtp_write(m, MTP_EP_IN, out, n);
	m->state = MTP_IDLE;
}

static void mtp_event(void *data, uint16_t code, uint32_t param)
{
	struct mtp *m = data;
	uint8_t out[MTP_HDR_LEN + 4];
	size_t n;

	/* A host that never reads events must not make us hoard them. */
	if (!m->enabled || !mtp_ops_session_open(m->ops) ||
	    plugin_tx_queued(m->p, MTP_EP_EVENT) > 1024)
		return;
	n = mtp_container_build(out, MTP_TYPE_EVENT, code, 0, &param, 1);
	mtp_write(m, MTP_EP_EVENT, out, n);
}

/* Send the dataset in the ops buffer as one data phase, then respond. */
static void mtp_send_buf(struct mtp *m)
{
	const struct mtp_buf *b = mtp_ops_buf(m->ops);
	size_t total = MTP_HDR_LEN + b->len, off = 0;
	size_t first = total < MTP_XFER ? total : MTP_XFER;

	mtp_container_hdr(m->iobuf, total, MTP_TYPE_DATA, m->cmd.code,
			  m->cmd.tid);
	/* Header and data go out merged: some hosts want them so. */
	memcpy(m->iobuf + MTP_HDR_LEN, b->data, first - MTP_HDR_LEN);
	mtp_write(m, MTP_EP_IN, m->iobuf, first);
	off = first - MTP_HDR_LEN;
	while (off < b->len) {
		size_t n = b->len - off;

		if (n > PLUGIN_MAX_XFER)
			n = PLUGIN_MAX_XFER;
		mtp_write(m, MTP_EP_IN, b->data + off, n);
		off += n;
	}
	if (total % m->mps == 0)
		mtp_write(m, MTP_EP_IN, NULL, 0);
	mtp_respond(m, &m->reply);
}

/* Let go of what an IN data phase read from: its file or generator. */
static void mtp_in_release(struct mtp *m)
{
	if (m->reply.phase == MTP_PHASE_IN_GEN)
		mtp_ops_prop_gen_end(m->ops);
	else
		close(m->reply.fd);
	m->reply.fd = -1;
}

static void mtp_in_finish(struct mtp *m)
{
	mtp_in_release(m);
	if (m->in_err) {
		m->reply.code = m->in_err == -ENODEV
				    ? MTP_RC_STORE_NOT_AVAILABLE
				    : MTP_RC_INCOMPLETE_TRANSFER;
		m->reply.nparams = 0;
	}
	if (m->in_total % m->mps == 0)
		mtp_write(m, MTP_EP_IN, NULL, 0);
	mtp_respond(m, &m->reply);
}

/* Read the next piece of the file into iobuf after `hdr` bytes. A file
 * that shrank meanwhile is padded with zeros to keep the framing. */
static size_t mtp_in_fill(struct mtp *m, uint8_t *buf, size_t hdr)
{
	size_t want = MTP_XFER - hdr, got = 0;

	if (want > m->in_left)
		want = (size_t)m->in_left; /* less than want: fits */
	if (m->reply.phase == MTP_PHASE_IN_GEN) {
		int rc = mtp_ops_prop_gen_fill(m->ops, buf + hdr, want);

		if (rc < 0 && !m->in_err)
			m->in_err = rc;
		got = want;
	}
	/* After an error (a storage that went, mtp_hide_storage) the rest
	 * is zeros. */
	if (m->in_err && got < want)
		memset(buf + hdr + got, 0, want - got);
	while (!m->in_err && got < want) {
		ssize_t n = pread(m->reply.fd, buf + hdr + got, want - got,
				  m->in_off + got);

		if (n <= 0) {
			memset(buf + hdr + got, 0, want - got);
			m->in_err = n < 0 ? -errno : -EIO;
			break;
		}
		got += n;
	}
	m->in_off += want;
	m->in_left -= want;
	return hdr + want;
}

/* Keep the IN queue full while a file is being sent. */
static void mtp_in_pump(struct mtp *m)
{
	while (m->state == MTP_DATA_IN && m->enabled &&
	       plugin_tx_queued(m->p, MTP_EP_IN) < PLUGIN_TX_HIGH) {
		size_t hdr = 0, n;
		/* The file is read straight into the runtime's buffer. */
		uint8_t *buf;

		if (!m->in_hdr_sent) {
			hdr = MTP_HDR_LEN;
		} else if (!m->in_left) {
			mtp_in_finish(m);
			return;
		}
		buf = plugin_buf_alloc(m->p, MTP_XFER);
		if (!buf)
			return; /* out of memory: tx_drained calls again */
		if (hdr) {
			uint32_t l = m->in_total > 0xFFFFFFFFull
					 ? 0xFFFFFFFF
					 : (uint32_t)m->in_total;

			mtp_container_hdr(buf, l, MTP_TYPE_DATA, m->cmd.code,
					  m->cmd.tid);
			m->in_hdr_sent = true;
		}
		n = mtp_in_fill(m, buf, hdr);
		if (plugin_write_buf(m->p, MTP_EP_IN, buf, n) < 0) {
			mtp_in_release(m);
			m->state = MTP_IDLE;
			return;
		}
		m->bytes_out += n;
	}
}

static void mtp_in_start(struct mtp *m)
{
	m->state = MTP_DATA_IN;
	m->in_off = m->reply.offset;
	m->in_left = m->reply.length;
	m->in_total = MTP_HDR_LEN + m->reply.length;
	m->in_hdr_sent = false;
	m->in_err = 0;
	mtp_in_pump(m);
}

static void mtp_out_start(struct mtp *m, bool stray)
{
	m->state = MTP_DATA_OUT;
	m->hdr_got = 0;
	m->got = 0;
	m->out_err = 0;
	m->rx_max = 0;
	m->stray = stray;
	m->expect = MTP_LEN_UNKNOWN;
}

static void mtp_step_run(struct loop_watch *w, void *data);

/* Run the next step from the loop: whatever else the loop has to do
 * (the heartbeat, events, ep0) runs between two steps. */
static void mtp_step_schedule(struct mtp *m)
{
	struct mtp_reply r = {.code = MTP_RC_GENERAL_ERROR, .fd = -1};
	struct loop *l = plugin_loop(m->p);

	m->step_w = NULL;
	if (l) {
		m->step_w = loop_add_idle(l, mtp_step_run, m);
		if (m->step_w)
			return;
		mtp_ops_object_step_abort(m->ops);
		mtp_respond(m, &r);
		return;
	}
	/* No loop (a test harness): all steps at once. */
	while (!mtp_ops_object_step(m->ops, &r))
		;
	mtp_respond(m, &r);
}

static void mtp_step_run(struct loop_watch *w, void *data)
{
	struct mtp *m = data;
	struct mtp_reply r;

	m->step_w = NULL;
	if (m->state != MTP_STEPPING)
		return;
	if (!mtp_ops_object_step(m->ops, &r)) {
		mtp_step_schedule(m);
		return;
	}
	mtp_respond(m, &r);
	if (r.code == MTP_RC_STORE_FULL)
		mtp_event(m, MTP_EV_STORE_FULL, m->cmd.params[1]);
}

static void mtp_step_start(struct mtp *m)
{
	m->state = MTP_STEPPING;
	mtp_step_schedule(m);
}

/*
 * A command while an operation goes on in steps: MTP has one transaction
 * at a time, so only a confused or hostile host sends one. It is answered
 * Device_Busy under its own transaction id; the operation goes on.
 */
static void mtp_busy(struct mtp *m, const uint8_t *data, size_t len)
{
	uint8_t out[MTP_HDR_LEN];
	struct mtp_container c;
	size_t n;

	if (!len || mtp_container_parse_hdr(data, len, &c) < 0 ||
	    c.type != MTP_TYPE_COMMAND)
		return;
	log_debug("%s: op 0x%04x while busy", m->flavour->name, c.code);
	n = mtp_container_build(out, MTP_TYPE_RESPONSE, MTP_RC_DEVICE_BUSY,
				c.tid, NULL, 0);
	mtp_write(m, MTP_EP_IN, out, n);
}

static void mtp_command(struct mtp *m, const uint8_t *data, size_t len)
{
	if (mtp_container_parse_cmd(data, len, &m->cmd) < 0) {
		struct mtp_container h;

		/* Answer what we can identify; drop what we cannot. */
		if (mtp_container_parse_hdr(data, len, &h) == 0 &&
		    h.type == MTP_TYPE_COMMAND) {
			m->cmd = h;
			m->reply = (struct mtp_reply){
			    .code = MTP_RC_GENERAL_ERROR, .fd = -1};
			mtp_respond(m, &m->reply);
		} else {
			log_debug("%s: dropped %zu bytes of garbage",
				  m->flavour->name, len);
		}
		return;
	}
	log_debug("%s: op 0x%04x tid %u params %u: %08x %08x %08x",
		  m->flavour->name, m->cmd.code, m->cmd.tid, m->cmd.nparams,
		  m->cmd.params[0], m->cmd.params[1], m->cmd.params[2]);
	mtp_ops_command(m->ops, &m->cmd, &m->reply);
	switch (m->reply.phase) {
	case MTP_PHASE_NONE: mtp_respond(m, &m->reply); break;
	case MTP_PHASE_IN_BUF: mtp_send_buf(m); break;
	case MTP_PHASE_IN_FILE:
	case MTP_PHASE_IN_GEN: mtp_in_start(m); break;
	case MTP_PHASE_OUT_BUF:
	case MTP_PHASE_OUT_FILE:
	case MTP_PHASE_OUT_DISCARD: mtp_out_start(m, false); break;
	case MTP_PHASE_STEP: mtp_step_start(m); break;
	}
}

static void mtp_out_done(struct mtp *m)
{
	struct mtp_reply r;

	if (m->stray) {
		m->state = MTP_IDLE;
		return;
	}
	switch (m->reply.phase) {
	case MTP_PHASE_OUT_BUF:
		if (m->out_err) {
			r = (struct mtp_reply){.code = MTP_RC_INVALID_DATASET};
			break;
		}
		mtp_ops_data_out(m->ops, &m->cmd, &r);
		break;
	case MTP_PHASE_OUT_FILE:
		if (!m->out_err && m->expect != MTP_LEN_UNKNOWN &&
		    m->got < m->expect)
			m->out_err = -EIO;
		/* No inotify echo to mute: the upload lands by a rename
		 * onto a name that already has its handle. */
		mtp_ops_object_done(m->ops, m->out_err, &r);
		if (r.code == MTP_RC_STORE_FULL)
			mtp_event(m, MTP_EV_STORE_FULL, m->cmd.params[0]);
		break;
	case MTP_PHASE_NONE:
	case MTP_PHASE_IN_BUF:
	case MTP_PHASE_IN_FILE:
	case MTP_PHASE_IN_GEN:
	case MTP_PHASE_OUT_DISCARD:
	case MTP_PHASE_STEP: r = m->reply; break;
	}
	mtp_respond(m, &r);
}

/* Take the data container header; false when it is not one. */
static bool mtp_out_header(struct mtp *m)
{
	struct mtp_container h;
	bool file;

	if (mtp_container_parse_hdr(m->hdr, MTP_HDR_LEN, &h) < 0 ||
	    h.type != MTP_TYPE_DATA)
		return false;
	/*
	 * An object of 4 GiB or more: the container length cannot hold it,
	 * and libmtp even sends it cut to 32 bits. Then the size from
	 * SendObjectPropList counts, or, after an ObjectInfo that could only
	 * say 0xFFFFFFFF, the end of the transfer.
	 */
	file = !m->stray && m->reply.phase == MTP_PHASE_OUT_FILE;
	if (file && m->reply.length >= 0xFFFFFFFFull - MTP_HDR_LEN)
		m->expect = m->reply.length;
	else if (h.len != 0xFFFFFFFF)
		m->expect = h.len - MTP_HDR_LEN;
	else if (file)
		m->expect = m->reply.length;
	return true;
}

static void mtp_out_payload(struct mtp *m, const uint8_t *p, size_t n)
{
	struct mtp_buf *b = mtp_ops_buf(m->ops);

	if (m->stray || m->out_err)
		return;
	switch (m->reply.phase) {
	case MTP_PHASE_OUT_BUF:
		if (b->len + n > MTP_OUT_BUF_MAX)
			m->out_err = -EFBIG;
		else
			mtp_buf_put(b, p, n);
		break;
	case MTP_PHASE_OUT_FILE:
		/* The rest of the data phase is drained, then refused. */
		if (n)
			m->out_err = mtp_ops_object_write(m->ops, p, n);
		break;
	case MTP_PHASE_NONE:
	case MTP_PHASE_IN_BUF:
	case MTP_PHASE_IN_FILE:
	case MTP_PHASE_IN_GEN:
	case MTP_PHASE_OUT_DISCARD:
	case MTP_PHASE_STEP: break;
	}
}

static void mtp_out_rx(struct mtp *m, const uint8_t *data, size_t len)
{
	size_t off = 0, n;
	bool end;

	if (m->hdr_got < MTP_HDR_LEN) {
		if (len == 0)
			return; /* a late ZLP of the previous phase */
		n = MTP_HDR_LEN - m->hdr_got;
		if (n > len)
			n = len;
		memcpy(m->hdr + m->hdr_got, data, n);
		m->hdr_got += n;
		off = n;
		if (m->hdr_got == MTP_HDR_LEN && !mtp_out_header(m)) {
			/* The host skipped its data phase: treat what
			 * came as the next command. */
			if (mtp_log_ok(m))
				log_warnx("%s: expected a data phase for op "
					  "0x%04x",
					  m->flavour->name, m->cmd.code);
			m->state = MTP_IDLE;
			mtp_command(m, data, len);
			return;
		}
	}
	n = len - off;
	if (m->expect != MTP_LEN_UNKNOWN && m->got + n > m->expect)
		n = (size_t)(m->expect - m->got); /* less than n */
	mtp_out_payload(m, data + off, n);
	m->got += n;
	m->bytes_in += n;
	if (m->hdr_got < MTP_HDR_LEN)
		return;
	/*
	 * Known length: count bytes. Unknown: the transfer ended, which the
	 * runtime shows as a read shorter than the ones before it (reads
	 * fill up unless a short packet or a ZLP ends them), a partial
	 * packet, or a zero-length read.
	 */
	if (m->expect != MTP_LEN_UNKNOWN)
		end = m->got >= m->expect;
	else
		end = len == 0 ||
		      (off < len && (len % m->mps != 0 || len < m->rx_max));
	if (len > m->rx_max)
		m->rx_max = len;
	if (end)
		mtp_out_done(m);
}

void mtp_rx(void *priv, unsigned ep, const uint8_t *data, size_t len)
{
	struct mtp *m = priv;
	struct mtp_container h;

	if (ep != MTP_EP_OUT)
		return;
	switch (m->state) {
	case MTP_DATA_OUT: mtp_out_rx(m, data, len); return;
	case MTP_DATA_IN:
		if (mtp_log_ok(m))
			log_warnx("%s: host sent %zu bytes while we send data",
				  m->flavour->name, len);
		return;
	case MTP_STEPPING: mtp_busy(m, data, len); return;
	case MTP_IDLE: break;
	}
	/* Zero-length packets end the host's data phases: swallow them. */
	if (len == 0)
		return;
	if (len >= MTP_HDR_LEN && mtp_container_parse_hdr(data, len, &h) == 0 &&
	    h.type == MTP_TYPE_DATA) {
		/* A data phase for an operation we already answered. */
		mtp_out_start(m, true);
		mtp_out_rx(m, data, len);
		return;
	}
	mtp_command(m, data, len);
}

void mtp_tx_drained(void *priv, unsigned ep)
{
	struct mtp *m = priv;

	if (ep == MTP_EP_IN)
		mtp_in_pump(m);
}

/* Drop the transaction in progress without answering it. */
static void mtp_abort(struct mtp *m)
{
	struct mtp_reply r;

	if (m->state == MTP_DATA_OUT && !m->stray &&
	    m->reply.phase == MTP_PHASE_OUT_FILE)
		mtp_ops_object_done(m->ops, -ECANCELED, &r);
	if (m->state == MTP_DATA_IN)
		mtp_in_release(m);
	if (m->state == MTP_STEPPING) {
		if (m->step_w)
			loop_watch_remove(m->step_w);
		m->step_w = NULL;
		mtp_ops_object_step_abort(m->ops);
	}
	m->state = MTP_IDLE;
}

void mtp_enable(void *priv)
{
	struct mtp *m = priv;

	m->enabled = true;
	m->mps = plugin_max_packet(m->p, MTP_EP_IN);
	if (!m->mps)
		m->mps = 512;
	plugin_set_status(m->p, "host", "connected");
}

void mtp_disable(void *priv)
{
	struct mtp *m = priv;

	m->enabled = false;
	mtp_abort(m);
	/* Whoever comes next opens a new session. */
	mtp_ops_reset(m->ops);
	plugin_set_status(m->p, "host", "disconnected");
}

static void mtp_cancel(struct mtp *m, const uint8_t *data, size_t len)
{
	uint32_t tid;

	if (mtp_container_parse_cancel(data, len, &tid) < 0)
		return;
	if (m->state != MTP_IDLE && tid != m->cmd.tid)
		log_debug("%s: cancel of transaction %u during %u",
			  m->flavour->name, tid, m->cmd.tid);
	if (mtp_log_ok(m))
		log_info("%s: host cancelled op 0x%04x", m->flavour->name,
			 m->cmd.code);
	mtp_abort(m);
}

int mtp_setup(void *priv, const struct usb_ctrlrequest *req, uint8_t *in)
{
	struct mtp *m = priv;
	uint16_t status;

	if ((req->bRequestType & USB_TYPE_MASK) != USB_TYPE_CLASS)
		return -EOPNOTSUPP;
	switch (req->bRequest) {
	case MTP_REQ_CANCEL:
		return (req->bRequestType & USB_DIR_IN) ? -EINVAL : 0;
	case MTP_REQ_RESET:
		mtp_abort(m);
		mtp_ops_reset(m->ops);
		return 0;
	case MTP_REQ_GET_DEVICE_STATUS:
		if (!(req->bRequestType & USB_DIR_IN) ||
		    req->wLength < MTP_DEVICE_STATUS_LEN)
			return -EINVAL;
		status = m->state == MTP_IDLE ? MTP_RC_OK : MTP_RC_DEVICE_BUSY;
		return mtp_container_device_status(in, status);
	}
	/* GetExtendedEventData (0x65) and the rest: stall. */
	return -EOPNOTSUPP;
}

void mtp_setup_data(void *priv, const struct usb_ctrlrequest *req,
		    const uint8_t *data, size_t len)
{
	if ((req->bRequestType & USB_TYPE_MASK) == USB_TYPE_CLASS &&
	    req->bRequest == MTP_REQ_CANCEL)
		mtp_cancel(priv, data, len);
}

int mtp_command_op(void *priv, int argc, char **argv, char *reply,
		   size_t size)
{
	struct mtp *m = priv;

	if (argc >= 1 && !strcmp(argv[0], "storage"))
		return mtp_hotplug_command(m->hotplug, argc, argv, reply, size);
	if (argc < 1 || strcmp(argv[0], "stats")) {
		snprintf(reply, size, "usage: stats | storage ...");
		return -EINVAL;
	}
	snprintf(reply, size,
		 "session %s, bytes in %" PRIu64 ", bytes out %" PRIu64,
		 mtp_ops_session_open(m->ops) ? "open" : "closed", m->bytes_in,
		 m->bytes_out);
	return 0;
}

int mtp_show_storage(struct mtp *m, const struct mtp_hotplug_spec *spec,
		     uint32_t *id)
{
	int rc = mtp_store_add(m->store, spec->path,
			       spec->desc ? spec->desc : spec->path,
			       spec->readonly, id);

	if (rc == 0)
		rc = mtp_store_set_reserve(m->store, *id, spec->reserve_bytes);
	if (rc == 0)
		rc = mtp_store_set_reserve_inodes(m->store, *id,
						  spec->reserve_inodes);
	if (rc < 0)
		return rc;
	mtp_event(m, MTP_EV_STORE_ADDED, *id);
	return 0;
}

/* The storage of the file a GetObject streams, or 0. */
static uint32_t mtp_in_storage(struct mtp *m)
{
	struct mtp_obj_stat st;

	if (m->state != MTP_DATA_IN || m->reply.phase != MTP_PHASE_IN_FILE ||
	    mtp_store_stat(m->store, m->cmd.params[0], &st) < 0)
		return 0;
	return st.storage;
}

int mtp_hide_storage(struct mtp *m, uint32_t id)
{
	int rc;

	/* A file being sent from it: the rest of the data phase is zeros,
	 * and the response says Store_Not_Available. */
	if (mtp_in_storage(m) == id && !m->in_err)
		m->in_err = -ENODEV;
	mtp_ops_storage_gone(m->ops, id);
	mtp_events_forget_storage(m->events, id);
	rc = mtp_store_remove(m->store, id);
	if (rc < 0)
		return rc;
	mtp_event(m, MTP_EV_STORE_REMOVED, id);
	return 0;
}

void mtp_lock(void *priv, bool locked)
{
	mtp_hotplug_lock(((struct mtp *)priv)->hotplug, locked);
}

static int mtp_on_show(void *data, const struct mtp_hotplug_spec *spec,
			    uint32_t *id)
{
	return mtp_show_storage(data, spec, id);
}

static int mtp_on_hide(void *data, uint32_t id)
{
	return mtp_hide_storage(data, id);
}

static const struct mtp_hotplug_ops mtp_storage_ops = {
	.show = mtp_on_show,
	.hide = mtp_on_hide,
};

/* An option from the profile, else its declared default, else def. */
static const char *mtp_opt(struct mtp *m, const char *key, const char *def,
			   unsigned slot)
{
	const char *v = plugin_option_or_default(m->p, key);

	m->strings[slot] = strdup(v ? v : def);
	return m->strings[slot];
}

/* One reserve option of storage i (absent: its declared default). */
static int mtp_opt_count(struct mtp *m, unsigned i, const char *what,
			 uint64_t *out)
{
	char key[64];
	long long n;

	snprintf(key, sizeof(key), "storage%u_%s", i, what);
	if (plugin_option_int(m->p, key, &n) < 0)
		return -EINVAL;
	/* Never negative: the declared range starts at 0. */
	*out = (uint64_t)n;
	return 0;
}

/* Storage i's options into spec (strings the plugin's): 1 when it has a
 * path, 0 when not, -EINVAL. */
static int mtp_storage_spec(struct mtp *m, unsigned i,
			    struct mtp_hotplug_spec *spec)
{
	char key[64];
	bool ro;

	snprintf(key, sizeof(key), "storage%u_path", i);
	spec->path = plugin_option(m->p, key);
	for (unsigned k = 0; !spec->path && k < 2; k++) {
		snprintf(key, sizeof(key), "storage%u_reserve_%s", i,
			 k ? "inodes" : "mb");
		if (plugin_option(m->p, key)) {
			log_warnx("%s: option %s without storage%u_path",
				  m->flavour->name, key, i);
			return -EINVAL;
		}
	}
	if (!spec->path)
		return 0;
	snprintf(key, sizeof(key), "storage%u_description", i);
	spec->desc = plugin_option(m->p, key);
	/* PTP serves its storages read-only unless `writable`. */
	snprintf(key, sizeof(key), "storage%u_readonly", i);
	if (plugin_option_bool(m->p, m->flavour->ptp ? "writable" : key,
			       &ro) < 0)
		return -EINVAL;
	spec->readonly = m->flavour->ptp ? !ro : ro;
	if (mtp_opt_count(m, i, "reserve_mb", &spec->reserve_bytes) < 0 ||
	    mtp_opt_count(m, i, "reserve_inodes", &spec->reserve_inodes) < 0)
		return -EINVAL;
	spec->reserve_bytes <<= 20;
	return 1;
}

static int mtp_start_hotplug(struct mtp *m)
{
	const char *under = plugin_option(m->p, "storage_add_under");
	bool writable = true;

	if (under && !mtp_hotplug_path_ok(under)) {
		log_warnx("%s: option storage_add_under: %s: give an absolute "
			  "path with no \".\", \"..\" or empty component",
			  m->flavour->name, under);
		return -EINVAL;
	}
	/* PTP serves every storage read-only unless `writable`. */
	if (m->flavour->ptp && plugin_option_bool(m->p, "writable", &writable))
		return -EINVAL;
	m->hotplug = mtp_hotplug_new(m->flavour->name, plugin_loop(m->p),
				     m->store, under, &mtp_storage_ops, m);
	if (!m->hotplug)
		return -ENOMEM;
	mtp_hotplug_set_readonly(m->hotplug, !writable);
	return 0;
}

static int mtp_add_storages(struct mtp *m)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MTP_STORE_MAX; i++) {
		struct mtp_hotplug_spec spec = {0};
		char key[64];
		bool follow;
		uint32_t id;
		int rc = mtp_storage_spec(m, i, &spec);

		if (rc <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		snprintf(key, sizeof(key), "storage%u_follow_mount", i);
		if (plugin_option_bool(m->p, key, &follow) < 0)
			return -EINVAL;
		/* Shown by mtp_hotplug_scan() while something is mounted. */
		rc = follow ? mtp_hotplug_follow(m->hotplug, &spec)
			    : mtp_show_storage(m, &spec, &id);
		if (rc < 0) {
			mtp_prep_fail(m->flavour->name, i, spec.path, rc);
			return rc;
		}
		n++;
	}
	if (!n) {
		log_warnx("%s: no storage: set storage0_path to a folder",
			  m->flavour->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * As root, before the worker becomes uid:gid: each storage folder is
 * handed to the worker's user, or made for it when storageN_create asks
 * (mtp_prep.h).
 */
int mtp_prepare_as(struct plugin *p, uid_t uid, gid_t gid,
		   const struct mtp_flavour *f)
{
	char key[64];
	bool create, follow;
	int rc;

	for (unsigned i = 0; i < MTP_STORE_MAX; i++) {
		const char *path;

		snprintf(key, sizeof(key), "storage%u_create", i);
		if (plugin_option_bool(p, key, &create) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "storage%u_path", i);
		path = plugin_option(p, key);
		/* A followed mount point's file system is the mounter's: its
		 * owner and mode must let the worker in. */
		snprintf(key, sizeof(key), "storage%u_follow_mount", i);
		if (plugin_option_bool(p, key, &follow) < 0)
			return -EINVAL;
		if (path && follow)
			continue;
		if (!path && create) {
			log_warnx("%s: option storage%u_create without "
				  "storage%u_path", f->name, i, i);
			return -EINVAL;
		}
		if (!path)
			continue;
		rc = mtp_prep_storage(f->name, i, path, create, uid, gid);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void mtp_finish(void *priv)
{
	struct mtp *m = priv;

	if (!m)
		return;
	mtp_abort(m);
	mtp_hotplug_free(m->hotplug);
	mtp_events_free(m->events);
	mtp_ops_free(m->ops);
	mtp_store_free(m->store);
	for (unsigned i = 0; i < 5; i++)
		free(m->strings[i]);
	free(m->iobuf);
	free(m);
}

static void mtp_fill_desc(struct plugin_desc *d, const struct mtp_flavour *f)
{
	memset(d, 0, sizeof(*d));
	d->cls = 6; /* still image: what MTP and PTP hosts look for */
	d->subcls = 1;
	d->proto = 1;
	d->interface_string = f->interface_string;
	d->n_eps = 3;
	d->eps[MTP_EP_IN].type = PLUGIN_EP_BULK_IN;
	d->eps[MTP_EP_OUT].type = PLUGIN_EP_BULK_OUT;
	/* libmtp sends one synchronous 16 KiB transfer at a time; 64 KiB
	 * reads take four of them per completion (mtp-sendfile of 50 MB,
	 * medians of 4: 1.57 s with 16 KiB reads, 1.33 s with 64 KiB, 1.32 s
	 * with 32 KiB), 128 KiB (epio's largest) eight: fewer completions,
	 * writes and requests to allocate, which told on a loaded machine
	 * (2026-12-05, docs/benchmarks.md: the ffs-file bound out was
	 * higher with 128 KiB reads in each of three rounds, and so was
	 * mtp-sendfile in each of two). Commands still come in the small
	 * reads epio starts with. */
	d->eps[MTP_EP_OUT].rx_xfer = 128 * 1024;
	d->eps[MTP_EP_EVENT].type = PLUGIN_EP_INTR_IN;
	d->eps[MTP_EP_EVENT].intr_max_packet = 28;
	d->eps[MTP_EP_EVENT].intr_interval = 6;
	d->ms_compat_id = f->ms_compat_id;
}

int mtp_init_as(struct plugin *p, struct plugin_desc *desc, void **priv,
		const struct mtp_flavour *f)
{
	struct mtp *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return -ENOMEM;
	m->p = p;
	m->flavour = f;
	m->mps = 512;
	m->host_log = (struct log_burst)LOG_BURST_INIT(
	    "MTP messages about the host's behaviour", MTP_HOST_LOG_BURST,
	    MTP_HOST_LOG_WINDOW_S);
	m->reply.fd = -1;
	m->info.manufacturer = mtp_opt(m, "manufacturer", NULL, 0);
	m->info.model = mtp_opt(m, "model", NULL, 1);
	m->info.serial = mtp_opt(m, "serial", NULL, 2);
	m->info.version = mtp_opt(m, "version", NULL, 3);
	m->info.friendly_name = mtp_opt(m, "friendly_name", m->info.model, 4);
	m->info.ptp = f->ptp;
	m->info.tables = f->tables;
	rc = f->ptp ? 0 : plugin_option_bool(p, "android_extension",
					     &m->info.android_extension);
	if (rc < 0)
		goto fail;
	m->info.object_prop_lists = true;
	rc = f->ptp ? 0 : plugin_option_bool(p, "object_prop_lists",
					     &m->info.object_prop_lists);
	if (rc < 0)
		goto fail;
	/*
	 * A listing's buffers are big and live for one transaction (a
	 * whole-device list of 100 000 objects holds about 11 MB). glibc
	 * raises its mmap threshold to the largest mapped block freed, so
	 * the next ones come from the heap, which keeps them once freed: the
	 * worker held 770 bytes an object after listing 10 000 objects, 7.3
	 * MB of it heap (docs/benchmarks.md, b-scale-mtp). A threshold set
	 * by hand stays put: every block of 128 KiB or more is mapped apart
	 * and goes back to the system when freed.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	m->iobuf = malloc(MTP_XFER);
	m->store = mtp_store_new(f->name);
	rc = -ENOMEM;
	for (unsigned i = 0; i < 5; i++)
		if (!m->strings[i])
			goto fail;
	if (!m->iobuf || !m->store)
		goto fail;
	rc = mtp_start_hotplug(m);
	if (rc < 0)
		goto fail;
	rc = mtp_add_storages(m);
	if (rc < 0)
		goto fail;
	rc = -ENOMEM;
	m->ops = mtp_ops_new(m->store, &m->info);
	m->events =
	    mtp_events_new(f->name, plugin_loop(p), m->store, mtp_event, m);
	if (!m->ops)
		goto fail;
	if (!m->events)
		log_warn("%s: no inotify; the host will not see board changes",
			 m->flavour->name);
	/* Followed mount points that are mounted now; none when started
	 * locked (plugin.h: no host has seen them). */
	mtp_hotplug_scan(m->hotplug);
	mtp_hotplug_lock(m->hotplug, plugin_locked(p));
	mtp_fill_desc(desc, f);
	*priv = m;
	return 0;
fail:
	mtp_finish(m);
	return rc;
}
