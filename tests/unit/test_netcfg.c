/*
 * Unit tests for gadgetd/profile/netcfg.c: a network function's link keys are
 * refused with FILE:LINE: functions.NAME.KEY when wrong or missing what
 * they need, the host's one address is computed, and a subnet that
 * overlaps another interface of the board is refused naming it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netcfg.h"
#include "profile.h"

/* The board's interfaces as getifaddrs() answers them. */
static struct sockaddr_in test_netcfg_sa[2], test_netcfg_nm[2];
static struct ifaddrs test_netcfg_ifa[2];
static unsigned test_netcfg_n;

int __wrap_getifaddrs(struct ifaddrs **out);
void __wrap_freeifaddrs(struct ifaddrs *ifa);

int __wrap_getifaddrs(struct ifaddrs **out)
{
	*out = test_netcfg_n ? test_netcfg_ifa : NULL;
	return 0;
}

void __wrap_freeifaddrs(struct ifaddrs *ifa)
{
}

static void test_netcfg_iface(const char *name, const char *addr, const char *mask)
{
	unsigned i = test_netcfg_n++;

	test_netcfg_sa[i].sin_family = AF_INET;
	inet_pton(AF_INET, addr, &test_netcfg_sa[i].sin_addr);
	test_netcfg_nm[i].sin_family = AF_INET;
	inet_pton(AF_INET, mask, &test_netcfg_nm[i].sin_addr);
	test_netcfg_ifa[i] = (struct ifaddrs){
		.ifa_name = (char *)name,
		.ifa_addr = (struct sockaddr *)&test_netcfg_sa[i],
		.ifa_netmask = (struct sockaddr *)&test_netcfg_nm[i],
	};
	if (i)
		test_netcfg_ifa[i - 1].ifa_next = &test_netcfg_ifa[i];
}

/* A profile whose line 6 is the ecm function's block. */
static int test_netcfg_parse(const char *ecm, struct profile **p, char *err,
			     size_t size)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "gadget: {\n"
		 "  vendor_id = 0x1d6b; product_id = 0x0104;\n"
		 "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
		 "};\n"
		 "functions: {\n"
		 "  ecm: { type = \"ecm\";\n"
		 "%s\n"
		 "  };\n"
		 "  acm: { type = \"acm\"; };\n"
		 "};\n"
		 "sets = ( { functions = [ \"ecm\" ]; }, { functions = [ \"acm\" ]; product_id = 2; } );\n",
		 ecm);
	return profile_parse("t.conf", text, p, err, size);
}

static void test_netcfg_refused(const char *ecm, const char *want)
{
	struct profile *p = NULL;
	char err[1024];

	assert_int_equal(test_netcfg_parse(ecm, &p, err, sizeof(err)), -EINVAL);
	assert_null(p);
	if (!strstr(err, want))
		fail_msg("for \"%s\": got \"%s\", want \"%s\"", ecm, err, want);
}

static void test_bad_keys(void **state)
{
	test_netcfg_refused("address = \"10.12.0.1\";",
			    "t.conf:7: functions.ecm.address: \"10.12.0.1\": expected A.B.C.D/PREFIX");
	test_netcfg_refused("address = \"10.12.0.300/24\";",
			    "t.conf:7: functions.ecm.address: \"10.12.0.300/24\": \"10.12.0.300\" is not an IPv4 address");
	test_netcfg_refused("address = \"10.12.0.1/31\";",
			    "t.conf:7: functions.ecm.address: \"10.12.0.1/31\": the prefix must be 8..30");
	test_netcfg_refused("address = \"10.12.0.0/24\";",
			    "t.conf:7: functions.ecm.address: \"10.12.0.0/24\": not a usable host address");
	test_netcfg_refused("address = \"10.12.0.255/24\";", "not a usable host address");
	test_netcfg_refused("address = \"127.0.0.2/8\";", "not a usable host address");
	test_netcfg_refused("ifname = \"usb0\";",
			    "t.conf:7: functions.ecm.ifname: \"usb0\": expected a pattern with one %d");
	test_netcfg_refused("ifname = \"u%d%d\";", "functions.ecm.ifname");
	test_netcfg_refused("ifname = \"a b%d\";", "functions.ecm.ifname");
	test_netcfg_refused("address = \"10.1.0.1/16\"; mdns_name = \"-board\";",
			    "t.conf:7: functions.ecm.mdns_name: \"-board\": expected one DNS label");
	test_netcfg_refused("address = \"10.1.0.1/16\"; mdns_name = \"a.b\";", "mdns_name");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; dhcp_dns = \"1.1.1\";",
			    "t.conf:7: functions.ecm.dhcp_dns: \"1.1.1\" is not an IPv4 address");
	/* A key on its own line is reported at that line. */
	test_netcfg_refused("address = \"10.1.0.1/16\";\n dhcp_router = true;",
			    "t.conf:8: functions.ecm.dhcp_router: needs dhcp = true");
	test_netcfg_refused("dhcp = true;", "t.conf:7: functions.ecm.dhcp: needs address");
	test_netcfg_refused("mdns_name = \"board\";", "functions.ecm.mdns_name: needs address");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp_dns = \"1.1.1.1\";",
			    "functions.ecm.dhcp_dns: needs dhcp = true");
	test_netcfg_refused("dhcp = \"maybe\";", "functions.ecm.dhcp");
	test_netcfg_refused("gateway = true;", "unknown setting \"gateway\"");
	/* uplink: an interface name nft can quote, or "any"; needs DHCP. */
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"eth 0\";",
			    "t.conf:7: functions.ecm.uplink: \"eth 0\": expected the board's interface to share");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"eth0\\\"; drop\";",
			    "functions.ecm.uplink: \"eth0\"; drop\": expected");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"\";",
			    "functions.ecm.uplink: \"\": expected");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"..\";",
			    "functions.ecm.uplink");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"usb%d\";",
			    "functions.ecm.uplink");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = \"a-very-long-name0\";",
			    "functions.ecm.uplink");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; uplink = true;",
			    "functions.ecm.uplink");
	test_netcfg_refused("address = \"10.1.0.1/16\";\n uplink = \"eth0\";",
			    "t.conf:8: functions.ecm.uplink: needs dhcp = true");
	test_netcfg_refused("uplink = \"eth0\";", "functions.ecm.uplink: needs dhcp = true");
	test_netcfg_refused("address = \"10.1.0.1/16\"; dhcp = true; dhcp_router = false;"
			    " uplink = \"any\";",
			    "functions.ecm.uplink: the board is the host's router when it shares \"any\"");
}

