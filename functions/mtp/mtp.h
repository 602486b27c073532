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
 */
#ifndef GADGETD_MTP_H
#define GADGETD_MTP_H

#include "plugin.h"

/* Endpoint indexes in our plugin_desc. */
#define MTP_EP_IN 0
#define MTP_EP_OUT 1
#define MTP_EP_EVENT 2

/* Size of the transfers a file is streamed in: a multiple of every
 * wMaxPacketSize, large enough to keep the IN queue busy. */
#define MTP_XFER (256 * 1024)

extern const struct plugin_ops gadgetd_plugin;

#endif
