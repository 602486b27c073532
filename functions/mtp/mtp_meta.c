/*
 * mtp_meta: the MTP plugin's declaration (common/plugin_meta.h): what
 * gadgetd, gadgetctl and the worker know about it without loading it.
 * Storages are numbered 0 to MTP_STORE_MAX - 1.
 */
#include "mtp_store.h"
#include "plugin_meta.h"

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
	{ .name = "storageN_path", .type = OPTDESC_PATH, .count = MTP_STORE_MAX,
	  .help = "the folder storage N serves" },
	{ .name = "storageN_description", .type = OPTDESC_STRING, .max = 126,
	  .count = MTP_STORE_MAX, .help = "storage N's name (default: its path)" },
	{ .name = "storageN_readonly", .type = OPTDESC_BOOL, .def = "false",
	  .count = MTP_STORE_MAX, .help = "storage N refuses changes" },
	{ .name = "storageN_create", .type = OPTDESC_BOOL, .def = "false",
	  .count = MTP_STORE_MAX, .help = "make storage N's folder if missing" },
	{ .name = "storageN_reserve_mb", .type = OPTDESC_INT, .min = 0, .max = 1LL << 30,
	  .def = "0", .count = MTP_STORE_MAX,
	  .help = "MiB of storage N's file system kept free" },
	{ .name = "storageN_reserve_inodes", .type = OPTDESC_INT, .min = 0,
	  .max = 1LL << 32, .def = "4096", .count = MTP_STORE_MAX,
	  .help = "inodes of storage N's file system kept free" },
	{ 0 }
};

/* "mtp stats" only reads counters. */
static const char *const mtp_meta_group_commands[] = { "stats", NULL };

/* What the MTP worker does once it runs: the storage's files and
 * folders, their change notifications and free space. */
static const char *const mtp_meta_syscalls[] = {
	"openat", "open", "getdents64", "mkdirat", "mkdir", "unlinkat",
	"unlink", "rmdir", "renameat", "renameat2", "rename", "linkat",
	"readlinkat", "ftruncate", "fallocate", "fsync", "fdatasync",
	"fstatfs", "statfs", "copy_file_range", "sendfile", "fadvise64",
	"utimensat", "fchmod", "dup", "dup3", "openat2", "faccessat",
	"faccessat2",
	"inotify_add_watch", "inotify_rm_watch",
	/* 32-bit ARM's names for some of the above (sandbox.c). */
	"ftruncate64", "fstatfs64", "statfs64", "arm_fadvise64_64",
	"utimensat_time64",
	NULL,
};

const struct plugin_meta mtp_meta = {
	.name = "mtp",
	.options = mtp_meta_options,
	.user = "gadgetd-mtp",
	.user_gecos = "gadgetd MTP worker",
	.group_commands = mtp_meta_group_commands,
	.syscalls = mtp_meta_syscalls,
};
