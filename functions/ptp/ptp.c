/*
 * ptp: the PTP plugin, a camera for photo importers (gphoto2, Shotwell,
 * Windows Photos, Image Capture), as Android's PTP mode is: the MTP
 * responder (functions/mtp/) in its PTP flavour, so that the USB framing,
 * the operations, the confined store and the inotify events stay one
 * code. What differs is the flavour below and the tables of mtp_ptp.c.
 */
#include "mtp.h"

extern const struct plugin_meta ptp_meta; /* ptp_meta.c */

/* A still-image interface with no MS OS compat id: Windows binds its
 * camera (WPD PTP) driver by class, as for any camera. */
static const struct mtp_flavour ptp_flavour = {
	.ptp = true,
	.interface_string = "PTP",
	.ms_compat_id = NULL,
};

static int ptp_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	return mtp_init_as(p, desc, priv, &ptp_flavour);
}

const struct plugin_ops gadgetd_plugin =
    MTP_PLUGIN_OPS("ptp", &ptp_meta, ptp_init);
