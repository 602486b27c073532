/* nftdl: libnftables loaded when first needed (nftdl.h). */
#include "nftdl.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The soname Debian's libnftables1 ships. */
#define NFTDL_SONAME "libnftables.so.1"

const struct nftdl *nftdl_get(char *why, size_t size)
{
	static struct nftdl calls;
	static const char *const names[] = {
		"nft_ctx_new", "nft_ctx_free", "nft_ctx_buffer_output",
		"nft_ctx_buffer_error", "nft_ctx_get_error_buffer",
		"nft_run_cmd_from_buffer",
	};
	void *syms[sizeof(names) / sizeof(names[0])];
	static void *lib;
	const char *err;
	unsigned i;

	if (lib)
		return &calls;
	lib = dlopen(NFTDL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		err = dlerror();
		snprintf(why, size, "cannot load %s (package libnftables1): %s", NFTDL_SONAME,
			 err ? err : "unknown error");
		return NULL;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		syms[i] = dlsym(lib, names[i]);
		if (!syms[i]) {
			snprintf(why, size, "%s has no %s", NFTDL_SONAME, names[i]);
			dlclose(lib);
			lib = NULL;
			return NULL;
		}
	}
	/* dlsym gives void *; each is the function libnftables.h declares. */
	*(void **)&calls.ctx_new = syms[0];
	*(void **)&calls.ctx_free = syms[1];
	*(void **)&calls.buffer_output = syms[2];
	*(void **)&calls.buffer_error = syms[3];
	*(void **)&calls.get_error_buffer = syms[4];
	*(void **)&calls.run_cmd_from_buffer = syms[5];
	return &calls;
}

int nftdl_netlink(char *why, size_t size)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	int e = errno;

	if (fd < 0) {
		snprintf(why, size, "cannot open a netfilter netlink socket: %s", strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}
