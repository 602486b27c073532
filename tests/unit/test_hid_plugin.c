/*
 * The hid plugin (functions/hid/hid.c) against a fake runtime: remote
 * wakeup. A command that finds the bus suspended asks for a wakeup and
 * sends nothing until the bus resumes, then every report once; a refused
 * or unanswered wakeup ends the command with its reason, nothing sent;
 * a suspend in the middle asks for a wakeup and the rest follows the
 * resume.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"
#include "plugin.h"
#include "run_until.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	struct loop *loop;
	unsigned writes;
	unsigned wakeups;
	plugin_wakeup_fn wake_done;
	void *wake_data;
	int wakeup_r;
	bool replied;
	int reply_rc;
	char reply[512];
} fake;

static int fake_token;

struct loop *plugin_loop(struct plugin *p)
{
	return fake.loop;
}

const char *plugin_instance(struct plugin *p)
{
	return "hid";
}

const char *plugin_option(struct plugin *p, const char *key)
{
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	fake.writes++;
	return 0;
}

int plugin_command_reply(struct plugin *p, int rc, const char *reply)
{
	assert_false(fake.replied);
	fake.replied = true;
	fake.reply_rc = rc;
	snprintf(fake.reply, sizeof(fake.reply), "%s", reply);
	return 0;
}

int plugin_wakeup(struct plugin *p, plugin_wakeup_fn done, void *data)
{
	fake.wakeups++;
	if (fake.wakeup_r)
		return fake.wakeup_r;
	fake.wake_done = done;
	fake.wake_data = data;
	return 0;
}

struct fixture {
	void *priv;
};

static int setup(void **state)
{
	static struct fixture f;
	struct plugin_desc desc = { 0 };

	memset(&fake, 0, sizeof(fake));
	fake.loop = loop_new();
	assert_int_equal(gadgetd_plugin.init((struct plugin *)&fake_token, &desc, &f.priv), 0);
	gadgetd_plugin.enable(f.priv);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	gadgetd_plugin.finish(f->priv);
	loop_free(fake.loop);
	return 0;
}

/* gadgetctl hid type TEXT, as the worker passes it. */
static int type(struct fixture *f, const char *text)
{
	char *argv[] = { "type", (char *)text, NULL };
	char reply[256] = "";

	return gadgetd_plugin.command(f->priv, 2, argv, reply, sizeof(reply));
}

/* The host takes every report written so far, one by one. */
static void host_takes(struct fixture *f, unsigned n)
{
	while (n--)
		gadgetd_plugin.tx_result(f->priv, 0, 8);
}

static void test_wakes_then_sends(void **state)
{
	struct fixture *f = *state;

	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(type(f, "ab"), PLUGIN_COMMAND_LATER);
	assert_int_equal(fake.wakeups, 1);
	assert_int_equal(fake.writes, 0);
	fake.wake_done(fake.wake_data, 0);
	assert_int_equal(fake.writes, 0);
	assert_false(fake.replied);
	gadgetd_plugin.suspend(f->priv, false);
	/* One report at a time: a press, then its release... */
	assert_int_equal(fake.writes, 1);
	host_takes(f, 4);
	assert_true(fake.replied);
	assert_int_equal(fake.reply_rc, 0);
	assert_string_equal(fake.reply, "typed 2 characters");
	/* ... four in all: none lost, none twice. */
	assert_int_equal(fake.writes, 4);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;

	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(type(f, "ab"), PLUGIN_COMMAND_LATER);
	fake.wake_done(fake.wake_data, -EOPNOTSUPP);
	assert_true(fake.replied);
	assert_int_equal(fake.reply_rc, -EHOSTDOWN);
	assert_non_null(strstr(fake.reply, "typed 0 of 2 characters: the host suspended the "
			       "bus and cannot be woken: the configuration does not offer "
			       "remote wakeup"));
	gadgetd_plugin.suspend(f->priv, false);
	assert_int_equal(fake.writes, 0);
}

static void test_not_woken(void **state)
{
	struct fixture *f = *state;
	uint64_t t0 = loop_now_ms();

	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(type(f, "ab"), PLUGIN_COMMAND_LATER);
	fake.wake_done(fake.wake_data, 0);
	RUN_UNTIL(fake.loop, fake.replied);
	assert_true(fake.replied);
	assert_true(loop_now_ms() - t0 >= 1000);
	assert_int_equal(fake.reply_rc, -EHOSTDOWN);
	assert_non_null(strstr(fake.reply, "did not resume it after a remote wakeup"));
	assert_non_null(strstr(fake.reply, "nothing was sent"));
	assert_int_equal(fake.writes, 0);
	/* A late resume sends nothing. */
	gadgetd_plugin.suspend(f->priv, false);
	assert_int_equal(fake.writes, 0);
}

/* The runtime could not ask gadgetd (its socket gone): said at once. */
static void test_cannot_ask(void **state)
{
	struct fixture *f = *state;

	gadgetd_plugin.suspend(f->priv, true);
	fake.wakeup_r = -EPIPE;
	assert_int_equal(type(f, "ab"), -EPIPE);
	assert_int_equal(fake.writes, 0);
}

static void test_suspended_midway(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(type(f, "ab"), PLUGIN_COMMAND_LATER);
	assert_int_equal(fake.wakeups, 0);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	/* The release in flight waits in the UDC's queue. */
	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(fake.wakeups, 1);
	fake.wake_done(fake.wake_data, 0);
	gadgetd_plugin.suspend(f->priv, false);
	assert_int_equal(fake.writes, 2);
	host_takes(f, 3);
	assert_true(fake.replied);
	assert_string_equal(fake.reply, "typed 2 characters");
	assert_int_equal(fake.writes, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wakes_then_sends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_woken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_ask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suspended_midway, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
