/*
 * The hid plugin (functions/hid/hid.c) against a fake runtime: remote
 * wakeup. A command that finds the bus suspended asks for a wakeup and
 * sends nothing until the bus resumes, then every report once; a refused
 * or unanswered wakeup ends the command with its reason, nothing sent;
 * a suspend in the middle asks for a wakeup and the rest follows the
 * resume.
 *
 * Forwarded input (forward = "input"): a device's events, through a pipe
 * standing in for its evdev fd, become reports one at a time, none lost
 * or doubled; a command waits for the forwarded report in flight and the
 * queue for the command; a suspended bus is woken for them, once for a
 * report the host does not take (no wakeup at each autosuspend), and a
 * refused wakeup drops the queue but not the report in flight; the hotkey
 * asks gadgetd to toggle the grab and the host gets every key released;
 * a release from gadgetd does too; a device that goes is closed; a
 * queue the host does not drain stays bounded.
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
#include <fcntl.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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
	const char *forward;     /* the forward option, NULL: none */
	const char *kind;
	uint8_t last[64];        /* the last report written */
	unsigned grabs;          /* plugin_input_grab() calls */
	unsigned grab_how;
	char status[256];        /* the "forward" status */
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
	if (!strcmp(key, "forward"))
		return fake.forward;
	if (!strcmp(key, "kind"))
		return fake.kind;
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	fake.writes++;
	memcpy(fake.last, buf, len < sizeof(fake.last) ? len : sizeof(fake.last));
	return 0;
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	if (!strcmp(key, "forward"))
		snprintf(fake.status, sizeof(fake.status), "%s", value);
}

int plugin_input_grab(struct plugin *p, unsigned how)
{
	fake.grabs++;
	fake.grab_how = how;
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


/* A forwarding function: the fixture's plugin again, with forward on. */
static int setup_fwd(void **state)
{
	static struct fixture f;
	struct plugin_desc desc = { 0 };

	memset(&fake, 0, sizeof(fake));
	fake.loop = loop_new();
	fake.forward = "input";
	assert_int_equal(gadgetd_plugin.init((struct plugin *)&fake_token, &desc, &f.priv), 0);
	gadgetd_plugin.enable(f.priv);
	*state = &f;
	return 0;
}

/* A device: the write end of a pipe the plugin reads as its evdev fd. */
static int device(struct fixture *f, uint32_t id)
{
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	gadgetd_plugin.input(f->priv, id, p[0], true, "event9 test");
	return p[1];
}

static void emit(int fd, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event e = { .type = type, .code = code, .value = value };

	assert_int_equal(write(fd, &e, sizeof(e)), (ssize_t)sizeof(e));
}

static void key(int fd, uint16_t code, int32_t value)
{
	emit(fd, EV_KEY, code, value);
	emit(fd, EV_SYN, SYN_REPORT, 0);
}

static void pump(void)
{
	int i;

	for (i = 0; i < 5; i++)
		loop_dispatch(fake.loop, 0);
}

static void test_fwd_keys(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	assert_string_equal(fake.status, "grabbed");
	key(fd, KEY_A, 1);
	key(fd, KEY_A, 0);
	key(fd, KEY_B, 1);
	key(fd, KEY_B, 0);
	pump();
	/* One report in flight until the host takes it. */
	assert_int_equal(fake.writes, 1);
	assert_int_equal(fake.last[2], 0x04);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0);
	host_takes(f, 1);
	assert_int_equal(fake.last[2], 0x05);
	host_takes(f, 2);
	/* Four reports, each once. */
	assert_int_equal(fake.writes, 4);
	host_takes(f, 3);
	assert_int_equal(fake.writes, 4);
	close(fd);
}

