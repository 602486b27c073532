/*
 * gadgetd/net/nftdl.c against the real libnftables (a build dependency):
 * the library loads on the first call with every call uplink.c makes, and
 * the second call gives the same calls without loading again; the
 * netfilter netlink check says what the kernel says.
 *
 * Where this process gets a netfilter netlink socket (the native unit
 * run), a context is made, buffered, read and freed. Where it does not
 * (qemu-user in check-cross, which has no NETLINK_NETFILTER), the check
 * must fail saying so: libnftables would end the process in nft_ctx_new
 * ("Unable to initialize Netlink socket"), which is what the check keeps
 * gadgetd from. Each run tests one of the two; both are asserted.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <nftables/libnftables.h>

#include "nftdl.h"

static void test_loads(void **state)
{
	char why[256] = "";
	const struct nftdl *n = nftdl_get(why, sizeof(why));

	assert_non_null(n);
	assert_string_equal(why, "");
	assert_non_null(n->ctx_new);
	assert_non_null(n->ctx_free);
	assert_non_null(n->buffer_output);
	assert_non_null(n->buffer_error);
	assert_non_null(n->get_error_buffer);
	assert_non_null(n->run_cmd_from_buffer);
	assert_ptr_equal(nftdl_get(why, sizeof(why)), n);
}

static void test_netlink_then_context(void **state)
{
	char why[256] = "";
	const struct nftdl *n = nftdl_get(why, sizeof(why));
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	int e = errno, r = nftdl_netlink(why, sizeof(why));
	struct nft_ctx *ctx;
	const char *err;

	assert_non_null(n);
	if (fd < 0) {
		/* The guard's case: refused, with the kernel's reason. */
		assert_int_equal(r, -e);
		assert_non_null(strstr(why, "netfilter netlink socket"));
		assert_non_null(strstr(why, strerror(e)));
		return;
	}
	close(fd);
	assert_int_equal(r, 0);
	ctx = n->ctx_new(NFT_CTX_DEFAULT);
	assert_non_null(ctx);
	assert_int_equal(n->buffer_output(ctx), 0);
	assert_int_equal(n->buffer_error(ctx), 0);
	err = n->get_error_buffer(ctx);
	assert_non_null(err);
	assert_string_equal(err, "");
	n->ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_netlink_then_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
