#include "loader.h"
#include "log.h"

#include <dlfcn.h>
#include <errno.h>

int loader_check_abi(const char *so, const struct plugin_ops *ops)
{
	if (ops->abi_version == PLUGIN_ABI_VERSION)
		return 0;
	log_warnx("%s: plugin ABI version %u, but this gadgetd-worker loads "
		  "version %u only; rebuild the plugin with this gadgetd", so,
		  (unsigned)ops->abi_version, PLUGIN_ABI_VERSION);
	return -EPROTO;
}

int loader_open(const char *so, void **dl, const struct plugin_ops **ops)
{
	int r;

	*dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!*dl) {
		log_warnx("cannot load plugin: %s", dlerror());
		return -ENOENT;
	}
	*ops = dlsym(*dl, "gadgetd_plugin");
	if (!*ops) {
		log_warnx("%s has no symbol gadgetd_plugin", so);
		r = -ENOENT;
	} else {
		r = loader_check_abi(so, *ops);
	}
	if (r < 0) {
		dlclose(*dl);
		*dl = NULL;
		*ops = NULL;
	}
	return r;
}
