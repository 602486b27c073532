/*
 * mtp_opts: the MTP plugin's options, declared once (see adb_opts.h).
 * Storages are numbered 0 to MTP_STORE_MAX - 1.
 */
#ifndef GADGETD_MTP_OPTS_H
#define GADGETD_MTP_OPTS_H

#include "optdesc.h"

#define MTP_OPTS_STORES 8 /* MTP_STORE_MAX */

static const struct optdesc mtp_opts[] = {
	{ .name = "manufacturer", .type = OPTDESC_STRING, .max = 126, .def = "gadgetd",
	  .help = "DeviceInfo Manufacturer" },
	{ .name = "model", .type = OPTDESC_STRING, .max = 126, .def = "gadgetd MTP",
	  .help = "DeviceInfo Model" },
	{ .name = "serial", .type = OPTDESC_STRING, .max = 126, .def = "0",
	  .help = "DeviceInfo SerialNumber" },
	{ .name = "version", .type = OPTDESC_STRING, .max = 126, .def = "1.0",
	  .help = "DeviceInfo DeviceVersion" },
	{ .name = "friendly_name", .type = OPTDESC_STRING, .max = 126,
	  .help = "the device's friendly name (default: model)" },
	{ .name = "android_extension", .type = OPTDESC_BOOL, .def = "false",
	  .help = "announce the Android MTP extensions" },
	{ .name = "storageN_path", .type = OPTDESC_PATH, .count = MTP_OPTS_STORES,
	  .help = "the folder storage N serves" },
	{ .name = "storageN_description", .type = OPTDESC_STRING, .max = 126,
	  .count = MTP_OPTS_STORES, .help = "storage N's name (default: its path)" },
	{ .name = "storageN_readonly", .type = OPTDESC_BOOL, .def = "false",
	  .count = MTP_OPTS_STORES, .help = "storage N refuses changes" },
	{ .name = "storageN_create", .type = OPTDESC_BOOL, .def = "false",
	  .count = MTP_OPTS_STORES, .help = "make storage N's folder if missing" },
	{ .name = "storageN_reserve_mb", .type = OPTDESC_INT, .min = 0, .max = 1LL << 30,
	  .def = "0", .count = MTP_OPTS_STORES,
	  .help = "MiB of storage N's file system kept free" },
	{ .name = "storageN_reserve_inodes", .type = OPTDESC_INT, .min = 0,
	  .max = 1LL << 32, .def = "4096", .count = MTP_OPTS_STORES,
	  .help = "inodes of storage N's file system kept free" },
	{ 0 }
};

#endif
