/*
 * ptp: the PTP plugin, a camera for photo importers (gphoto2, Shotwell,
 * Windows Photos, Image Capture), as Android's PTP mode is: the MTP
 * responder (functions/mtp/) in its PTP flavour, so that the USB framing,
 * the operations, the confined store and the inotify events stay one
 * code. What differs is the flavour below: its operations, events,
 * formats and thumbnails are ptp_tables.c's, and its log lines say "ptp".
 */
#include "mtp.h"
#include "ptp_tables.h"

extern const struct plugin_meta ptp_meta; /* ptp_meta.c */

/* A still-image interface with no MS OS compat id: Windows binds its
 * camera (WPD PTP) driver by class, as for any camera. */
static const struct mtp_flavour ptp_flavour = {
	.name = "ptp",
	.ptp = true,
	.tables = &ptp_tables,
	.interface_string = "PTP",
	.ms_compat_id = NULL,
};

static int ptp_prepare(struct plugin *p, uid_t uid, gid_t gid)
{
	return mtp_prepare_as(p, uid, gid, &ptp_flavour);
}

static int ptp_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	return mtp_init_as(p, desc, priv, &ptp_flavour);
}

const struct plugin_ops gadgetd_plugin =
    MTP_PLUGIN_OPS("ptp", &ptp_meta, ptp_prepare, ptp_init);
