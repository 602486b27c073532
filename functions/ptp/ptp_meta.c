/*
 * ptp_meta: the PTP plugin's declaration (common/plugin_meta.h). PTP is
 * the MTP responder in its camera flavour (functions/ptp/ptp.c): it
 * shares the storage options and the system calls of mtp_meta.c, and has
 * `writable` where MTP has storageN_readonly, since a camera's pictures
 * are read-only unless the profile says otherwise.
 */
#include "mtp_meta.h"

static const struct optdesc ptp_meta_options[] = {
	{ .name = "manufacturer", .type = OPTDESC_STRING, .max = 126, .def = "gadgetd",
	  .help = "DeviceInfo Manufacturer" },
	{ .name = "model", .type = OPTDESC_STRING, .max = 126, .def = "gadgetd PTP",
	  .help = "DeviceInfo Model" },
	{ .name = "serial", .type = OPTDESC_STRING, .max = 126, .def = "0",
	  .help = "DeviceInfo SerialNumber" },
	{ .name = "version", .type = OPTDESC_STRING, .max = 126, .def = "1.0",
	  .help = "DeviceInfo DeviceVersion" },
	{ .name = "writable", .type = OPTDESC_BOOL, .def = "false",
	  .help = "the host may delete and upload (default: read-only)" },
	MTP_META_STORAGE_OPTIONS,
	{ .name = "lock_gated", .type = OPTDESC_BOOL, .def = "true",
	  .help = "while the device is locked (gadgetctl lock), the host sees no storage" },
	{ 0 }
};

static const struct plugin_command ptp_meta_commands[] = {
	MTP_META_STATS_COMMAND,
	MTP_META_STORAGE_COMMAND,
	{ 0 }
};

static const char *const ptp_meta_syscalls[] = { MTP_META_SYSCALLS, NULL };

const struct plugin_meta ptp_meta = {
	.name = "ptp",
	.options = ptp_meta_options,
	.user = "gadgetd-mtp",
	.user_gecos = "gadgetd MTP worker",
	.commands = ptp_meta_commands,
	.syscalls = ptp_meta_syscalls,
};