static void test_good_keys(void **state)
{
	struct profile *p = NULL;
	struct netcfg nc;
	char err[1024], a[INET_ADDRSTRLEN];

	assert_int_equal(test_netcfg_parse("ifname = \"gd%d\"; address = \"10.12.0.1/24\";"
					   " dhcp = true; mdns_name = \"board-1\";",
					   &p, err, sizeof(err)), 0);
	assert_int_equal(netcfg_get(profile_function_find(p, "ecm"), &nc), 0);
	assert_true(nc.has_addr);
	assert_string_equal(nc.ifname, "gd%d");
	assert_int_equal(nc.prefix, 24);
	assert_true(nc.dhcp);
	/* By default no gateway and no DNS server for the host. */
	assert_false(nc.router);
	assert_false(nc.has_dns);
	assert_string_equal(nc.mdns, "board-1");
	assert_string_equal(inet_ntop(AF_INET, &nc.host, a, sizeof(a)), "10.12.0.2");
	assert_int_equal(netcfg_get(profile_function_find(p, "acm"), &nc), -ENOENT);
	profile_free(p);

	assert_int_equal(test_netcfg_parse("address = \"10.12.0.1/24\"; dhcp = true;"
					   " dhcp_router = true; dhcp_dns = \"9.9.9.9\";",
					   &p, err, sizeof(err)), 0);
	assert_int_equal(netcfg_get(profile_function_find(p, "ecm"), &nc), 0);
	assert_true(nc.router);
	assert_true(nc.has_dns);
	/* No uplink shared unless asked for. */
	assert_string_equal(nc.uplink, "");
	profile_free(p);
	assert_int_equal(test_netcfg_parse("address = \"10.12.0.1/24\"; dhcp = true;"
					   " uplink = \"eth0\";", &p, err, sizeof(err)), 0);
	assert_int_equal(netcfg_get(profile_function_find(p, "ecm"), &nc), 0);
	assert_string_equal(nc.uplink, "eth0");
	profile_free(p);
	assert_int_equal(test_netcfg_parse("address = \"10.12.0.1/24\"; dhcp = true;"
					   " uplink = \"any\";", &p, err, sizeof(err)), 0);
	assert_int_equal(netcfg_get(profile_function_find(p, "ecm"), &nc), 0);
	assert_string_equal(nc.uplink, "any");
	profile_free(p);
	/* No address: gadgetd leaves the interface alone. */
	assert_int_equal(test_netcfg_parse("ifname = \"usb%d\";", &p, err, sizeof(err)), 0);
	assert_int_equal(netcfg_get(profile_function_find(p, "ecm"), &nc), 0);
	assert_false(nc.has_addr);
	profile_free(p);
}

static void test_host_addr(void **state)
{
	struct in_addr b, h;
	char a[INET_ADDRSTRLEN];

	inet_pton(AF_INET, "192.168.7.1", &b);
	h = netcfg_host_addr(b, 30);
	assert_string_equal(inet_ntop(AF_INET, &h, a, sizeof(a)), "192.168.7.2");
	/* .2/30: .3 is the broadcast address, so the host gets .1. */
	inet_pton(AF_INET, "192.168.7.2", &b);
	h = netcfg_host_addr(b, 30);
	assert_string_equal(inet_ntop(AF_INET, &h, a, sizeof(a)), "192.168.7.1");
}

