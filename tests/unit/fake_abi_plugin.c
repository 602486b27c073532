/* Plugins for test_loader: built as fake_abi_ok.so (this ABI),
 * fake_abi_other.so (the next one) and fake_abi_none.so (no ops). */
#include "plugin.h"

#if defined(FAKE_ABI_ok)
const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "fake",
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
