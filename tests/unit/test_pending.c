/*
 * gadgetd/gadget/pending.c alone, this test its owner (pending_ops): what waits
 * runs in its order once the owner is idle (crashed workers, then
 * SIGHUP's reload, then a plugin's switch request, then the clients'
 * turn); a plugin's last request wins; "revert" goes back; a request
 * from a function that is not in the active set is refused, and logged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_gadget_deps.h"
#include "log.h"
#include "loop.h"
#include "pending.h"
#include "profile.h"
#include "run_until.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The owner: a profile, a set, busy or not, and what it was asked. */
struct fixture {
	struct loop *loop;
	struct profile *p;
	int set;
	bool busy;
	struct pending *pd;
	char calls[1024];
	unsigned idles;
	char failed[512];
};

static char logged[2048];

static void tap(enum log_level level, const char *msg)
{
	size_t n = strlen(logged);

	snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static void called(struct fixture *f, const char *fmt, const char *arg)
{
	size_t n = strlen(f->calls);

	snprintf(f->calls + n, sizeof(f->calls) - n, fmt, arg);
}

static int set_index(const struct fixture *f, const char *name)
{
	char err[256];
	int i = profile_set_find(f->p, name, err, sizeof(err));

	assert_true(i >= 0);
	return i;
}

static void view(struct pending_view *v, void *data)
{
	struct fixture *f = data;

	v->profile = f->p;
	v->set = f->set;
	v->txn = f->busy;
	v->busy = f->busy;
}

static void restart(const char *function, void *data)
{
	called(data, "restart(%s) ", function);
}

static int reload(char *msg, size_t size, pending_done_fn fn, void *fn_data,
		  void *data)
{
	called(data, "reload%s ", "");
	snprintf(msg, size, "profile t reloaded");
	return 0;
}

static int switch_to(const char *profile, const char *set, char *msg, size_t size,
		     pending_done_fn fn, void *fn_data, void *data)
{
	struct fixture *f = data;
	char what[300];

	snprintf(what, sizeof(what), "%s:%s", profile ? profile : "-", set);
	called(f, "switch(%s) ", what);
	f->set = set_index(f, set);
	snprintf(msg, size, "switched to %s", set);
	return 0;
}

static void failed(const char *what, const char *msg, void *data)
{
	struct fixture *f = data;

	snprintf(f->failed, sizeof(f->failed), "%s: %s", what, msg);
}

static void idle(void *data)
{
	struct fixture *f = data;

	f->idles++;
	called(f, "idle%s ", "");
}

static const struct pending_ops ops = {
	.view = view,
	.restart = restart,
	.reload = reload,
	.switch_to = switch_to,
	.failed = failed,
	.idle = idle,
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[1024];

	assert_non_null(f);
	f->loop = loop_new();
	assert_int_equal(profile_parse("t.conf", fake_gadget_profile, &f->p, err, sizeof(err)), 0);
	f->set = set_index(f, "mtp,adb,aoa");
	f->pd = pending_new(f->loop, &ops, f);
	assert_non_null(f->pd);
	logged[0] = '\0';
	log_set_tap(tap);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	log_set_tap(NULL);
	pending_free(f->pd);
	profile_free(f->p);
	loop_free(f->loop);
	free(f);
	return 0;
}

/* The owner stops being busy: what waits runs, until the clients'
 * turn (a client waits, as dispatch.c's queue would). */
static void go_idle(struct fixture *f)
{
	f->busy = false;
	f->idles = 0;
	pending_kick_waiters(f->pd);
	pending_run_now(f->pd);
	RUN_UNTIL(f->loop, f->idles > 0);
	assert_true(f->idles > 0);
}

static void test_order(void **state)
{
	struct fixture *f = *state;

	f->busy = true;
	pending_plugin_request(f->pd, "aoa", "ncm");
	pending_reload(f->pd);
	assert_int_equal(pending_restart(f->pd, "adb"), 0);
	/* Nothing while the owner is busy. */
	for (int i = 0; i < 3; i++)
		loop_dispatch(f->loop, 0);
	assert_string_equal(f->calls, "");
	go_idle(f);
	assert_string_equal(f->calls, "restart(adb) reload switch(-:ncm) idle ");
	assert_string_equal(f->failed, "");
}

static void test_last_request_wins(void **state)
{
	struct fixture *f = *state;

	f->busy = true;
	pending_plugin_request(f->pd, "aoa", "revert");
	pending_plugin_request(f->pd, "aoa", "ncm");
	go_idle(f);
	assert_string_equal(f->calls, "switch(-:ncm) idle ");
	/* "revert" goes back to where the last request came from. */
	f->calls[0] = '\0';
	f->set = set_index(f, "mtp,adb,aoa");
	pending_plugin_request(f->pd, "aoa", "revert");
	go_idle(f);
	assert_string_equal(f->calls, "switch(t:mtp,adb,aoa) idle ");
	/* Once. */
	f->calls[0] = '\0';
	pending_plugin_request(f->pd, "aoa", "revert");
	go_idle(f);
	assert_string_equal(f->calls, "idle ");
	assert_string_equal(f->failed, "switch requested by aoa: asked to revert, but "
			    "there is nothing to revert to");
}

static void test_refused_not_in_set(void **state)
{
	struct fixture *f = *state;

	f->set = set_index(f, "ncm");
	pending_plugin_request(f->pd, "aoa", "ncm");
	pending_plugin_request(f->pd, "adb", "ncm");
	go_idle(f);
	assert_string_equal(f->calls, "idle ");
	assert_non_null(strstr(logged, "aoa: switch to \"ncm\" refused: function aoa "
			       "is not in the active set"));
	assert_non_null(strstr(logged, "adb: switch to \"ncm\" refused: its plugin "
			       "may not ask for a switch"));
	/* Only its accessory_set, even from the active set. */
	f->set = set_index(f, "mtp,adb,aoa");
	pending_plugin_request(f->pd, "aoa", "acm,adb");
	go_idle(f);
	assert_string_equal(f->calls, "idle idle ");
	assert_non_null(strstr(logged, "it may only ask for ncm or revert"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_request_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_not_in_set, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
