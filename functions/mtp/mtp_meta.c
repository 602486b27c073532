/*
 * mtp_meta: the MTP plugin's declaration (common/plugin_meta.h): what
 * gadgetd, gadgetctl and the worker know about it without loading it.
 * Storages are numbered 0 to MTP_STORE_MAX - 1.
 */
#include "mtp_meta.h"

static const struct optdesc mtp_meta_options[] = {
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
	{ .name = "object_prop_lists", .type = OPTDESC_BOOL, .def = "true",
	  .help = "list GetObjectPropList and GetObjectPropsSupported in DeviceInfo" },
	{ .name = "storageN_readonly", .type = OPTDESC_BOOL, .def = "false",
	  .count = MTP_STORE_MAX, .help = "storage N refuses changes" },
	MTP_META_STORAGE_OPTIONS,
	{ .name = "lock_gated", .type = OPTDESC_BOOL, .def = "true",
	  .help = "while the device is locked (gadgetctl lock), the host sees no storage" },
	{ 0 }
};

static const struct plugin_command mtp_meta_commands[] = {
	MTP_META_STATS_COMMAND,
	MTP_META_STORAGE_COMMAND,
	{ 0 }
};

static const char *const mtp_meta_syscalls[] = { MTP_META_SYSCALLS, NULL };

const struct plugin_meta mtp_meta = {
	.name = "mtp",
	.options = mtp_meta_options,
	.user = "gadgetd-mtp",
	.user_gecos = "gadgetd MTP worker",
	.commands = mtp_meta_commands,
	.syscalls = mtp_meta_syscalls,
};