static void test_fwd_and_command(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	key(fd, KEY_X, 1);
	pump();
	assert_int_equal(fake.writes, 1);
	/* The command waits for the forwarded report in flight ... */
	assert_int_equal(type(f, "a"), PLUGIN_COMMAND_LATER);
	assert_int_equal(fake.writes, 1);
	key(fd, KEY_X, 0);
	pump();
	host_takes(f, 1);
	/* ... goes next, and the queue waits for it. */
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0x04);
	host_takes(f, 2);
	assert_true(fake.replied);
	assert_int_equal(fake.reply_rc, 0);
	assert_int_equal(fake.writes, 4);
	assert_int_equal(fake.last[2], 0);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 4);
	close(fd);
}

static void test_fwd_wakes(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	gadgetd_plugin.suspend(f->priv, true);
	key(fd, KEY_A, 1);
	pump();
	assert_int_equal(fake.wakeups, 1);
	assert_int_equal(fake.writes, 0);
	fake.wake_done(fake.wake_data, 0);
	gadgetd_plugin.suspend(f->priv, false);
	assert_int_equal(fake.writes, 1);
	assert_int_equal(fake.last[2], 0x04);
	close(fd);
}

/* A host that resumes and suspends again without taking the report in
 * flight (it does not poll this interface) is woken once for it, not at
 * each suspend; new input behind it does not wake it either. The next
 * report, once the host takes that one, may wake it again. */
static void test_fwd_wakes_once(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);
	int i;

	key(fd, KEY_A, 1);
	pump();
	assert_int_equal(fake.writes, 1);
	for (i = 0; i < 5; i++) {
		gadgetd_plugin.suspend(f->priv, true);
		assert_int_equal(fake.wakeups, 1);
		if (!i)
			fake.wake_done(fake.wake_data, 0);
		key(fd, KEY_A, i % 2 ? 1 : 0);
		pump();
		assert_int_equal(fake.wakeups, 1);
		gadgetd_plugin.suspend(f->priv, false);
	}
	assert_int_equal(fake.writes, 1);
	/* The host polls again: the queue follows, each report once. */
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0);
	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(fake.wakeups, 2);
	close(fd);
}

/* A wakeup refused with a report in flight drops the queue, not the
 * slot in flight: input queued after it is sent once that is taken. */
static void test_fwd_refused_keeps_next(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	key(fd, KEY_A, 1);
	pump();
	key(fd, KEY_A, 0);
	pump();
	assert_int_equal(fake.writes, 1);
	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(fake.wakeups, 1);
	fake.wake_done(fake.wake_data, -EOPNOTSUPP);
	gadgetd_plugin.suspend(f->priv, false);
	key(fd, KEY_C, 1);
	pump();
	assert_int_equal(fake.writes, 1);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0x06);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	close(fd);
}

/* A command that waited for a resume while a forwarded report was in
 * flight: one report in flight at a time still, the forwarded one first. */
static void test_fwd_then_command_across_suspend(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	key(fd, KEY_A, 1);
	pump();
	assert_int_equal(fake.writes, 1);
	gadgetd_plugin.suspend(f->priv, true);
	assert_int_equal(type(f, "b"), PLUGIN_COMMAND_LATER);
	gadgetd_plugin.suspend(f->priv, false);
	assert_int_equal(fake.writes, 1);
	host_takes(f, 1);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0x05);
	host_takes(f, 2);
	assert_true(fake.replied);
	assert_int_equal(fake.reply_rc, 0);
	assert_int_equal(fake.writes, 3);
	close(fd);
}

