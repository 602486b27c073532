/*
 * test_console: gadgetd/console/console.c alone, its backend faked: which
 * ports are started and stopped at each sync, and what status lists.
 */
#include "console.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

static char calls[512];
static int start_r;

static int fake_start(void *be, unsigned port)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "+%u ", port);
	return start_r;
}

static void fake_stop(void *be, unsigned port)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "-%u ", port);
}

static void fake_free(void *be)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "free");
}

static const struct console_ops fake_ops = {
	.name = "fake", .start = fake_start, .stop = fake_stop, .free = fake_free,
};

static const struct console_want acm0 = { "acm", 0 }, gser1 = { "gser", 1 },
				  other0 = { "other", 0 };

static struct console *setup_console(void)
{
	struct console *c = console_new(&fake_ops, NULL);

	assert_non_null(c);
	calls[0] = '\0';
	start_r = 0;
	return c;
}

/* A port is started once however often the same want is synced, stopped
 * once when no longer wanted, and started afresh when wanted again. */
static void test_start_once_stop_once(void **state)
{
	struct console *c = setup_console();
	struct console_want w[2] = { acm0, gser1 };

	console_sync(c, w, 2);
	console_sync(c, w, 2);
	assert_string_equal(calls, "+0 +1 ");
	calls[0] = '\0';
	console_sync(c, &w[1], 1);
	assert_string_equal(calls, "-0 ");
	calls[0] = '\0';
	console_sync(c, w, 2);
	assert_string_equal(calls, "+0 ");
	calls[0] = '\0';
	console_sync(c, NULL, 0);
	console_sync(c, NULL, 0);
	assert_string_equal(calls, "-1 -0 "); /* 0 was listed again after 1 */
	calls[0] = '\0';
	console_free(c);
	assert_string_equal(calls, "free");
}

/* The same port number for another function (its port_num reused): the
 * old login stops before the new one starts. */
static void test_port_reused(void **state)
{
	struct console *c = setup_console();

	console_sync(c, &acm0, 1);
	calls[0] = '\0';
	console_sync(c, &other0, 1);
	assert_string_equal(calls, "-0 +0 ");
	calls[0] = '\0';
	console_free(c);
	assert_string_equal(calls, "-0 free");
}

/* What status lists: starting until the backend tells, then its word; a
 * start refused is failed, and tried again only once unwanted and wanted
 * again. */
static void test_states(void **state)
{
	struct console *c = setup_console();
	struct console_info info[CONSOLE_MAX];

	console_sync(c, &acm0, 1);
	assert_int_equal(console_list(c, info, CONSOLE_MAX), 1);
	assert_string_equal(info[0].function, "acm");
	assert_int_equal(info[0].port, 0);
	assert_string_equal(info[0].how, "fake");
	assert_string_equal(console_state_name(info[0].state), "starting");
	console_told(c, 0, CONSOLE_RUNNING);
	console_told(c, 7, CONSOLE_FAILED); /* no such port: ignored */
	assert_int_equal(console_list(c, info, CONSOLE_MAX), 1);
	assert_string_equal(console_state_name(info[0].state), "running");
	start_r = -ENOENT;
	console_sync(c, (struct console_want[]){ acm0, gser1 }, 2);
	assert_int_equal(console_list(c, info, CONSOLE_MAX), 2);
	assert_string_equal(console_state_name(info[1].state), "failed");
	calls[0] = '\0';
	console_sync(c, (struct console_want[]){ acm0, gser1 }, 2);
	assert_string_equal(calls, "");
	console_sync(c, NULL, 0);
	assert_int_equal(console_list(c, info, CONSOLE_MAX), 0);
	console_free(c);
}

static unsigned waited;

static void test_console_waited(void *data)
{
	waited++;
}

/* A wait for the stops ends once the backend says each is done, and not
 * before; nothing starts while it waits; no stop under way: no wait. */
static void test_wait_stopped(void **state)
{
	struct console *c = setup_console();
	struct console_want both[] = { acm0, gser1 };

	waited = 0;
	assert_int_equal(console_wait_stopped(c, test_console_waited, NULL), 0);
	console_sync(c, both, 2);
	console_sync(c, NULL, 0);
	assert_int_equal(console_wait_stopped(c, test_console_waited, NULL), -EINPROGRESS);
	calls[0] = '\0';
	console_sync(c, both, 2);
	assert_string_equal(calls, "");
	console_stopped(c, 0);
	assert_int_equal(waited, 0);
	console_stopped(c, 1);
	assert_int_equal(waited, 1);
	console_stopped(c, 1);
	assert_int_equal(waited, 1);
	assert_int_equal(console_wait_stopped(c, test_console_waited, NULL), 0);
	console_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_once_stop_once),
		cmocka_unit_test(test_port_reused),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_wait_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
