/*
 * echo_meta: the echo test plugin's declaration (common/plugin_meta.h).
 * Its worker runs as the fallback user, gadgetd-worker.
 */
#include "plugin_meta.h"

static const struct optdesc echo_meta_options[] = {
	{ .name = "ms_os", .type = OPTDESC_BOOL, .def = "true",
	  .help = "offer a WinUSB MS OS compat ID" },
	{ 0 }
};

/* "echo forbidden", the loopback suite's proof that the worker's seccomp
 * filter holds, is a test hook left undeclared: root's alone. */
static const struct plugin_command echo_meta_commands[] = {
	{ "stats", "", "bytes in and out, zero-length packets, enables",
	  PLUGIN_ACCESS_READ },
	{ 0 }
};

const struct plugin_meta echo_meta = {
	.name = "echo",
	.options = echo_meta_options,
	.commands = echo_meta_commands,
};
