/*
 * Unit tests for gadgetd/net/usblink.c with rtnetlink and the helpers faked:
 * an address the kernel refuses is tried again at each tick until it
 * takes (then the link is recorded and watched), and given up on after
 * USBLINK_SET_TRIES refusals until the next sync; a link set down to
 * tell a silent host the link again is set up again even when the first
 * try is refused. The mDNS helpers' command lines: the name and each
 * service on one link's interface only (gadgetd-mdns --interface), the
 * service on the link whose name it points at, as tcp_interface says.
 * Nothing here touches a real interface.
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

#include <cmocka.h>

#include "config.h"
#include "loop.h"
#include "mdns.h"
#include "usblink.h"
#include "netcfg.h"
#include "netproc.h"
#include "rtnl.h"
#include "uplink.h"

static unsigned fake_add_calls, fake_add_fail, fake_up_calls, fake_up_fail;
static bool fake_has_addr;

int rtnl_addr_add(const char *ifname, struct in_addr addr, unsigned prefix)
{
	fake_add_calls++;
	if (fake_add_fail) {
		fake_add_fail--;
		return -EBUSY;
	}
	fake_has_addr = true;
	return 0;
}

int rtnl_addr_del(const char *ifname, struct in_addr addr, unsigned prefix)
{
	fake_has_addr = false;
	return 0;
}

bool rtnl_addr_has(const char *ifname, struct in_addr addr, unsigned prefix)
{
	return fake_has_addr;
}

int rtnl_link_up(const char *ifname)
{
	fake_up_calls++;
	if (fake_up_fail) {
		fake_up_fail--;
		return -EBUSY;
	}
	return 0;
}

int rtnl_link_down(const char *ifname)
{
	return 0;
}

/* The uplink's table and forwarding (tested in test_uplink.c): none here. */
static int fake_uplink;
struct uplink *uplink_new(const char *run_dir)
{
	return (struct uplink *)&fake_uplink;
}

void uplink_free(struct uplink *u)
{
}

void uplink_sync(struct uplink *u, const struct uplink_share *s, unsigned n)
{
}

unsigned uplink_list(const struct uplink *u, struct uplink_info *out, unsigned max)
{
	return 0;
}

/* What an earlier gadgetd left in run_dir: nothing here. */
int netcfg_parse_addr(const char *text, struct in_addr *addr, unsigned *prefix,
		      char *why, size_t size)
{
	return -EINVAL;
}

/* The helpers started: each one's command line, words joined by
 * spaces, and its ready text. */
#define FAKE_STARTS 16
static char fake_argv[FAKE_STARTS][512], fake_ready[FAKE_STARTS][64];
static unsigned fake_starts;
static char fake_proc;

struct netproc *netproc_start(struct loop *l, const struct config *cfg,
			      const char *what, char *const *argv,
			      const char *pidfile, const struct netproc_ready *ready)
{
	size_t n = 0;
	unsigned i;

	assert_true(fake_starts < FAKE_STARTS);
	for (i = 0; argv[i]; i++)
		n += snprintf(fake_argv[fake_starts] + n, sizeof(fake_argv[0]) - n, "%s%s",
			      i ? " " : "", argv[i]);
	snprintf(fake_ready[fake_starts], sizeof(fake_ready[0]), "%s",
		 ready && ready->text ? ready->text : "");
	fake_starts++;
	return (struct netproc *)&fake_proc;
}

/* How many helpers were started whose command line has text. */
static unsigned started(const char *text)
{
	unsigned i, n = 0;

	for (i = 0; i < fake_starts; i++)
		n += strstr(fake_argv[i], text) != NULL;
	return n;
}

void netproc_stop(struct netproc *p)
{
}

void netproc_kill(struct netproc *p)
{
}

void netproc_kill_stale(const char *pidfile)
{
}

pid_t netproc_pid(const struct netproc *p)
{
	return 0;
}

bool netproc_failed(const struct netproc *p)
{
	return false;
}

bool netproc_ready(const struct netproc *p)
{
	return false;
}

struct fixture {
	struct loop *loop;
	struct config cfg;
	char dir[64];
	struct usblink *nl;
	struct usblink_want want;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_usblink.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->cfg.run_dir = f->dir;
	f->loop = loop_new();
	assert_non_null(f->loop);
	f->nl = usblink_new(f->loop, &f->cfg);
	assert_non_null(f->nl);
	snprintf(f->want.function, sizeof(f->want.function), "ncm");
	/* No such interface: its sysfs counters read as 0, no carrier. */
	snprintf(f->want.ifname, sizeof(f->want.ifname), "gdtest9");
	f->want.nc.has_addr = true;
	f->want.nc.addr.s_addr = htonl(0xc0a84d02); /* 192.168.77.2 */
	f->want.nc.prefix = 24;
	fake_add_calls = fake_add_fail = fake_up_calls = fake_up_fail = 0;
	fake_has_addr = false;
	fake_starts = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	usblink_free(f->nl);
	loop_free(f->loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The loop for about ms. */
static void run_ms(struct fixture *f, unsigned ms)
{
	uint64_t end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		loop_dispatch(f->loop, 10);
}

/* The loop until rtnl_addr_add() was called n times, or 30 s: a loaded
 * machine only makes the ticks late. */
static void run_until_adds(struct fixture *f, unsigned n)
{
	uint64_t end = loop_now_ms() + 30000;

	while (fake_add_calls < n && loop_now_ms() < end)
		loop_dispatch(f->loop, 10);
}

static void test_refused_address_tried_again(void **state)
{
	struct fixture *f = *state;

	fake_add_fail = 3;
	usblink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_add_calls, 1);
	assert_false(fake_has_addr);
	/* A tick (300 ms) each: the fourth try takes. */
	run_until_adds(f, 4);
	assert_int_equal(fake_add_calls, 4);
	assert_true(fake_has_addr);
	assert_true(fake_has_addr);
	/* Set once it took: no more tries. */
	run_ms(f, 700);
	assert_int_equal(fake_add_calls, 4);
}

static void test_refused_address_given_up(void **state)
{
	struct fixture *f = *state;

	fake_add_fail = 1000;
	usblink_sync(f->nl, &f->want, 1, NULL, 0);
	run_until_adds(f, 10);
	/* USBLINK_SET_TRIES (10) in all, then no more... */
	assert_int_equal(fake_add_calls, 10);
	run_ms(f, 700);
	assert_int_equal(fake_add_calls, 10);
	assert_false(fake_has_addr);
	/* ...until the link is wanted afresh. */
	fake_add_fail = 0;
	usblink_sync(f->nl, NULL, 0, NULL, 0);
	usblink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_add_calls, 11);
	assert_true(fake_has_addr);
}

