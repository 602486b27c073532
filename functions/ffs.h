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
 * Check desc and write the FUNCTIONFS_DESCRIPTORS_MAGIC_V2 blob (FS, HS
 * and SS descriptors, MS OS descriptors when desc->ms_compat_id is set)
 * into buf. Returns 0 and the length in *len, -EINVAL for a desc the
 * kernel would refuse (the reason is logged), or -ENOSPC.
 */
int ffs_descs_build(const struct plugin_desc *desc, uint8_t *buf, size_t size,
		    size_t *len);

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

/* fd stays owned by the caller (the loop); ffs_ep0 only reads/writes it. */
struct ffs_ep0 *ffs_ep0_new(int fd, const struct ffs_ep0_ops *ops,
			    void *data);
void ffs_ep0_free(struct ffs_ep0 *e);

/*
 * Read what ep0 has and dispatch every complete event. Returns the number
 * of events dispatched, -EAGAIN when nothing was there, -ESHUTDOWN at end
 * of file, -EPROTO at end of file in the middle of a record, or -errno of
 * a failed read. Unknown event types are logged and skipped.
 */
int ffs_ep0_dispatch(struct ffs_ep0 *e);

/* Counters, for status and tests. */
unsigned ffs_ep0_stalls(const struct ffs_ep0 *e);
unsigned ffs_ep0_skipped(const struct ffs_ep0 *e);

#endif