static void test_overlap(void **state)
{
	struct in_addr a, b;

	inet_pton(AF_INET, "10.12.0.1", &a);
	inet_pton(AF_INET, "10.12.200.9", &b);
	assert_true(netcfg_overlap(a, 24, b, 16));
	assert_false(netcfg_overlap(a, 24, b, 24));
	inet_pton(AF_INET, "10.13.0.1", &b);
	assert_false(netcfg_overlap(a, 16, b, 16));
	assert_true(netcfg_overlap(a, 8, b, 16));
}

static void test_clash(void **state)
{
	const char *own[] = { "usb0" };
	struct profile *p = NULL;
	char err[1024];

	assert_int_equal(test_netcfg_parse("address = \"10.12.0.1/24\";", &p, err,
					   sizeof(err)), 0);
	test_netcfg_n = 0;
	test_netcfg_iface("eth0", "192.168.1.5", "255.255.255.0");
	assert_int_equal(netcfg_clash(p, -1, NULL, 0, err, sizeof(err)), 0);
	test_netcfg_iface("wlan0", "10.12.3.4", "255.255.0.0");
	assert_int_equal(netcfg_clash(p, -1, NULL, 0, err, sizeof(err)), -EADDRINUSE);
	assert_string_equal(err, "t.conf:7: functions.ecm.address: 10.12.0.1/24 overlaps "
			    "interface wlan0 (10.12.3.4/16): choose another subnet");
	/* The set without ecm does not clash; the set with it does. */
	assert_int_equal(netcfg_clash(p, 1, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(netcfg_clash(p, 0, NULL, 0, err, sizeof(err)), -EADDRINUSE);
	/* gadgetd's own link is not another interface. */
	test_netcfg_ifa[1].ifa_name = "usb0";
	assert_int_equal(netcfg_clash(p, -1, own, 1, err, sizeof(err)), 0);
	test_netcfg_ifa[1].ifa_name = "wlan0";
	test_netcfg_n = 0;
	profile_free(p);
}

static void test_clash_in_a_set(void **state)
{
	struct profile *p = NULL;
	char err[1024];
	static const char text[] =
		"gadget: { vendor_id = 1; product_id = 2;\n"
		"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		"functions: {\n"
		"  ecm: { type = \"ecm\"; address = \"10.12.0.1/24\"; };\n"
		"  ncm: { type = \"ncm\"; address = \"10.12.0.1/16\"; };\n"
		"  rndis: { type = \"rndis\"; address = \"10.13.0.1/24\"; };\n"
		"};\n"
		"sets = ( { functions = [ \"ecm\", \"rndis\" ]; },\n"
		"         { functions = [ \"ncm\" ]; product_id = 3; },\n"
		"         { functions = [ \"ecm\", \"ncm\" ]; product_id = 4; } );\n";

	assert_int_equal(profile_parse("t.conf", text, &p, err, sizeof(err)), 0);
	test_netcfg_n = 0;
	/* ecm and ncm share a subnet but only set 3 has both. */
	assert_int_equal(netcfg_clash(p, 0, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(netcfg_clash(p, 1, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(netcfg_clash(p, -1, NULL, 0, err, sizeof(err)), -EADDRINUSE);
	assert_string_equal(err, "t.conf:5: functions.ncm.address: 10.12.0.1/16 overlaps "
			    "functions.ecm.address (10.12.0.1/24), in set 3 with it");
	/* gadgetctl check's half: the same refusal, with no board to ask. */
	assert_int_equal(netcfg_clash_sets(p, err, sizeof(err)), -EADDRINUSE);
	assert_string_equal(err, "t.conf:5: functions.ncm.address: 10.12.0.1/16 overlaps "
			    "functions.ecm.address (10.12.0.1/24), in set 3 with it");
	profile_free(p);
}

/* netcfg_clash_sets() leaves the board's interfaces to gadgetd -n: a
 * profile checked on another machine does not depend on its addresses. */
static void test_clash_sets_only(void **state)
{
	struct profile *p = NULL;
	char err[1024];

	assert_int_equal(test_netcfg_parse("address = \"10.12.0.1/24\";", &p, err,
					   sizeof(err)), 0);
	test_netcfg_n = 0;
	test_netcfg_iface("wlan0", "10.12.3.4", "255.255.0.0");
	assert_int_equal(netcfg_clash(p, -1, NULL, 0, err, sizeof(err)), -EADDRINUSE);
	assert_int_equal(netcfg_clash_sets(p, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	test_netcfg_n = 0;
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_good_keys),
		cmocka_unit_test(test_host_addr),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_clash),
		cmocka_unit_test(test_clash_in_a_set),
		cmocka_unit_test(test_clash_sets_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
