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

/* "echo stats" only reads counters. */
static const char *const echo_meta_read_commands[] = { "stats", NULL };

const struct plugin_meta echo_meta = {
	.name = "echo",
	.options = echo_meta_options,
	.read_commands = echo_meta_read_commands,
};
