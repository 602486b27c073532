/*
 * Unit tests for gadgetd/net/uplink.c with libnftables and rtnetlink
 * faked: the nftables text of a share (masquerade and forward rules for
 * the link's subnet only, the uplink's answers back, drops for the rest,
 * "any" as a set of interfaces), malformed shares refused with nothing
 * written, and a table that nftables refuses leaving no forwarding on
 * and the share failed with nftables' words; libnftables missing (it is
 * loaded when first needed), or no netfilter netlink socket for it, fails
 * the share saying so, nothing touched.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <nftables/libnftables.h>

#include "nftdl.h"
#include "rtnl.h"
#include "uplink.h"

/* libnftables: the texts run, and whether the next table is refused. */
static char test_uplink_ran[8][4096];
static unsigned test_uplink_n_ran;
static bool test_uplink_refuse;
static int test_uplink_ctx;

/* Contexts made: libnftables opens its netlink socket there. */
static unsigned test_uplink_n_ctx;

struct nft_ctx *nft_ctx_new(uint32_t flags)
{
	test_uplink_n_ctx++;
	return (struct nft_ctx *)&test_uplink_ctx;
}

void nft_ctx_free(struct nft_ctx *ctx)
{
}

int nft_ctx_buffer_output(struct nft_ctx *ctx)
{
	return 0;
}

int nft_ctx_buffer_error(struct nft_ctx *ctx)
{
	return 0;
}

const char *nft_ctx_get_error_buffer(struct nft_ctx *ctx)
{
	return "Error: Could not process rule: No such file or directory\nmore\n";
}

int nft_run_cmd_from_buffer(struct nft_ctx *nft, const char *buf)
{
	if (test_uplink_n_ran < 8)
		snprintf(test_uplink_ran[test_uplink_n_ran++], sizeof(test_uplink_ran[0]), "%s", buf);
	/* A table with chains is refused when asked; removals never are. */
	return test_uplink_refuse && strstr(buf, "chain") ? -1 : 0;
}

/* nftdl.c's loader, faked: the calls above, or none (the library
 * missing) while test_uplink_nolib is set; no netfilter netlink socket
 * while test_uplink_nonl is. */
static bool test_uplink_nolib, test_uplink_nonl;

int nftdl_netlink(char *why, size_t size)
{
	if (!test_uplink_nonl)
		return 0;
	snprintf(why, size, "cannot open a netfilter netlink socket: test");
	return -EPROTONOSUPPORT;
}

const struct nftdl *nftdl_get(char *why, size_t size)
{
	static const struct nftdl calls = {
		nft_ctx_new, nft_ctx_free, nft_ctx_buffer_output, nft_ctx_buffer_error,
		nft_ctx_get_error_buffer, nft_run_cmd_from_buffer,
	};

	if (test_uplink_nolib) {
		snprintf(why, size, "cannot load libnftables.so.1 (package libnftables1): test");
		return NULL;
	}
	return &calls;
}

/* Forwarding turned on (+1) and off (-1) through rtnetlink. */
static int test_uplink_fwd;

int rtnl_link_forwarding(const char *ifname, bool on)
{
	test_uplink_fwd += on ? 1 : -1;
	return 0;
}

static struct uplink_share test_uplink_share(const char *link, const char *addr,
					     unsigned prefix, const char *uplink)
{
	struct uplink_share s;

	memset(&s, 0, sizeof(s));
	snprintf(s.function, sizeof(s.function), "ecm");
	snprintf(s.link, sizeof(s.link), "%s", link);
	snprintf(s.uplink, sizeof(s.uplink), "%s", uplink);
	inet_pton(AF_INET, addr, &s.addr);
	s.prefix = prefix;
	return s;
}

static void test_ruleset_named(void **state)
{
	struct uplink_share s = test_uplink_share("usb0", "10.12.0.1", 24, "eth0");
	const char *opened[] = { "eth0" };
	char buf[4096], why[200];

	assert_int_equal(uplink_ruleset(&s, 1, NULL, 0, opened, 1, buf, sizeof(buf), why,
					sizeof(why)), 0);
	assert_string_equal(buf,
		"table inet gadgetd\n"
		"delete table inet gadgetd\n"
		"table inet gadgetd {\n"
		"\tchain forward {\n"
		"\t\ttype filter hook forward priority filter; policy accept;\n"
		"\t\tiifname \"usb0\" ip saddr 10.12.0.0/24 oifname \"eth0\" accept\n"
		"\t\tiifname \"eth0\" oifname \"usb0\" ct state established,related accept\n"
		"\t\tiifname \"usb0\" drop\n"
		"\t\toifname \"usb0\" drop\n"
		"\t\tiifname \"eth0\" drop\n"
		"\t}\n"
		"\tchain postrouting {\n"
		"\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
		"\t\tip saddr 10.12.0.0/24 oifname \"eth0\" masquerade\n"
		"\t}\n"
		"}\n");
}

