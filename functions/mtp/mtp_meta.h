/*
 * mtp_meta: what the declarations of the mtp plugin (mtp_meta.c) and of
 * its PTP sibling (functions/ptp/ptp_meta.c) share, as initializers: the
 * storage options both read (mtp.c) and the system calls of the code
 * both run. Header only.
 */
#ifndef GADGETD_MTP_META_H
#define GADGETD_MTP_META_H

#include "mtp_store.h"
#include "plugin_meta.h"

/* The storage options, but storageN_readonly (PTP has `writable`). */
#define MTP_META_STORAGE_OPTIONS                                              \
	{ .name = "storageN_path", .type = OPTDESC_PATH, .count = MTP_STORE_MAX, \
	  .help = "the folder storage N serves" },                            \
	{ .name = "storageN_description", .type = OPTDESC_STRING, .max = 126, \
	  .count = MTP_STORE_MAX, .help = "storage N's name (default: its path)" }, \
	{ .name = "storageN_create", .type = OPTDESC_BOOL, .def = "false",    \
	  .count = MTP_STORE_MAX, .help = "make storage N's folder if missing" }, \
	{ .name = "storageN_reserve_mb", .type = OPTDESC_INT, .min = 0,       \
	  .max = 1LL << 30, .def = "0", .count = MTP_STORE_MAX,               \
	  .help = "MiB of storage N's file system kept free" },               \
	{ .name = "storageN_reserve_inodes", .type = OPTDESC_INT, .min = 0,   \
	  .max = 1LL << 32, .def = "4096", .count = MTP_STORE_MAX,            \
	  .help = "inodes of storage N's file system kept free" },        \
	{ .name = "storageN_follow_mount", .type = OPTDESC_BOOL, .def = "false", \
	  .count = MTP_STORE_MAX,                                             \
	  .help = "storage N is shown only while a file system is mounted on its path" }, \
	{ .name = "storage_add_under", .type = OPTDESC_PATH,                  \
	  .help = "`storage add` takes only folders below this one" }

/* The one command both answer (mtp_command_op(), mtp.c): it only reads. */
#define MTP_META_STATS_COMMAND                                                \
	{ "stats", "", "the session's state and the bytes moved",             \
	  PLUGIN_ACCESS_READ }

/* Storages added and removed at run time (mtp_hotplug.h): they change
 * what the host sees, so root and admin_group alone. */
#define MTP_META_STORAGE_COMMAND                                              \
	{ "storage", "add PATH [--name NAME] [--ro] | remove NAME|ID | list", \
	  "storages shown to the host at run time", PLUGIN_ACCESS_ADMIN }

/* What the worker does once it runs: the storage's files and folders,
 * their change notifications and free space. */
#define MTP_META_SYSCALLS                                                     \
	"openat", "open", "getdents64", "mkdirat", "mkdir", "unlinkat",       \
	"unlink", "rmdir", "renameat", "renameat2", "rename", "linkat",       \
	"readlinkat", "ftruncate", "fallocate", "fsync", "fdatasync",         \
	"fstatfs", "statfs", "copy_file_range", "sendfile", "fadvise64",      \
	"utimensat", "fchmod", "dup", "dup3", "openat2", "faccessat",         \
	"faccessat2",                                                         \
	"inotify_add_watch", "inotify_rm_watch",                              \
	/* 32-bit ARM's names for some of the above (sandbox.c). */           \
	"ftruncate64", "fstatfs64", "statfs64", "arm_fadvise64_64",           \
	"utimensat_time64"

#endif