static void test_fwd_hotkey(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);

	key(fd, KEY_LEFTCTRL, 1);
	key(fd, KEY_LEFTALT, 1);
	pump();
	host_takes(f, 2);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[0], 0x05);
	key(fd, KEY_SCROLLLOCK, 1);
	pump();
	/* gadgetd is asked to toggle, the hotkey's last key not sent ... */
	assert_int_equal(fake.grabs, 1);
	assert_int_equal(fake.grab_how, PLUGIN_INPUT_TOGGLE);
	assert_int_equal(fake.writes, 2);
	/* ... and once it released the devices, the host gets everything
	 * released, once. */
	gadgetd_plugin.input_state(f->priv, false);
	assert_string_equal(fake.status, "released");
	assert_int_equal(fake.writes, 3);
	assert_int_equal(fake.last[0], 0);
	host_takes(f, 1);
	/* Released: the board has the keys, nothing goes to the host. */
	key(fd, KEY_SCROLLLOCK, 0);
	key(fd, KEY_LEFTALT, 0);
	key(fd, KEY_LEFTCTRL, 0);
	key(fd, KEY_A, 1);
	key(fd, KEY_A, 0);
	pump();
	assert_int_equal(fake.writes, 3);
	gadgetd_plugin.input_state(f->priv, true);
	assert_string_equal(fake.status, "grabbed");
	key(fd, KEY_B, 1);
	pump();
	assert_int_equal(fake.writes, 4);
	assert_int_equal(fake.last[2], 0x05);
	close(fd);
}

static void test_fwd_gone(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 7);

	key(fd, KEY_A, 1);
	pump();
	host_takes(f, 1);
	/* The device goes with A held: the host gets it released. */
	gadgetd_plugin.input_gone(f->priv, 7);
	assert_int_equal(fake.writes, 2);
	assert_int_equal(fake.last[2], 0);
	assert_string_equal(fake.status, "no device");
	host_takes(f, 1);
	close(fd);
	/* A device whose fd ends (unplugged) is closed too. */
	fd = device(f, 8);
	assert_string_equal(fake.status, "grabbed");
	close(fd);
	pump();
	assert_string_equal(fake.status, "no device");
}

static void test_fwd_bounded(void **state)
{
	struct fixture *f = *state;
	int fd = device(f, 1);
	unsigned i;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	/* The host takes nothing; the device goes on. */
	for (i = 0; i < 400; i++) {
		key(fd, KEY_A, 1);
		key(fd, KEY_A, 0);
		pump();
	}
	key(fd, KEY_B, 1);
	pump();
	assert_int_equal(fake.writes, 1);
	/* The queue was emptied once full, and holds what is held now. */
	host_takes(f, 1);
	for (i = 0; i < 300 && fake.last[2] != 0x05; i++)
		host_takes(f, 1);
	assert_int_equal(fake.last[2], 0x05);
	close(fd);
}

static void test_fwd_off(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "forward", "release", NULL };
	char reply[256];
	int p[2];

	/* Not forwarding: a device gadgetd should not have sent is closed,
	 * the command refused. */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	gadgetd_plugin.input(f->priv, 1, p[0], true, "event9 test");
	assert_int_equal(write(p[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
	assert_int_equal(gadgetd_plugin.command(f->priv, 2, argv, reply, sizeof(reply)),
			 -ENOTSUP);
}

static void test_fwd_command(void **state)
{
	struct fixture *f = *state;
	char *release[] = { "forward", "release", NULL }, *bad[] = { "forward", "x", NULL };
	char reply[256];

	assert_int_equal(gadgetd_plugin.command(f->priv, 2, release, reply, sizeof(reply)), 0);
	assert_int_equal(fake.grab_how, PLUGIN_INPUT_RELEASE);
	assert_int_equal(gadgetd_plugin.command(f->priv, 2, bad, reply, sizeof(reply)), -EINVAL);
	assert_int_equal(gadgetd_plugin.command(f->priv, 1, bad, reply, sizeof(reply)), -EINVAL);
	assert_int_equal(fake.grabs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wakes_then_sends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_woken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_ask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suspended_midway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_keys, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_and_command, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_wakes, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_wakes_once, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_refused_keeps_next, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_then_command_across_suspend, setup_fwd,
						teardown),
		cmocka_unit_test_setup_teardown(test_fwd_hotkey, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_gone, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_bounded, setup_fwd, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fwd_command, setup_fwd, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