static void test_ruleset_any_and_none(void **state)
{
	struct uplink_share s = test_uplink_share("usb1", "192.168.7.9", 30, "any");
	const char *any[] = { "eth0", "wlan0" };
	char buf[4096], why[200];

	assert_int_equal(uplink_ruleset(&s, 1, any, 2, NULL, 0, buf, sizeof(buf), why,
					sizeof(why)), 0);
	assert_non_null(strstr(buf, "iifname \"usb1\" ip saddr 192.168.7.8/30 oifname "
				    "{ \"eth0\", \"wlan0\" } accept\n"));
	assert_non_null(strstr(buf, "ip saddr 192.168.7.8/30 oifname { \"eth0\", \"wlan0\" } "
				    "masquerade\n"));
	/* The uplink's forwarding was on before gadgetd: not dropped. */
	assert_null(strstr(buf, "iifname \"eth0\" drop"));
	/* No share: the table's removal alone, safe when it is not there. */
	assert_int_equal(uplink_ruleset(NULL, 0, NULL, 0, NULL, 0, buf, sizeof(buf), why,
					sizeof(why)), 0);
	assert_string_equal(buf, "table inet gadgetd\ndelete table inet gadgetd\n");
}

/* Refused with why naming the fault, and buf left empty. */
static void test_uplink_bad(const struct uplink_share *s, const char *const *any,
			    unsigned n_any, const char *const *opened, unsigned n_opened,
			    int want, const char *why_has)
{
	char buf[4096] = "x", why[200];

	assert_int_equal(uplink_ruleset(s, 1, any, n_any, opened, n_opened, buf, sizeof(buf),
					why, sizeof(why)), want);
	assert_string_equal(buf, "");
	if (!strstr(why, why_has))
		fail_msg("why \"%s\" lacks \"%s\"", why, why_has);
}

static void test_ruleset_malformed(void **state)
{
	struct uplink_share s = test_uplink_share("usb0", "10.12.0.1", 24, "eth0\"; flush ruleset");
	const char *bad[] = { "wl an0" };
	const char *good[] = { "eth0" };
	char small[64], why[200];

	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "is not an interface name");
	s = test_uplink_share("usb0}", "10.12.0.1", 24, "eth0");
	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "\"usb0}\"");
	s = test_uplink_share("", "10.12.0.1", 24, "eth0");
	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "not an interface name");
	s = test_uplink_share("usb0", "10.12.0.1", 31, "eth0");
	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "prefix /31 is not in 8..30");
	s = test_uplink_share("usb0", "10.12.0.1", 0, "eth0");
	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "prefix /0");
	s = test_uplink_share("usb0", "10.12.0.1", 24, "any");
	test_uplink_bad(&s, NULL, 0, NULL, 0, -EINVAL, "the board has no other interface");
	test_uplink_bad(&s, bad, 1, NULL, 0, -EINVAL, "\"wl an0\" is not an interface name");
	s = test_uplink_share("usb0", "10.12.0.1", 24, "eth0");
	test_uplink_bad(&s, NULL, 0, bad, 1, -EINVAL, "\"wl an0\"");
	assert_int_equal(uplink_ruleset(&s, 1, NULL, 0, good, 1, small, sizeof(small), why,
					sizeof(why)), -ENOSPC);
	assert_string_equal(small, "");
	assert_false(uplink_ifname_ok("a-very-long-name0"));
	assert_true(uplink_ifname_ok("enp0s31f6.100"));
}

/* An uplink on a new folder dir (a mkdtemp template) for its records. */
static struct uplink *test_uplink_open(char *dir)
{
	struct uplink *u;

	assert_non_null(mkdtemp(dir));
	u = uplink_new(dir);
	assert_non_null(u);
	return u;
}

/* u's one share failed, with no forwarding left on and no record left
 * in dir; info[0] is the share's. */
static void test_uplink_failed_clean(struct uplink *u, const char *dir,
				     struct uplink_info info[2])
{
	char rec[128];

	assert_int_equal(uplink_list(u, info, 2), 1);
	assert_int_equal(info[0].state, UPLINK_FAILED);
	assert_int_equal(test_uplink_fwd, 0);
	snprintf(rec, sizeof(rec), "%s/uplink-forwarding", dir);
	assert_int_equal(access(rec, F_OK), -1);
}

/* nftables refusing the table: no forwarding left on, the share failed
 * with nftables' first line, and no record left in run_dir. */
