/*
 * adb_meta: the adb plugin's declaration (common/plugin_meta.h): what
 * gadgetd, gadgetctl and the worker know about it without loading it.
 */
#include "plugin_meta.h"

static const struct optdesc adb_meta_options[] = {
	{ .name = "auth", .type = OPTDESC_BOOL, .def = "true",
	  .help = "require the host's key to be in keys (off: any host gets a shell)" },
	{ .name = "keys", .type = OPTDESC_PATH, .def = SYSCONFDIR "/gadgetd/adb_keys",
	  .help = "the trusted public keys, one per line" },
	{ .name = "shell", .type = OPTDESC_PATH, .def = "/bin/sh",
	  .help = "the shell that runs adb shell commands" },
	{ .name = "reboot_command", .type = OPTDESC_STRING,
	  .help = "what adb reboot runs (absent: refused)" },
	{ .name = "product", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.name in the banner" },
	{ .name = "model", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.model in the banner" },
	{ .name = "device", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.device in the banner" },
	{ .name = "tcp", .type = OPTDESC_INT, .min = 0, .max = 65535, .def = "0",
	  .help = "listen for adb over TCP on this port (0: off; 5555 is adb's)" },
	{ .name = "tcp_interface", .type = OPTDESC_STRING, .max = 15,
	  .help = "the interface TCP listens on (absent: the gadget's network functions; \"*\": all)" },
	{ .name = "tcpip", .type = OPTDESC_BOOL, .def = "false",
	  .help = "let an authorized host start and stop TCP (adb tcpip PORT, adb usb)" },
	{ .name = "lock_gated", .type = OPTDESC_BOOL, .def = "true",
	  .help = "while the device is locked (gadgetctl lock), new hosts stay unauthorized" },
	{ .name = "lock_close", .type = OPTDESC_BOOL, .def = "false",
	  .help = "at lock, end the sessions of hosts already online (they wait, unauthorized, for the unlock)" },
	{ .name = "tcp_auth_timeout", .type = OPTDESC_INT, .min = 1, .max = 3600,
	  .def = "60", .help = "seconds a TCP peer has to get authorized" },
	{ 0 }
};

/* "adb keys" only lists the pending keys; "adb allow" changes trust. */
static const struct plugin_command adb_meta_commands[] = {
	{ "keys", "", "the keys hosts offered that are not trusted yet",
	  PLUGIN_ACCESS_READ },
	{ "allow", "FINGERPRINT", "trust a pending key (added to the keys file)",
	  PLUGIN_ACCESS_ADMIN },
	{ 0 }
};

/*
 * Every system call the adb worker makes once it runs, beyond the
 * runtime's (functions/runtime/sandbox.c): files for sync (and the keys file
 * that `gadgetctl adb allow` rewrites), sockets for forward and reverse,
 * kill for a shell's session, and what OpenSSL reads when it checks a
 * signature. fork and execve are not here: the spawner starts programs.
 */
static const char *const adb_meta_syscalls[] = {
	"openat", "open", "stat", "lstat", "getdents64", "mkdir", "mkdirat",
	"unlink", "unlinkat", "symlink", "symlinkat", "readlink",
	"readlinkat", "rename", "renameat", "renameat2", "utimensat",
	"fchmod", "fsync", "fdatasync", "ftruncate", "fadvise64",
	"access", "faccessat", "faccessat2", "statfs", "fstatfs",
	"socket", "connect", "bind", "listen", "accept4", "setsockopt",
	"getsockopt", "getsockname", "getpeername", "shutdown",
	"kill", "uname", "sysinfo",
	/* 32-bit ARM's names for some of the above (sandbox.c). */
	"stat64", "lstat64", "ftruncate64", "fstatfs64", "statfs64",
	"arm_fadvise64_64", "utimensat_time64",
	NULL,
};

static const struct plugin_meta_root adb_meta_root = {
	.request = "adb root",
	.undo = "adb unroot",
};

static const struct plugin_meta_tcp adb_meta_tcp = {
	.port = "tcp",
	.tcpip = "tcpip",
	.interface = "tcp_interface",
	.service = "_adb._tcp",
};

/* A host key waits for `gadgetctl adb allow` (adb.c reports its
 * fingerprint under waiting_key). */
static const struct plugin_meta_event adb_meta_events[] = {
	{ "waiting_key", "adb-key" },
	{ 0 }
};

const struct plugin_meta adb_meta = {
	.name = "adb",
	.options = adb_meta_options,
	.user = "gadgetd-adb",
	.user_gecos = "gadgetd adb worker",
	.commands = adb_meta_commands,
	.root = &adb_meta_root,
	.keys_option = "keys",
	.tcp = &adb_meta_tcp,
	.events = adb_meta_events,
	.syscalls = adb_meta_syscalls,
	.spawns = true,
};
