/*
 * nftdl: libnftables, loaded the first time gadgetd needs it (an uplink
 * share, or the clean-up of one an earlier gadgetd left), not at start:
 * it and what it pulls in (libnftnl, libxtables, libjansson, libgmp) were
 * about 600 KiB of every gadgetd's memory, 120 KiB of it its own, on
 * boards that never share.
 */
#ifndef GADGETD_NFTDL_H
#define GADGETD_NFTDL_H

#include <stddef.h>
#include <stdint.h>

struct nft_ctx;

/* The library's calls uplink.c makes (libnftables(3)). */
struct nftdl {
	struct nft_ctx *(*ctx_new)(uint32_t flags);
	void (*ctx_free)(struct nft_ctx *ctx);
	int (*buffer_output)(struct nft_ctx *ctx);
	int (*buffer_error)(struct nft_ctx *ctx);
	const char *(*get_error_buffer)(struct nft_ctx *ctx);
	int (*run_cmd_from_buffer)(struct nft_ctx *ctx, const char *buf);
};

/* Loads the library the first time: its calls, or NULL with why set
 * (the library or one of its calls is missing). Kept loaded after. */
const struct nftdl *nftdl_get(char *why, size_t size);

/* 0 when the kernel gives this process a netfilter netlink socket, or
 * -errno with why set. libnftables opens one for a context and ends the
 * process where it cannot ("Unable to initialize Netlink socket"): a
 * seccomp filter, a kernel without nfnetlink, qemu-user. Asked before
 * every use, so that gadgetd fails the share instead. */
int nftdl_netlink(char *why, size_t size);

#endif