#define HELPER LIBEXECDIR "/gadgetd-mdns"

/* The link's name on its own interface only, as gadgetd-mdns says. */
static void test_mdns_name_on_its_link(void **state)
{
	struct fixture *f = *state;

	snprintf(f->want.nc.mdns, sizeof(f->want.nc.mdns), "gadgetd");
	usblink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_starts, 1);
	assert_string_equal(fake_argv[0], HELPER " --interface gdtest9 --address "
			    "gadgetd.local 192.168.77.2");
	assert_string_equal(fake_ready[0], MDNS_READY_TEXT);
	/* No name: no helper. */
	usblink_sync(f->nl, NULL, 0, NULL, 0);
	f->want.nc.mdns[0] = '\0';
	fake_starts = 0;
	usblink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_starts, 0);
}

static struct usblink_service adb_service(const char *iface)
{
	struct usblink_service s = { .function = "adb", .type = "_adb._tcp", .port = 5555 };

	snprintf(s.iface, sizeof(s.iface), "%s", iface);
	return s;
}

#define ADB_ON_GDTEST9 HELPER " --interface gdtest9 --service adb-gadgetd _adb._tcp " \
	"5555 --host gadgetd.local"

/* Listening on each gadget link (no tcp_interface) or on every
 * interface ("*"): announced on the link whose name it points at, and
 * there only; once, however often gadgetd syncs. */
static void test_service_on_the_named_link(void **state)
{
	struct fixture *f = *state;
	const char *ifaces[] = { "", "*" };
	struct usblink_service s;
	unsigned i;

	snprintf(f->want.nc.mdns, sizeof(f->want.nc.mdns), "gadgetd");
	for (i = 0; i < 2; i++) {
		s = adb_service(ifaces[i]);
		fake_starts = 0;
		usblink_sync(f->nl, &f->want, 1, &s, 1);
		usblink_sync(f->nl, &f->want, 1, &s, 1);
		assert_int_equal(started("--service"), 1);
		assert_int_equal(started(ADB_ON_GDTEST9), 1);
		assert_string_equal(fake_ready[fake_starts - 1], MDNS_READY_TEXT);
		usblink_sync(f->nl, NULL, 0, NULL, 0);
	}
	/* No name on the link: not announced. */
	f->want.nc.mdns[0] = '\0';
	fake_starts = 0;
	usblink_sync(f->nl, &f->want, 1, &s, 1);
	assert_int_equal(fake_starts, 0);
}

/* tcp_interface naming another interface than a gadget link (the
 * board's Wi-Fi): the service listens on no USB link and is announced
 * nowhere; naming the link: announced there. */
static void test_service_on_its_interface_only(void **state)
{
	struct fixture *f = *state;
	struct usblink_service s = adb_service("wlan0");

	snprintf(f->want.nc.mdns, sizeof(f->want.nc.mdns), "gadgetd");
	usblink_sync(f->nl, &f->want, 1, &s, 1);
	assert_int_equal(started("--address"), 1);
	assert_int_equal(started("--service"), 0);
	/* The same set with tcp_interface = "gdtest9". */
	s = adb_service("gdtest9");
	usblink_sync(f->nl, &f->want, 1, &s, 1);
	assert_int_equal(started("--service"), 1);
	assert_int_equal(started(ADB_ON_GDTEST9), 1);
}

/* Two links with names: the service goes on the one tcp_interface names,
 * pointing at that link's name. */
static void test_service_on_the_second_link(void **state)
{
	struct fixture *f = *state;
	struct usblink_want want[2] = { f->want, f->want };
	struct usblink_service s = adb_service("gdtest8");

	snprintf(want[0].nc.mdns, sizeof(want[0].nc.mdns), "gadgetd");
	snprintf(want[1].function, sizeof(want[1].function), "rndis");
	snprintf(want[1].ifname, sizeof(want[1].ifname), "gdtest8");
	snprintf(want[1].nc.mdns, sizeof(want[1].nc.mdns), "board2");
	want[1].nc.addr.s_addr = htonl(0xc0a84e02); /* 192.168.78.2 */
	usblink_sync(f->nl, want, 2, &s, 1);
	assert_int_equal(started(HELPER " --interface gdtest9 --address gadgetd.local "
				 "192.168.77.2"), 1);
	assert_int_equal(started(HELPER " --interface gdtest8 --address board2.local "
				 "192.168.78.2"), 1);
	assert_int_equal(started("--service"), 1);
	assert_int_equal(started(HELPER " --interface gdtest8 --service adb-board2 _adb._tcp "
				 "5555 --host board2.local"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_address_tried_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_address_given_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mdns_name_on_its_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_on_the_named_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_on_its_interface_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_on_the_second_link, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
