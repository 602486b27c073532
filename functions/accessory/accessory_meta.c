/*
 * accessory_meta: the accessory plugin's declaration
 * (common/plugin_meta.h): what gadgetd, gadgetctl and the worker know
 * about it without loading it.
 */
#include "plugin_meta.h"

static const char *const accessory_meta_modes[] = { "control", "data", NULL };

static const struct optdesc accessory_meta_options[] = {
	{ .name = "mode", .type = OPTDESC_ENUM, .choices = accessory_meta_modes,
	  .required = true,
	  .help = "control: answer the AOA requests and switch; data: the accessory interface" },
	{ .name = "state_dir", .type = OPTDESC_PATH, .def = RUNDIR "/gadgetd/accessory",
	  .help = "where the strings and the socket live" },
	{ .name = "with_adb", .type = OPTDESC_BOOL, .def = "false",
	  .help = "switch to accessory,adb rather than accessory" },
	{ .name = "accessory_set", .type = OPTDESC_STRING, .max = 255,
	  .help = "the set START switches to (default from with_adb)" },
	{ .name = "claim_timeout_ms", .type = OPTDESC_INT, .min = 0, .max = 86400000,
	  .def = "10000", .help = "ms an application has to claim the accessory" },
	{ .name = "disconnect_timeout_ms", .type = OPTDESC_INT, .min = 0, .max = 86400000,
	  .def = "3000", .help = "ms without a host before reverting" },
	{ .name = "socket_group", .type = OPTDESC_STRING, .max = 32,
	  .help = "the group that may connect to the socket" },
	{ .name = "socket", .type = OPTDESC_PATH,
	  .help = "the data socket (default: state_dir/accessory.sock)" },
	{ 0 }
};

/* What the accessory worker does once it runs: the board application's
 * socket and the handshake's strings in its state folder. */
static const char *const accessory_meta_syscalls[] = {
	"accept4", "accept", "shutdown", "getsockopt", "openat", "open",
	"rename", "renameat", "renameat2", "unlink", "unlinkat", "fsync",
	"fchmod", "mkdir", "mkdirat",
	NULL,
};

/* START switches to accessory_set, or to accessory[,adb] by with_adb. */
static const char *accessory_meta_switch_set(const char *(*option)(const char *key,
								   const void *ctx),
					     const void *ctx)
{
	const char *set = option("accessory_set", ctx);
	const char *adb = option("with_adb", ctx);

	if (set)
		return set;
	if (!adb)
		adb = optdesc_default(accessory_meta_options, "with_adb");
	return optdesc_bool(adb) == 1 ? "accessory,adb" : "accessory";
}

/* "accessory revert" switches the gadget: not the group's. */
static const struct plugin_command accessory_meta_commands[] = {
	{ "revert", "", "leave accessory mode: back to the set before it",
	  PLUGIN_ACCESS_ADMIN },
	{ 0 }
};

const struct plugin_meta accessory_meta = {
	.name = "accessory",
	.options = accessory_meta_options,
	.user = "gadgetd-aoa",
	.user_gecos = "gadgetd accessory worker",
	.commands = accessory_meta_commands,
	.syscalls = accessory_meta_syscalls,
	.switch_set = accessory_meta_switch_set,
};
