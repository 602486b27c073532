/* Plugins for test_loader and test_describe: built as fake_abi_ok.so (this ABI),
 * fake_abi_other.so (the next one) and fake_abi_none.so (no ops). */
#include "plugin.h"

#if defined(FAKE_ABI_ok)
/* A declaration, for test_describe. */
static const struct optdesc fake_options[] = {
	{ .name = "size", .type = OPTDESC_INT, .min = 1, .max = 9, .def = "3",
	  .help = "a size" },
	{ 0 }
};
static const struct plugin_command fake_commands[] = {
	{ "poke", "", "pokes", PLUGIN_ACCESS_READ },
	{ 0 }
};
static const struct plugin_meta fake_meta = {
	.name = "fake", .options = fake_options, .commands = fake_commands,
};
const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "fake",
	.meta = &fake_meta,
};
#elif defined(FAKE_ABI_other)
const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION + 1,
	.name = "fake",
};
#else
const struct plugin_ops gadgetd_plugin_misspelled = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "fake",
};
#endif
