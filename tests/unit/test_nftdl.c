/*
 * gadgetd/net/nftdl.c against the real libnftables (a build dependency):
 * the library loads on the first call, every call uplink.c makes is
 * there (a context made, buffered, read and freed; no command run), and
 * the second call gives the same calls without loading again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <nftables/libnftables.h>

#include "nftdl.h"

static void test_loads_and_works(void **state)
{
	char why[256] = "";
	const struct nftdl *n = nftdl_get(why, sizeof(why));
	struct nft_ctx *ctx;
	const char *err;

	assert_non_null(n);
	assert_string_equal(why, "");
	ctx = n->ctx_new(NFT_CTX_DEFAULT);
	assert_non_null(ctx);
	assert_int_equal(n->buffer_output(ctx), 0);
	assert_int_equal(n->buffer_error(ctx), 0);
	/* No command is run: libnftables opens a netlink socket for one and
	 * exits the process where it cannot (qemu-user in check-cross). */
	assert_non_null(n->run_cmd_from_buffer);
	err = n->get_error_buffer(ctx);
	assert_non_null(err);
	assert_string_equal(err, "");
	n->ctx_free(ctx);
	assert_ptr_equal(nftdl_get(why, sizeof(why)), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_and_works),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
