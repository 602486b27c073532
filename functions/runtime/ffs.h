/*
 * ffs: the FunctionFS control side of a worker.
 *
 * Builds the descriptor and strings blobs that are written to ep0 from a
 * plugin's struct plugin_desc, and reads ep0's event stream, answering
 * SETUP requests through a small callback table.
 *
 * Endpoint i of plugin_desc.eps gets the FunctionFS address i + 1 (with
 * USB_DIR_IN for IN endpoints); the kernel maps it to a real endpoint.
 */
#ifndef GADGETD_FFS_H
#define GADGETD_FFS_H

#include "plugin.h"

#include <linux/usb/functionfs.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bulk wMaxPacketSize per speed, and the SuperSpeed burst we announce. */
#define FFS_BULK_FS 64
#define FFS_BULK_HS 512
#define FFS_BULK_SS 1024
#define FFS_SS_BULK_BURST 4

/* Large enough for any blob a valid plugin_desc produces. */
#define FFS_DESCS_MAX 2048
#define FFS_STRINGS_MAX 512

/* Longest interface string (a USB string descriptor holds 126 UTF-16). */
#define FFS_STRING_MAX_LEN 126
/* Longest MS OS property name and value, in bytes without the NUL. */
#define FFS_PROP_MAX_LEN 127

/*
 * bcdVersion of the MS OS descriptor headers. f_fs of Debian 13's 6.12
 * takes the MS specification's 0x0100, and 0x0001 only with a warning
 * that the user-space driver should be fixed; f_fs of Debian 12's 6.1
 * takes 0x0001 only and refuses the descriptors with EINVAL otherwise.
 * The worker writes 0x0100 and, when that is refused, 0x0001.
 */
#define FFS_OS_BCD 0x0100
#define FFS_OS_BCD_OLD 0x0001

/*
 * Check desc and write the FUNCTIONFS_DESCRIPTORS_MAGIC_V2 blob (FS, HS
 * and SS descriptors, MS OS descriptors with bcdVersion os_bcd when
 * desc->ms_compat_id is set) into buf. Returns 0 and the length in
 * *len, -EINVAL for a desc the kernel would refuse (the reason is
 * logged), or -ENOSPC.
 */
int ffs_descs_build(const struct plugin_desc *desc, uint16_t os_bcd,
		    uint8_t *buf, size_t size, size_t *len);

/* An IN endpoint (device to host): bulk IN or interrupt IN. */
bool ffs_ep_is_in(enum plugin_ep_type t);

/* The FUNCTIONFS_STRINGS_MAGIC blob: language 0x0409, iInterface only. */
int ffs_strings_build(const struct plugin_desc *desc, uint8_t *buf,
		      size_t size, size_t *len);

/* One ep0 event, decoded. */
struct ffs_event {
	enum usb_functionfs_event_type type;
	struct usb_ctrlrequest setup; /* SETUP only; fields in host order */
};

/*
 * Decode one 12-byte event record. Returns 0, -EINVAL when len is not 12,
 * -EBADMSG for an unknown event type.
 */
int ffs_event_parse(const uint8_t *rec, size_t len, struct ffs_event *ev);

struct ffs_ep0;

struct ffs_ep0_ops {
	/* BIND, UNBIND, ENABLE, DISABLE, SUSPEND, RESUME. */
	void (*event)(void *data, enum usb_functionfs_event_type type);
	/* Same contract as plugin_ops.setup / setup_data; NULL stalls. */
	int (*setup)(void *data, const struct usb_ctrlrequest *req,
		     uint8_t *in);
	void (*setup_data)(void *data, const struct usb_ctrlrequest *req,
			   const uint8_t *buf, size_t len);
};

/*
 * fd stays owned by the caller (the loop); ffs_ep0 only reads/writes it.
 * The data and status stages of control requests run on a thread that
 * ffs_ep0_new() starts (f_fs waits for the host there even with
 * O_NONBLOCK): create it after the credentials are dropped (the thread
 * keeps the creating thread's capabilities) and install the seccomp
 * filter for all threads (sandbox_lock() does). Sets errno on NULL.
 */
struct ffs_ep0 *ffs_ep0_new(int fd, const struct ffs_ep0_ops *ops,
			    void *data);
/* Cuts a stage still in flight short, then ends the thread. */
void ffs_ep0_free(struct ffs_ep0 *e);

/* The stage thread is interrupted with this signal; ffs_ep0_new()
 * installs a handler for it that does nothing. */
#define FFS_EP0_SIGNAL SIGUSR2

/*
 * How long a host gets for the data or status stage of a request it
 * started: hosts give up on a control transfer after 5 s (Linux's
 * USB_CTRL_GET_TIMEOUT), so after that nobody waits for the answer.
 */
#define FFS_EP0_STAGE_MS 5000

/*
 * Read what ep0 has and dispatch every complete event. Returns the number
 * of events dispatched, -EAGAIN when nothing was there, -ESHUTDOWN at end
 * of file, -EPROTO at end of file in the middle of a record, -EBUSY while
 * a stage is in flight, or -errno of a failed read. Unknown event types
 * are logged and skipped.
 *
 * A SETUP the plugin accepts hands its data (or status) stage to the
 * thread and ends the dispatch: ffs_ep0_busy() is then true, and until
 * ffs_ep0_finish() the caller must not poll ep0 (f_fs reports it readable
 * all along) nor call ffs_ep0_dispatch().
 */
int ffs_ep0_dispatch(struct ffs_ep0 *e);

/* A stage is in flight. */
bool ffs_ep0_busy(const struct ffs_ep0 *e);

/* Readable (an eventfd) when a stage has ended: then call ffs_ep0_finish(). */
int ffs_ep0_done_fd(const struct ffs_ep0 *e);

/*
 * Take the ended stage back: hand an OUT request's data to setup_data,
 * then dispatch the events read before it. Returns what
 * ffs_ep0_dispatch() returns for those, or -EAGAIN when no stage ended.
 */
int ffs_ep0_finish(struct ffs_ep0 *e);

/*
 * The host let the stage wait too long (FFS_EP0_STAGE_MS): interrupt it;
 * the thread stalls the request and the stage ends (counted in stalls
 * and timeouts). Call it again every 100 ms or so until it ended: a
 * signal that comes just before the thread's read is lost.
 */
void ffs_ep0_abort(struct ffs_ep0 *e);

/* Counters, for status and tests. */
unsigned ffs_ep0_stalls(const struct ffs_ep0 *e);
unsigned ffs_ep0_skipped(const struct ffs_ep0 *e);
unsigned ffs_ep0_timeouts(const struct ffs_ep0 *e);

#endif