static void test_refused_leaves_nothing(void **state)
{
	char dir[] = "/tmp/test_uplink.XXXXXX", rec[128];
	struct uplink_share s = test_uplink_share("lo", "10.12.0.1", 24, "lo");
	struct uplink_info info[2];
	struct uplink *u = test_uplink_open(dir);

	test_uplink_refuse = true;
	test_uplink_fwd = 0;
	uplink_sync(u, &s, 1);
	test_uplink_failed_clean(u, dir, info);
	assert_string_equal(info[0].why,
			    "nftables: Error: Could not process rule: No such file or directory");
	snprintf(rec, sizeof(rec), "%s/uplink-forwarding", dir);
	/* No such uplink: failed before anything is touched. */
	test_uplink_refuse = false;
	test_uplink_n_ran = 0;
	s = test_uplink_share("lo", "10.12.0.1", 24, "gd-no-such0");
	uplink_sync(u, &s, 1);
	assert_int_equal(uplink_list(u, info, 2), 1);
	assert_int_equal(info[0].state, UPLINK_FAILED);
	assert_string_equal(info[0].why, "no such uplink interface gd-no-such0");
	assert_int_equal(test_uplink_fwd, 0);
	/* Accepted: on; then off again with the table gone. */
	s = test_uplink_share("lo", "10.12.0.1", 24, "lo");
	uplink_sync(u, &s, 1);
	assert_int_equal(uplink_list(u, info, 2), 1);
	assert_int_equal(info[0].state, UPLINK_ON);
	assert_string_equal(info[0].why, "");
	uplink_sync(u, NULL, 0);
	assert_int_equal(uplink_list(u, info, 2), 0);
	assert_int_equal(test_uplink_fwd, 0);
	assert_string_equal(test_uplink_ran[test_uplink_n_ran - 1],
			    "table inet gadgetd\ndelete table inet gadgetd\n");
	assert_int_equal(access(rec, F_OK), -1);
	uplink_free(u);
	rmdir(dir);
}

/* The share fails with *flag set, saying want, with no forwarding on,
 * no record, no context made and no command run. */
static void test_uplink_fails_with(bool *flag, const char *want)
{
	char dir[] = "/tmp/test_uplink.XXXXXX";
	struct uplink_share s = test_uplink_share("lo", "10.12.0.1", 24, "lo");
	struct uplink_info info[2];
	struct uplink *u = test_uplink_open(dir);

	*flag = true;
	test_uplink_fwd = 0;
	test_uplink_n_ran = 0;
	test_uplink_n_ctx = 0;
	uplink_sync(u, &s, 1);
	test_uplink_failed_clean(u, dir, info);
	assert_non_null(strstr(info[0].why, want));
	assert_int_equal(test_uplink_n_ran, 0);
	assert_int_equal(test_uplink_n_ctx, 0);
	*flag = false;
	uplink_free(u);
	rmdir(dir);
}

/* libnftables not installed (it is loaded when first needed): the share
 * fails saying which package, nothing touched. */
static void test_no_library(void **state)
{
	test_uplink_fails_with(&test_uplink_nolib, "package libnftables1");
}

/* No netfilter netlink socket for gadgetd: libnftables would end the
 * process, so no context is made and the share fails saying why. */
static void test_no_netlink(void **state)
{
	test_uplink_fails_with(&test_uplink_nonl, "netfilter netlink socket");
}

/* What a gadgetd killed with -9 left: its record names the forwarding it
 * turned on, which the next one turns off, and its table is deleted. */
static void test_leftovers_removed(void **state)
{
	char dir[] = "/tmp/test_uplink.XXXXXX", rec[128];
	struct uplink *u;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	/* Nothing recorded: nftables is not even asked. */
	test_uplink_n_ran = 0;
	u = uplink_new(dir);
	assert_non_null(u);
	uplink_free(u);
	assert_int_equal(test_uplink_n_ran, 0);
	snprintf(rec, sizeof(rec), "%s/uplink-forwarding", dir);
	f = fopen(rec, "w");
	assert_non_null(f);
	fputs("eth0\nusb0\nbad;name\n", f);
	fclose(f);
	test_uplink_fwd = 0;
	u = uplink_new(dir);
	assert_non_null(u);
	assert_int_equal(test_uplink_fwd, -2);
	assert_int_equal(test_uplink_n_ran, 1);
	assert_string_equal(test_uplink_ran[0], "delete table inet gadgetd\n");
	assert_int_equal(access(rec, F_OK), -1);
	uplink_free(u);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ruleset_named),
		cmocka_unit_test(test_ruleset_any_and_none),
		cmocka_unit_test(test_ruleset_malformed),
		cmocka_unit_test(test_refused_leaves_nothing),
		cmocka_unit_test(test_leftovers_removed),
		cmocka_unit_test(test_no_library),
		cmocka_unit_test(test_no_netlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
