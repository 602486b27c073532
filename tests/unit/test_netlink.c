/*
 * Unit tests for gadgetd/netlink.c with rtnetlink and the helpers faked:
 * an address the kernel refuses is tried again at each tick until it
 * takes (then the link is recorded and watched), and given up on after
 * NETLINK_SET_TRIES refusals until the next sync; a link set down to
 * tell a silent host the link again is set up again even when the first
 * try is refused. Nothing here touches a real interface.
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
#include "netlink.h"
#include "netcfg.h"
#include "netproc.h"
#include "rtnl.h"

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

/* What an earlier gadgetd left in run_dir: nothing here. */
int netcfg_parse_addr(const char *text, struct in_addr *addr, unsigned *prefix,
		      char *why, size_t size)
{
	return -EINVAL;
}

struct netproc *netproc_start(struct loop *l, const struct config *cfg,
			      const char *what, char *const *argv,
			      const char *pidfile, const struct netproc_ready *ready)
{
	return NULL;
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
	struct netlink *nl;
	struct netlink_want want;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_netlink.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->cfg.run_dir = f->dir;
	f->loop = loop_new();
	assert_non_null(f->loop);
	f->nl = netlink_new(f->loop, &f->cfg);
	assert_non_null(f->nl);
	snprintf(f->want.function, sizeof(f->want.function), "ncm");
	/* No such interface: its sysfs counters read as 0, no carrier. */
	snprintf(f->want.ifname, sizeof(f->want.ifname), "gdtest9");
	f->want.nc.has_addr = true;
	f->want.nc.addr.s_addr = htonl(0xc0a84d02); /* 192.168.77.2 */
	f->want.nc.prefix = 24;
	fake_add_calls = fake_add_fail = fake_up_calls = fake_up_fail = 0;
	fake_has_addr = false;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	netlink_free(f->nl);
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

static bool has_iface(struct fixture *f)
{
	char name[32];

	return netlink_iface_name(f->nl, "ncm", name, sizeof(name)) == 0 &&
	       !strcmp(name, "gdtest9");
}

static void test_refused_address_tried_again(void **state)
{
	struct fixture *f = *state;

	fake_add_fail = 3;
	netlink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_add_calls, 1);
	assert_false(has_iface(f));
	/* A tick (300 ms) each: the fourth try takes. */
	run_until_adds(f, 4);
	assert_int_equal(fake_add_calls, 4);
	assert_true(fake_has_addr);
	assert_true(has_iface(f));
	/* Set once it took: no more tries. */
	run_ms(f, 700);
	assert_int_equal(fake_add_calls, 4);
}

static void test_refused_address_given_up(void **state)
{
	struct fixture *f = *state;

	fake_add_fail = 1000;
	netlink_sync(f->nl, &f->want, 1, NULL, 0);
	run_until_adds(f, 10);
	/* NETLINK_SET_TRIES (10) in all, then no more... */
	assert_int_equal(fake_add_calls, 10);
	run_ms(f, 700);
	assert_int_equal(fake_add_calls, 10);
	assert_false(has_iface(f));
	/* ...until the link is wanted afresh. */
	fake_add_fail = 0;
	netlink_sync(f->nl, NULL, 0, NULL, 0);
	netlink_sync(f->nl, &f->want, 1, NULL, 0);
	assert_int_equal(fake_add_calls, 11);
	assert_true(has_iface(f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_address_tried_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_address_given_up, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
