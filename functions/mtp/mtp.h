/*
 * mtp: the MTP responder plugin (gadgetd_plugin) over FunctionFS.
 *
 * This module owns the USB side: descriptors, options, the bulk
 * container framing (command, data and response phases, header and data
 * merged or split, ZLPs both ways), the class requests on ep0 and the
 * event endpoint. What an operation does is mtp_ops' business.
 *
 * Options: storage0_path .. storage7_path (existing folders),
 * storageN_description, storageN_readonly ("true"/"false"),
 * storageN_reserve_mb (MiB writes must leave free, digits only),
 * manufacturer, model, serial, version, friendly_name.
 *
 * The ops table itself (gadgetd_plugin) is in mtp_plugin.c, so that the
 * ptp plugin (functions/ptp/ptp.c) links this module with a table of its
 * own.
 */
#ifndef GADGETD_MTP_H
#define GADGETD_MTP_H

#include "plugin.h"

struct mtp;
struct mtp_hotplug_spec; /* mtp_hotplug.h */
struct mtp_ops_tables;	 /* mtp_ops.h */

/* Endpoint indexes in our plugin_desc. */
#define MTP_EP_IN 0
#define MTP_EP_OUT 1
#define MTP_EP_EVENT 2

/* Size of the transfers a file is streamed in: a multiple of every
 * wMaxPacketSize, large enough to keep the IN queue busy. */
#define MTP_XFER (256 * 1024)

/*
 * What tells the MTP responder from its PTP sibling (functions/ptp/): the
 * same transport, operations and store, with these differences only.
 */
struct mtp_flavour {
	const char *name; /* what the worker's log lines start with: "mtp" */
	/*
	 * PTP (ISO 15740) as a camera: DeviceInfo names no vendor extension
	 * and no device property, there is no android_extension or
	 * object_prop_lists option, and the storages are read-only unless
	 * the option `writable` is true (instead of storageN_readonly).
	 */
	bool ptp;
	/* What the operations do differently (PTP's: only its operations,
	 * with GetThumb, and image formats alone get codes), or NULL for
	 * MTP's own (mtp_ops.h). */
	const struct mtp_ops_tables *tables;
	const char *interface_string; /* iInterface: "MTP" (libmtp looks for it) */
	const char *ms_compat_id;     /* "MTP" for Windows, or NULL */
};

/*
 * The plugin's callbacks, shared by the mtp and ptp plugins: each defines
 * its gadgetd_plugin with MTP_PLUGIN_OPS, naming its declaration (meta),
 * a prepare that calls mtp_prepare_as() and an init that calls
 * mtp_init_as(), each with its flavour. f must outlive the plugin.
 */
int mtp_init_as(struct plugin *p, struct plugin_desc *desc, void **priv,
		const struct mtp_flavour *f);
int mtp_prepare_as(struct plugin *p, uid_t uid, gid_t gid,
		   const struct mtp_flavour *f);
void mtp_finish(void *priv);
void mtp_enable(void *priv);
void mtp_disable(void *priv);
int mtp_setup(void *priv, const struct usb_ctrlrequest *req, uint8_t *in);
void mtp_setup_data(void *priv, const struct usb_ctrlrequest *req,
		    const uint8_t *data, size_t len);
void mtp_rx(void *priv, unsigned ep, const uint8_t *data, size_t len);
void mtp_tx_drained(void *priv, unsigned ep);
int mtp_command_op(void *priv, int argc, char **argv, char *reply,
		   size_t size);
/* Locked: every storage hidden until the unlock (mtp_hotplug_lock). */
void mtp_lock(void *priv, bool locked);

#define MTP_PLUGIN_OPS(name_, meta_, prepare_, init_)                         \
	{                                                                     \
		.abi_version = PLUGIN_ABI_VERSION, .name = (name_),           \
		.meta = (meta_), .prepare = (prepare_), .init = (init_),      \
		.finish = mtp_finish, .enable = mtp_enable,                   \
		.disable = mtp_disable, .setup = mtp_setup,                   \
		.setup_data = mtp_setup_data, .rx = mtp_rx,                   \
		.tx_drained = mtp_tx_drained, .command = mtp_command_op,      \
		.lock = mtp_lock,                                             \
	}

/*
 * Show a storage to the host (spec as mtp_hotplug.h says), or hide one,
 * while the host stays connected: the mechanism of `mtp storage add` and
 * `remove` and of followed mount points, and the one a locked device's
 * hidden storages are to use. Showing adds it to the store (*id gets a
 * storage id never given before in this worker) and sends StoreAdded;
 * hiding ends what is in flight on it (an upload's partial file is
 * removed, the transfer ends with Store_Not_Available), forgets its
 * handles for good and sends StoreRemoved. Events go only to a host with
 * an open session. 0 or -errno (-ENOENT: no storage id).
 */
int mtp_show_storage(struct mtp *m, const struct mtp_hotplug_spec *spec,
		     uint32_t *id);
int mtp_hide_storage(struct mtp *m, uint32_t id);

extern const struct plugin_ops gadgetd_plugin;

#endif
