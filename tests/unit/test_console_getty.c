/*
 * test_console_getty: gadgetd/console/console_getty.c with netproc faked:
 * each port's agetty is a session (its logouts are no crash), and when
 * netproc gives it up, status says "failed" for that port alone.
 */
#include "config.h"
#include "console.h"
#include "console_getty.h"
#include "netproc.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

/* The fake netproc: one per start, never freed before the test ends. */
struct netproc {
	char tty[16];
	bool session, stopped;
	void (*failed)(void *data);
	void *data;
};

static struct netproc fake_proc[8];
static unsigned fake_n;

struct netproc *netproc_start(struct loop *l, const struct config *cfg,
			      const char *what, char *const *argv,
			      const char *pidfile, const struct netproc_ready *ready)
{
	struct netproc *p;

	if (fake_n == 8)
		return NULL;
	p = &fake_proc[fake_n++];
	*p = (struct netproc){ 0 };
	snprintf(p->tty, sizeof(p->tty), "%s", argv[2]);
	return p;
}

void netproc_set_session(struct netproc *p)
{
	p->session = true;
}

void netproc_on_failed(struct netproc *p, void (*failed)(void *data), void *data)
{
	p->failed = failed;
	p->data = data;
}

void netproc_stop(struct netproc *p)
{
	if (p)
		p->stopped = true;
}

void netproc_kill(struct netproc *p)
{
	netproc_stop(p);
}

void netproc_kill_stale(const char *pidfile)
{
}

static struct config cfg = { .run_dir = "/nonexistent" };
static const struct console_want acm0 = { "acm", 0 }, gser1 = { "gser", 1 };

static enum console_state state_of(struct console *c, unsigned port)
{
	struct console_info info[CONSOLE_MAX];
	unsigned i, n = console_list(c, info, CONSOLE_MAX);

	for (i = 0; i < n; i++)
		if (info[i].port == port)
			return info[i].state;
	fail_msg("ttyGS%u not listed", port);
	return CONSOLE_FAILED;
}

/* Each agetty is a session; when netproc gives one up, that port's state
 * is failed and the other's stays running. Failed while the getty's
 * exits all counted as crashes and status kept saying running. */
static void test_getty_session_and_failed(void **state)
{
	struct console_want want[] = { acm0, gser1 };
	struct console *c;

	fake_n = 0;
	c = console_getty_new(NULL, &cfg);
	assert_non_null(c);
	console_sync(c, want, 2);
	assert_int_equal(fake_n, 2);
	assert_string_equal(fake_proc[0].tty, "ttyGS0");
	assert_true(fake_proc[0].session && fake_proc[1].session);
	assert_non_null(fake_proc[1].failed);
	assert_int_equal(state_of(c, 0), CONSOLE_RUNNING);
	assert_int_equal(state_of(c, 1), CONSOLE_RUNNING);
	fake_proc[1].failed(fake_proc[1].data);
	assert_int_equal(state_of(c, 1), CONSOLE_FAILED);
	assert_int_equal(state_of(c, 0), CONSOLE_RUNNING);
	/* ttyGS0 stopped: ttyGS1's slot still tells its own port. */
	console_sync(c, &gser1, 1);
	assert_true(fake_proc[0].stopped);
	assert_false(fake_proc[1].stopped);
	console_free(c);
	assert_true(fake_proc[1].stopped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getty_session_and_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
