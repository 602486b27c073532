/* The switch transaction (gadget.c) against faked ConfigFS and workers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "fake_gadget_deps.h"
#include "event.h"
#include "gadget.h"
#include "loop.h"
#include "run_until.h"
#include "supervisor.h"
#include "uplink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct gadget *g;
	char msg[4096];
};

static int finish(struct fixture *f, int r, struct fake_result *res)
{
	r = fake_finish(f->loop, r, res);
	if (res->done)
		snprintf(f->msg, sizeof(f->msg), "%s", res->msg);
	return r;
}

static int do_switch(struct fixture *f, const char *profile, const char *set)
{
	struct fake_result res = { 0 };

	return finish(f, gadget_switch(f->g, profile, set, f->msg, sizeof(f->msg),
				       fake_on_done, &res), &res);
}

static int setup(void **state)
{
	struct fake_result res = { 0 };
	struct fixture *f = calloc(1, sizeof(*f));

	fake_profile_dir(f->dir, sizeof(f->dir), "test_gadget");
	fake_profile_put(f->dir, "t", fake_gadget_profile);
	fake_config(&f->cfg, f->dir);
	fake_reset();
	f->loop = loop_new();
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	assert_int_equal(finish(f, gadget_boot_start(f->g, f->msg, sizeof(f->msg), fake_on_done, &res),
				&res), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	gadget_free(f->g);
	loop_free(f->loop);
	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/w.conf", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void status_set(struct fixture *f, char *buf, size_t size)
{
	fake_status_set(f->g, buf, size);
}

static void test_start_applies_default(void **state)
{
	struct fixture *f = *state;
	char set[64];

	/* setup() ran gadget_boot_start: the default set from nothing. */
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
	assert_string_equal(fake_state_set, "acm,ecm");
}

static void test_switch_replaces_functions(void **state)
{
	struct fixture *f = *state;
	char set[64];

	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	assert_string_equal(fake_calls,
			    "unbind() unlink_all() remove(acm) remove(ecm) "
			    "identity(0106) add(ncm) link(ncm) bind(dummy_udc.0) ");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
	assert_non_null(strstr(f->msg, "switched to ncm"));
}

static void test_switch_keeps_common_function(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "adb,mtp"), 0);
	/* adb stays (its worker keeps running), acm goes, mtp comes. */
	assert_string_equal(fake_calls,
			    "unbind() unlink_all() remove(acm) identity(0108) "
			    "add(mtp) start(mtp) link(mtp) link(adb) bind(dummy_udc.0) ");
}

static void test_unknown_function_touches_nothing(void **state)
{
	struct fixture *f = *state;
	char set[64];

	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "nosuch"),
			 -ENOENT);
	assert_non_null(strstr(f->msg, "nosuch"));
	assert_string_equal(fake_calls, "");
	assert_int_equal(do_switch(f, NULL, "acm,ncm"),
			 -EPERM);
	assert_string_equal(fake_calls, "");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
}

static void test_plugin_not_ready_rolls_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "mtp,adb"),
			 -ETIMEDOUT);
	assert_non_null(strstr(f->msg, "function mtp: plugin not ready"));
	assert_non_null(strstr(f->msg, "rolled back to acm,ecm"));
	/* The failed attempt's plugins are stopped and the old set is back. */
	assert_non_null(strstr(fake_calls, "stop(mtp)"));
	assert_non_null(strstr(fake_calls, "stop(adb)"));
	assert_non_null(strstr(fake_calls, "identity(0105) add(acm) add(ecm) link(acm) link(ecm) bind(dummy_udc.0) "));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
	assert_string_equal(fake_state_set, "acm,ecm");
}

/* The status text of the gadget, malloc'd. */
static char *status_text(struct fixture *f, bool json)
{
	return fake_status_text(f->g, json);
}

/* A worker's own error line, as the supervisor reports a death before
 * ready: in the switch's reply and in status until a switch works. */
static void test_failure_reaches_status(void **state)
{
	struct fixture *f = *state;
	const char *why = "function mtp: failed: mtp: option storage0_path: "
			  "/srv/\"mtp\": No such file or directory";
	struct fake_result res = { 0 };
	char *text;

	fake_hold_ready = true;
	assert_int_equal(gadget_switch(f->g, NULL, "mtp,adb", f->msg, sizeof(f->msg),
				       fake_on_done, &res), -EINPROGRESS);
	loop_dispatch(f->loop, 0);
	assert_true(fake_waiting_ready());
	fake_release_ready(-ECHILD, why);
	/* The rollback's wait. */
	loop_dispatch(f->loop, 0);
	fake_release_ready(0, "");
	assert_int_equal(finish(f, -EINPROGRESS, &res), -ECHILD);
	assert_non_null(strstr(res.msg, why));
	assert_non_null(strstr(res.msg, "rolled back to acm,ecm"));
	text = status_text(f, false);
	assert_non_null(strstr(text, "\nlast failure: "));
	assert_non_null(strstr(text, ": switch to mtp,adb: function mtp: failed: "));
	free(text);
	text = status_text(f, true);
	assert_non_null(strstr(text, "\"last_failure\":{\"time\":"));
	assert_non_null(strstr(text, "/srv/\\\"mtp\\\": No such"));
	free(text);
	/* A switch that works clears it. */
	fake_hold_ready = false;
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	text = status_text(f, false);
	assert_null(strstr(text, "last failure"));
	free(text);
}

/* The unbind waits for the console's stop, without blocking the loop:
 * a switch away and off each go on once the backend says the stop is
 * done (systemd reopening ttyGS while its function went oopsed 6.1's
 * u_serial). Failed while the teardown unbound right after the stop. */
static void test_unbind_waits_for_console_stop(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };
	int i;

	assert_int_equal(do_switch(f, NULL, "tty,ecm"), 0);
	fake_clear_calls();
	fake_console_hold = true;
	assert_int_equal(gadget_switch(f->g, NULL, "acm,ecm", f->msg, sizeof(f->msg),
				       fake_on_done, &res), -EINPROGRESS);
	for (i = 0; i < 20; i++)
		loop_dispatch(f->loop, 1);
	assert_string_equal(fake_calls, "console(-3) ");
	assert_false(res.done);
	fake_console_release();
	assert_int_equal(finish(f, -EINPROGRESS, &res), 0);
	assert_true(strncmp(fake_calls, "console(-3) console(stopped) unbind() ", 38) == 0);
	/* Off alike. */
	assert_int_equal(do_switch(f, NULL, "tty,ecm"), 0);
	fake_clear_calls();
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	for (i = 0; i < 20; i++)
		loop_dispatch(f->loop, 1);
	assert_string_equal(fake_calls, "console(-3) ");
	assert_true(gadget_busy(f->g));
	fake_console_release();
	RUN_UNTIL(f->loop, !gadget_busy(f->g));
	assert_false(gadget_busy(f->g));
	assert_true(strncmp(fake_calls, "console(-3) console(stopped) unbind() ", 38) == 0);
}

static void test_link_failure_rolls_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(acm)");
	assert_true(do_switch(f, NULL, "acm,adb") < 0);
	assert_non_null(strstr(f->msg, "function acm: cannot link"));
	assert_non_null(strstr(f->msg, "rolled back to ncm"));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A set of two configurations: each function is created once and linked
 * into each configuration that lists it; status shows both. */
static void test_switch_to_two_configurations(void **state)
{
	struct fixture *f = *state;
	char set[64], *text;

	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "ecm,ncm,acm"), 0);
	assert_string_equal(fake_calls, "unbind() unlink_all() identity(010a) add(ncm) "
			    "link(ncm) link(acm) link(ecm@2) link(acm@2) bind(dummy_udc.0) ");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm,acm,ecm");
	text = status_text(f, false);
	assert_non_null(strstr(text, "\nconfigurations: c.1 ncm,acm; c.2 ecm,acm\n"));
	free(text);
	text = status_text(f, true);
	assert_non_null(strstr(text, "\"configurations\":[\"ncm,acm\",\"ecm,acm\"]"));
	free(text);
	/* Back to one configuration. */
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	text = status_text(f, false);
	assert_non_null(strstr(text, "\nconfigurations: c.1 ncm\n"));
	free(text);
}

/* A link into c.2 that fails rolls back like any other step: every
 * configuration is unlinked, and the old set (one configuration) comes
 * back. */
static void test_second_configuration_failure_rolls_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	fake_clear_calls();
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(ecm@2)");
	assert_true(do_switch(f, NULL, "ncm,acm,ecm") < 0);
	assert_non_null(strstr(f->msg, "function ecm: cannot link it into configuration 2"));
	assert_non_null(strstr(f->msg, "rolled back to acm,ecm"));
	assert_non_null(strstr(fake_calls, "link(ecm@2) unlink_all() "));
	assert_non_null(strstr(fake_calls, "identity(0105) link(acm) link(ecm) bind(dummy_udc.0) "));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
}

static void test_failed_rollback_turns_gadget_off(void **state)
{
	struct fixture *f = *state;
	char set[64];

	/* Both the new set and the old one need a link that fails. */
	fake_clear_calls();
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(acm)");
	assert_true(do_switch(f, NULL, "acm,adb") < 0);
	assert_non_null(strstr(f->msg, "rollback to acm,ecm failed"));
	assert_non_null(strstr(f->msg, "the gadget is off"));
	assert_non_null(strstr(fake_calls, "destroy()"));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "off");
}

static void test_off_and_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "off");
	assert_string_equal(fake_state_set, "");
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A network function's link comes up once the gadget is bound and goes
 * before it is unbound: on a switch away, off, and while its UDC is gone. */
static void test_network_link_follows_the_gadget(void **state)
{
	struct fixture *f = *state;

	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "rndis,adb"), 0);
	assert_non_null(strstr(fake_calls, "bind(dummy_udc.0) net(rndis@usb0) "));
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), 0);
	assert_string_equal(fake_calls, "net() unbind() stop(adb) reaped() unlink_all() "
			    "remove(rndis) remove(adb) identity(0105) add(acm) add(ecm) "
			    "link(acm) link(ecm) bind(dummy_udc.0) ");
	assert_int_equal(do_switch(f, NULL, "rndis,adb"), 0);
	fake_clear_calls();
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	assert_true(strncmp(fake_calls, "net() unbind() ", 15) == 0);
	RUN_UNTIL(f->loop, !gadget_busy(f->g));
	assert_false(gadget_busy(f->g));
	assert_int_equal(do_switch(f, NULL, "rndis,adb"), 0);
	/* The UDC goes (its gadget device is gone), then comes back. */
	fake_clear_calls();
	fake_udc_registering = 1000;
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "net() ");
	fake_udc_registering = 0;
	fake_clear_calls();
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "net(rndis@usb0) ");
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* A serial function's console starts once the gadget is bound, and
 * stops before each unbind (a switch, off) and while its UDC is gone. */
static void test_console_follows_the_gadget(void **state)
{
	struct fixture *f = *state;
	char *text;

	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "tty,ecm"), 0);
	assert_non_null(strstr(fake_calls, "bind(dummy_udc.0) console(+3) "));
	assert_int_equal(count(fake_calls, "console("), 1);
	text = fake_status_text(f->g, false);
	assert_non_null(strstr(text, "\nconsoles: tty ttyGS3 starting (fake)\n"));
	free(text);
	text = fake_status_text(f->g, true);
	assert_non_null(strstr(text, "\"consoles\":[{\"function\":\"tty\",\"tty\":\"ttyGS3\","
			       "\"state\":\"starting\",\"backend\":\"fake\"}]"));
	free(text);
	/* tty,ecm to tty,ncm keeps the function, but the unbind between
	 * hangs its tty up: the login stops first and starts afresh. */
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "tty,ncm"), 0);
	assert_true(strncmp(fake_calls, "console(-3) unbind() ", 21) == 0);
	assert_non_null(strstr(fake_calls, "bind(dummy_udc.0) console(+3) "));
	assert_int_equal(count(fake_calls, "console("), 2);
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), 0);
	assert_true(strncmp(fake_calls, "console(-3) ", 12) == 0);
	assert_int_equal(count(fake_calls, "console("), 1);
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "tty,ecm"), 0);
	assert_int_equal(count(fake_calls, "console(+3)"), 1);
	/* The UDC goes, then comes back. */
	fake_clear_calls();
	fake_udc_registering = 1000;
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "console(-3) ");
	fake_udc_registering = 0;
	fake_clear_calls();
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "console(+3) ");
	fake_clear_calls();
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	assert_true(strncmp(fake_calls, "console(-3) ", 12) == 0);
	RUN_UNTIL(f->loop, !gadget_busy(f->g));
	assert_int_equal(count(fake_calls, "console("), 1);
	text = fake_status_text(f->g, true);
	assert_non_null(strstr(text, "\"consoles\":[]"));
	free(text);
}

/* The links sharing the board's uplink, in text and JSON, from one
 * structure; a failed share with why, whose words reach a terminal
 * without control characters. */
static void test_status_shares(void **state)
{
	struct fixture *f = *state;
	char *text;

	fake_n_shares = 2;
	fake_shares[0] = (struct uplink_info){ .function = "ecm", .link = "usb0",
					       .uplink = "eth0", .state = UPLINK_ON };
	fake_shares[1] = (struct uplink_info){ .function = "ncm", .link = "usb1",
					       .uplink = "eth1", .state = UPLINK_FAILED,
					       .why = "no such uplink interface eth1\x1b[2J" };
	text = fake_status_text(f->g, false);
	assert_non_null(strstr(text, "\nuplink sharing: ecm usb0 via eth0 on; ncm usb1 via eth1 "
				     "failed: no such uplink interface eth1?[2J\n"));
	free(text);
	text = fake_status_text(f->g, true);
	assert_non_null(strstr(text, "\"uplink_sharing\":[{\"function\":\"ecm\",\"link\":\"usb0\","
				     "\"uplink\":\"eth0\",\"state\":\"on\",\"why\":\"\"},"
				     "{\"function\":\"ncm\",\"link\":\"usb1\",\"uplink\":\"eth1\","
				     "\"state\":\"failed\",\"why\":\"no such uplink interface "
				     "eth1\\u001b[2J\"}]"));
	free(text);
	fake_n_shares = 0;
	text = fake_status_text(f->g, false);
	assert_null(strstr(text, "uplink sharing"));
	free(text);
	text = fake_status_text(f->g, true);
	assert_non_null(strstr(text, "\"uplink_sharing\":[]"));
	free(text);
}

/* A UDC appears while the gadget is unbound, and the kernel refuses the
 * first binds as busy (its gadget device is not on the bus yet): gadgetd
 * tries again from a timer until the bind holds. */
static void test_udc_bind_retried_while_busy(void **state)
{
	struct fixture *f = *state;

	assert_non_null(fake_udc_fn);
	fake_udc_fn(fake_udc_data); /* bound already: nothing to do */
	fake_clear_calls();
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "");

	fake_lose_binding();
	fake_bind_busy = 2;
	fake_udc_registering = 2;
	fake_udc_fn(fake_udc_data);
	assert_false(fake_is_bound());
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 1);
	RUN_UNTIL(f->loop, fake_is_bound());
	assert_true(fake_is_bound());
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 3);
}

static void run_rounds(struct fixture *f, int n)
{
	while (n-- > 0)
		loop_dispatch(f->loop, 10);
}

/* The UDC came back and the kernel's own bind of the gadget waiting for
 * it failed (Linux 6.1.192, ecm/ncm/rndis): still bound by name, the UDC
 * drives nothing. After two looks gadgetd unbinds and binds afresh; a
 * UDC that drives the gadget is left alone. */
static void test_udc_stranded_bound_afresh(void **state)
{
	struct fixture *f = *state;

	fake_clear_calls();
	fake_udc_fn(fake_udc_data);
	run_rounds(f, 30);
	assert_string_equal(fake_calls, "");

	fake_udc_stranded = true;
	fake_udc_fn(fake_udc_data);
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 0);
	RUN_UNTIL(f->loop, strstr(fake_calls, "bind(dummy_udc.0)"));
	fake_udc_stranded = false; /* the fresh bind holds */
	assert_non_null(strstr(fake_calls, "unbind() bind(dummy_udc.0)"));
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 1);
	assert_true(fake_is_bound());
}

/* A switch whose bind the kernel refuses as busy (a UDC still
 * registering) tries again and commits; refused every time, it rolls back. */
static void test_switch_bind_retried_while_busy(void **state)
{
	struct fixture *f = *state;

	fake_clear_calls();
	fake_bind_busy = 2;
	fake_udc_registering = 2;
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
	assert_true(fake_is_bound());
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 3);

	/* The first try and six more, about 6.3 s; the rollback binds. */
	fake_clear_calls();
	fake_bind_busy = 7;
	fake_udc_registering = 7;
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), -EBUSY);
	assert_non_null(strstr(f->msg, "rolled back to ncm"));
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 8);
	assert_true(fake_is_bound());
}

/* Refused as busy by a UDC that is fully registered: a function's bind
 * failed (on Linux 6.1, ncm's second try after a failed one crashes the
 * kernel). No retry: the switch fails at once and rolls back. */
static void test_switch_bind_busy_registered_not_retried(void **state)
{
	struct fixture *f = *state;

	fake_clear_calls();
	fake_bind_busy = 1;
	assert_int_equal(do_switch(f, NULL, "ncm"), -EBUSY);
	assert_non_null(strstr(f->msg, "rolled back to acm,ecm"));
	/* Not "Device or resource busy": what the kernel's EBUSY meant. */
	assert_non_null(strstr(f->msg, "a function failed to bind to it"));
	assert_null(strstr(f->msg, "resource busy"));
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 2);
	assert_true(fake_is_bound());
	/* A UDC another gadget holds is named as such. */
	fake_clear_calls();
	fake_bind_busy = 1;
	fake_udc_holder = "other";
	assert_int_equal(do_switch(f, NULL, "ncm"), -EBUSY);
	assert_non_null(strstr(f->msg, "gadget \"other\" holds it"));
	fake_udc_holder = NULL;
	assert_true(fake_is_bound());

	fake_lose_binding();
	fake_clear_calls();
	fake_bind_busy = 1;
	fake_udc_fn(fake_udc_data);
	run_rounds(f, 30);
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 1);
	assert_false(fake_is_bound());
}

static void test_unknown_profile(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, "nosuch", NULL),
			 -ENOENT);
	assert_non_null(strstr(f->msg, "nosuch"));
}

static char *cmd_argv[] = { "adb", "ping", NULL };

/* A plugin command while a switch waits for its plugins is refused at
 * once; the switch goes on, then the command is relayed; and while it
 * waits for its reply, a client switch is refused and a plugin's request
 * waits for the reply. */
static void test_command_during_switch(void **state)
{
	struct fixture *f = *state;
	struct fake_result sw = { 0 }, cmd = { 0 };
	char reply[256], set[64];

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_hold_ready = true;
	assert_int_equal(gadget_switch(f->g, NULL, "mtp,adb,aoa", f->msg, sizeof(f->msg),
				       fake_on_done, &sw), -EINPROGRESS);
	run_rounds(f, 3);
	assert_true(fake_waiting_ready());
	assert_true(gadget_busy(f->g));
	assert_int_equal(gadget_command(f->g, 2, cmd_argv, reply, sizeof(reply),
						 fake_on_done, &cmd), -EBUSY);
	assert_non_null(strstr(reply, "another switch is in progress"));
	assert_int_equal(gadget_off(f->g, reply, sizeof(reply), NULL, NULL), -EBUSY);
	assert_int_equal(fake_commands_pending(), 0);
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &sw), 0);
	assert_false(gadget_busy(f->g));

	assert_int_equal(gadget_command(f->g, 2, cmd_argv, reply, sizeof(reply),
						 fake_on_done, &cmd), -EINPROGRESS);
	assert_true(gadget_busy(f->g));
	assert_int_equal(do_switch(f, NULL, "ncm"), -EBUSY);
	assert_non_null(strstr(f->msg, "plugin command is in progress"));
	fake_plugin_request("aoa", "ncm");
	run_rounds(f, 3);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "mtp,adb,aoa");
	fake_hold_ready = false;
	fake_command_reply(0, "pong");
	assert_true(cmd.done);
	assert_string_equal(cmd.msg, "pong");
	/* The plugin's switch starts right after the reply, before any
	 * client of the next round. */
	assert_true(gadget_busy(f->g));
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), -EBUSY);
	run_rounds(f, 5);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A worker's switch request is obeyed only from the accessory plugin of
 * the active set, and only for its accessory_set or "revert": what the
 * profile says, not what the worker says. A refusal changes nothing. */
static void test_plugin_switch_only_accessory(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(do_switch(f, NULL, "mtp,adb,aoa"), 0);
	fake_plugin_request("adb", "ncm");
	fake_plugin_request("mtp", "ncm");
	fake_plugin_request("mtp", "revert");
	fake_plugin_request("aoa", "acm,ecm");	/* not its accessory_set */
	fake_plugin_request("aoa", "nosuch");
	fake_plugin_request("acm", "ncm");	/* not running, no plugin */
	fake_plugin_request("nosuch", "ncm");
	run_rounds(f, 5);
	assert_false(gadget_busy(f->g));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "mtp,adb,aoa");
	assert_string_equal(fake_state_set, "mtp,adb,aoa");

	fake_plugin_request("aoa", " ncm ");
	run_rounds(f, 5);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
	/* aoa does not run in ncm: its request (a late one) is refused. */
	fake_plugin_request("aoa", "revert");
	run_rounds(f, 5);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A plugin's reply reaches the client as printable text: DEL, C0 and
 * C1 controls (raw and as UTF-8) and bidi controls come as \xNN; its
 * lines and tabs, and other UTF-8, stay. */
static void test_command_reply_sanitized(void **state)
{
	static const struct {
		const char *raw, *want;
	} cases[] = {
		{ "k1 user@host\n", "k1 user@host\n" },
		{ "del\x7f" "x", "del\\x7fx" },
		{ "esc\x1b[2J\r", "esc\\x1b[2J\\x0d" },
		{ "c1 \x9b" "2J", "c1 \\x9b2J" },
		{ "c1 utf8 \xc2\x9b" "2J \xc2\x80", "c1 utf8 \\xc2\\x9b2J \\xc2\\x80" },
		{ "rlo \xe2\x80\xae" "gpj.exe", "rlo \\xe2\\x80\\xaegpj.exe" },
		{ "lre \xe2\x80\xaa pdf \xe2\x80\xac", "lre \\xe2\\x80\\xaa pdf \\xe2\\x80\\xac" },
		{ "isolates \xe2\x81\xa6\xe2\x81\xa9", "isolates \\xe2\\x81\\xa6\\xe2\\x81\\xa9" },
		{ "a\tb\nM\xc3\xbcller \xe2\x98\x83\n", "a\tb\nM\xc3\xbcller \xe2\x98\x83\n" },
	};
	struct fixture *f = *state;
	char reply[256];
	size_t i;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_result cmd = { 0 };

		assert_int_equal(gadget_command(f->g, 2, cmd_argv, reply,
							 sizeof(reply), fake_on_done, &cmd),
				 -EINPROGRESS);
		fake_command_reply(0, cases[i].raw);
		assert_true(cmd.done);
		assert_string_equal(cmd.msg, cases[i].want);
	}
}

/* SIGHUP during a switch is not a reload inside it: it waits, and runs
 * (with the changed file) once the switch is done. */
static void test_sighup_during_switch(void **state)
{
	struct fixture *f = *state;
	struct fake_result sw = { 0 };
	char path[128], *text, *p, set[64];
	FILE *fp;

	fake_hold_ready = true;
	assert_int_equal(gadget_switch(f->g, NULL, "ncm", f->msg, sizeof(f->msg),
				       fake_on_done, &sw), -EINPROGRESS);
	run_rounds(f, 2);
	/* The profile on disk changes ncm's product id. */
	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	text = strdup(fake_gadget_profile);
	p = strstr(text, "0x0106");
	memcpy(p, "0x0116", 6);
	fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	free(text);
	fake_clear_calls();
	gadget_queue_reload(f->g);
	gadget_queue_reload(f->g);
	run_rounds(f, 5);
	assert_string_equal(fake_calls, "");
	assert_true(fake_waiting_ready());
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &sw), 0);
	/* The reload now: one more transaction, with the new identity. */
	RUN_UNTIL(f->loop, strstr(fake_calls, "identity(0116)"));
	assert_string_equal(fake_calls, "bind(dummy_udc.0) unbind() unlink_all() "
			    "identity(0116) link(ncm) ");
	assert_true(fake_waiting_ready());
	fake_release_ready(0, "");
	run_rounds(f, 3);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "bind(dummy_udc.0) unbind() unlink_all() "
			    "identity(0116) link(ncm) bind(dummy_udc.0) ");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A reload nobody waits for (SIGHUP, `systemctl reload`) of a broken
 * profile: the gadget stays as it was, and status says why, with the
 * file and line, as the log does. */
static void test_sighup_broken_profile_in_status(void **state)
{
	struct fixture *f = *state;
	char path[128], set[64], *text;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	fp = fopen(path, "a");
	fputs("gadget: { vendor_id = \"oops\"; };\n", fp);
	fclose(fp);
	fake_clear_calls();
	gadget_queue_reload(f->g);
	RUN_UNTIL(f->loop, !gadget_busy(f->g));
	run_rounds(f, 2);
	assert_string_equal(fake_calls, "");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
	text = status_text(f, true);
	assert_non_null(strstr(text, "\"last_failure\":{\"time\":"));
	assert_non_null(strstr(text, "\"message\":\"reload: "));
	assert_non_null(strstr(text, "t.conf:"));
	free(text);
}

/* The worker dies while a command to it waits: the command fails with
 * -EPIPE, and the gadget is free for the next request. */
static void test_worker_dies_with_command_pending(void **state)
{
	struct fixture *f = *state;
	struct fake_result cmd = { 0 };
	char reply[256];

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	assert_int_equal(gadget_command(f->g, 2, cmd_argv, reply, sizeof(reply),
						 fake_on_done, &cmd), -EINPROGRESS);
	fake_worker_dies("adb");
	assert_true(cmd.done);
	assert_int_equal(cmd.r, -EPIPE);
	assert_non_null(strstr(cmd.msg, "exited before it replied"));
	assert_false(gadget_busy(f->g));
	assert_int_equal(do_switch(f, NULL, "ncm"), 0);
}

/* The caller of a command goes away (gadget_cancel): the reply comes and
 * is dropped; a switch still waiting when the gadget is freed is
 * answered with -ECANCELED. */
static void test_cancel_and_free(void **state)
{
	struct fixture *f = *state;
	struct fake_result cmd = { 0 }, sw = { 0 };
	char reply[256];

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	assert_int_equal(gadget_command(f->g, 2, cmd_argv, reply, sizeof(reply),
						 fake_on_done, &cmd), -EINPROGRESS);
	gadget_cancel(f->g, &cmd);
	fake_command_reply(0, "pong");
	assert_false(cmd.done);
	assert_false(gadget_busy(f->g));

	fake_hold_ready = true;
	assert_int_equal(gadget_switch(f->g, NULL, "mtp,adb", f->msg, sizeof(f->msg),
				       fake_on_done, &sw), -EINPROGRESS);
	run_rounds(f, 2);
	gadget_free(f->g);
	f->g = NULL;
	assert_true(sw.done);
	assert_int_equal(sw.r, -ECANCELED);
}

/* A crashed worker's restart while a switch waits for plugins starts it
 * again at once (the gadget is unbound); outside a switch it is a
 * transaction of its own: unbind, respawn, wait, bind. */
static void test_restart_during_switch(void **state)
{
	struct fixture *f = *state;
	struct fake_result sw = { 0 };

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_hold_ready = true;
	assert_int_equal(gadget_switch(f->g, NULL, "mtp,adb", f->msg, sizeof(f->msg),
				       fake_on_done, &sw), -EINPROGRESS);
	run_rounds(f, 2);
	fake_clear_calls();
	fake_restart_due("adb");
	assert_string_equal(fake_calls, "respawn(adb) ");
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &sw), 0);

	fake_clear_calls();
	fake_restart_due("adb");
	assert_true(gadget_busy(f->g));
	assert_string_equal(fake_calls, "unbind() respawn(adb) ");
	fake_release_ready(0, "");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "unbind() respawn(adb) bind(dummy_udc.0) ");
}

/* A switch never waits in a call for a worker to die: the functions of
 * the old set are removed only after their stopped workers are reaped,
 * in a later round, and the switch goes on from there. */
static void test_switch_waits_for_reap(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };

	assert_int_equal(do_switch(f, NULL, "mtp,adb"), 0);
	fake_hold_stop = true;
	fake_clear_calls();
	assert_int_equal(gadget_switch(f->g, NULL, "acm,ecm", f->msg, sizeof(f->msg),
				       fake_on_done, &res), -EINPROGRESS);
	RUN_UNTIL(f->loop, fake_waiting_stopped());
	/* More rounds, for what must not happen before the reap. */
	run_rounds(f, 5);
	assert_false(res.done);
	assert_true(fake_waiting_stopped());
	assert_non_null(strstr(fake_calls, "stop(mtp)"));
	assert_non_null(strstr(fake_calls, "stop(adb)"));
	assert_null(strstr(fake_calls, "remove("));
	assert_null(strstr(fake_calls, "unlink_all"));
	assert_true(gadget_busy(f->g));
	fake_release_stop();
	assert_int_equal(fake_wait_done(f->loop, &res), 0);
	assert_non_null(strstr(fake_calls, "reaped() unlink_all() remove("));
	assert_true(strstr(fake_calls, "stop(adb)") < strstr(fake_calls, "reaped()"));
}

/* Off unbinds at once and answers; the functions go once the workers are
 * reaped, and until then the gadget is busy. */
static void test_off_waits_for_reap(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(do_switch(f, NULL, "mtp,adb"), 0);
	fake_hold_stop = true;
	fake_clear_calls();
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	assert_false(fake_is_bound());
	assert_null(strstr(fake_calls, "remove("));
	assert_true(gadget_busy(f->g));
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), -EBUSY);
	assert_non_null(strstr(f->msg, "going down"));
	fake_release_stop();
	RUN_UNTIL(f->loop, !gadget_busy(f->g));
	assert_false(gadget_busy(f->g));
	assert_non_null(strstr(fake_calls, "reaped() unlink_all() remove("));
	assert_non_null(strstr(fake_calls, "destroy()"));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "off");
	assert_int_equal(do_switch(f, NULL, "acm,ecm"), 0);
}

/* A failed plugin (a crash loop) keeps the gadget bound; a switch, even
 * to the set already active, unbinds and starts it again. */
static void test_switch_revives_failed_plugin(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "mtp,adb"), 0);
	assert_int_equal(do_switch(f, NULL, "mtp,adb"), 0);
	assert_non_null(strstr(f->msg, "already active"));
	fake_plugin_failed("adb");
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "mtp,adb"), 0);
	assert_non_null(strstr(f->msg, "switched to mtp,adb"));
	assert_non_null(strstr(fake_calls, "unbind() revive() "));
	assert_true(fake_is_bound());
}

/* The restart that ends in a failed plugin (it crashed before it was
 * ready): the other functions are linked and bound without it. */
static void test_restart_into_failed_binds_the_rest(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_hold_ready = true;
	fake_clear_calls();
	fake_restart_due("adb");
	assert_string_equal(fake_calls, "unbind() respawn(adb) ");
	fake_plugin_failed("adb");
	fake_release_ready(-ECHILD, "function adb: failed: crashed 5 times in 60 s");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "unbind() respawn(adb) unlink_all() link(acm) "
					"bind(dummy_udc.0) ");
	assert_true(fake_is_bound());
	/* The last restart the supervisor gives a failed plugin finds it left
	 * out already: nothing happens, no re-enumeration. */
	fake_clear_calls();
	fake_restart_due("adb");
	run_rounds(f, 2);
	assert_string_equal(fake_calls, "");
	/* The next switch, to the same set, links adb again. */
	fake_hold_ready = false;
	fake_clear_calls();
	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	assert_non_null(strstr(fake_calls, "revive() "));
	assert_non_null(strstr(fake_calls, "link(acm) link(adb) bind(dummy_udc.0) "));
}

/* A worker marked failed while the gadget is bound (or after the kernel
 * unbound it): one last restart binds the rest without it. */
static void test_failed_plugin_rebinds_without_it(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_plugin_failed("adb");
	fake_clear_calls();
	fake_restart_due("adb");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "unbind() respawn(adb) unlink_all() link(acm) "
					"bind(dummy_udc.0) ");
	/* The kernel had unbound it already: the same. */
	fake_lose_binding();
	fake_clear_calls();
	fake_restart_due("adb");
	run_rounds(f, 2);
	assert_string_equal(fake_calls, "respawn(adb) unlink_all() link(acm) "
					"bind(dummy_udc.0) ");
	assert_true(fake_is_bound());
}

/* A failed plugin in c.2: the restart links the rest of each
 * configuration back into that configuration. */
static void test_failed_plugin_in_second_configuration(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "ecm,acm,adb"), 0);
	fake_plugin_failed("adb");
	fake_clear_calls();
	fake_restart_due("adb");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "unbind() respawn(adb) unlink_all() link(ecm) "
					"link(acm@2) bind(dummy_udc.0) ");
	assert_true(fake_is_bound());
}

/* An earlier restart left the gadget unbound (its worker died before it
 * was ready, and the kernel refused the bind): the next restart binds. */
static void test_restart_when_unbound_binds_again(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_lose_binding();
	fake_clear_calls();
	fake_restart_due("adb");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_string_equal(fake_calls, "respawn(adb) bind(dummy_udc.0) ");
	assert_true(fake_is_bound());
}

/* The kernel unbound the gadget itself (a host reset while the worker
 * was dead): the restart binds it again once the plugin is ready. */
static void test_restart_after_kernel_unbind(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_lose_binding();
	fake_clear_calls();
	fake_hold_ready = true;
	fake_restart_due("adb");
	assert_true(gadget_busy(f->g));
	fake_release_ready(0, "");
	run_rounds(f, 2);
	assert_false(gadget_busy(f->g));
	assert_non_null(strstr(fake_calls, "respawn(adb) bind(dummy_udc.0) "));
	assert_true(fake_is_bound());
}

/* gadgetctl wait: asked before the start-up began, answered when it is
 * over, in order; at once afterwards; a cancelled waiter hears nothing. */
static void test_boot_wait(void **state)
{
	struct fixture *f = *state;
	struct fake_result w1 = { 0 }, w2 = { 0 }, gone = { 0 }, boot = { 0 };

	gadget_free(f->g);
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	assert_int_equal(gadget_boot_wait(f->g, f->msg, sizeof(f->msg), fake_on_done, &w1),
			 -EINPROGRESS);
	assert_int_equal(gadget_boot_wait(f->g, f->msg, sizeof(f->msg), fake_on_done, &gone),
			 -EINPROGRESS);
	assert_int_equal(gadget_boot_wait(f->g, f->msg, sizeof(f->msg), fake_on_done, &w2),
			 -EINPROGRESS);
	gadget_cancel(f->g, &gone);
	assert_int_equal(finish(f, gadget_boot_start(f->g, f->msg, sizeof(f->msg),
						     fake_on_done, &boot), &boot), 0);
	assert_int_equal(fake_wait_done(f->loop, &w2), 0);
	assert_true(w1.done);
	assert_int_equal(w1.r, 0);
	assert_non_null(strstr(w1.msg, "acm,ecm"));
	assert_false(gone.done);
	assert_int_equal(gadget_boot_wait(f->g, f->msg, sizeof(f->msg), fake_on_done, &gone), 0);
	assert_non_null(strstr(f->msg, "acm,ecm"));
	/* Waiting at gadget_free(): told gadgetd stops. */
	gadget_free(f->g);
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	memset(&w1, 0, sizeof(w1));
	assert_int_equal(gadget_boot_wait(f->g, f->msg, sizeof(f->msg), fake_on_done, &w1),
			 -EINPROGRESS);
	gadget_free(f->g);
	f->g = NULL;
	assert_true(w1.done);
	assert_int_equal(w1.r, -ECANCELED);
}

/* The names shell completion asks for. */
static void test_list_names(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(gadget_list_names(f->g, out, "sets"), 0);
	assert_int_equal(gadget_list_names(f->g, out, "profiles"), 0);
	assert_int_equal(gadget_list_names(f->g, out, "functions"), 0);
	assert_int_equal(gadget_list_names(f->g, out, "set"), -EINVAL);
	fclose(out);
	assert_string_equal(text, "acm,ecm\nncm\nacm,adb\nmtp,adb\nmtp,adb,aoa\n"
			    "ncm,acm,ecm\necm,acm,adb\nrndis,adb\ntty,ecm\ntty,ncm\n"
			    "t\n"
			    "acm\t-\necm\t-\nncm\t-\nadb\tadb\nmtp\tmtp\naoa\taccessory\n"
			    "rndis\t-\ntty\t-\n");
	free(text);
}

/* Off: begun and done at once, and the host is told it is detached. */
static void test_off_events(void **state)
{
	struct fixture *f = *state;
	struct event_sub *sub = event_subscribe(fake_hear, NULL);

	fake_heard[0] = '\0';
	fake_host_state("configured");
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	assert_string_equal(fake_heard, "host:configured:0;switch-begun::0;"
			    "host:not attached:0;switch-done::0;");
	event_unsubscribe(sub);
}

/* A profile "w" whose set "acm" offers remote wakeup and "ecm" does not. */
static const char wake_profile[] =
	"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { lang = 0x409; manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
	"functions: { acm: { type = \"acm\"; }; ecm: { type = \"ecm\"; }; };\n"
	"sets = ( { functions = [ \"acm\" ]; product_id = 0x0105; remote_wakeup = true; },\n"
	"         { functions = [ \"ecm\" ]; product_id = 0x0106; } );\n"
	"default = \"acm\";\n";

/* gadgetctl wakeup: refused, each with its reason and without touching
 * the UDC, while off, for a set without remote_wakeup and with the bus
 * awake; the UDC's error is told; a wakeup is answered once the bus
 * resumes, or after 2 s without; a client gone is not answered. */
static void test_wakeup(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };
	char msg[512];
	uint64_t t0;
	char *text;

	fake_profile_put(f->dir, "w", wake_profile);
	assert_non_null(fake_bus_ops);
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), fake_on_done, &res) == -EINPROGRESS ?
			 fake_wait_done(f->loop, &res) : 0, 0);
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -ENOTCONN);
	assert_non_null(strstr(msg, "not bound"));
	assert_int_equal(do_switch(f, "w", "ecm"), 0);
	fake_bus_suspended = true;
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EOPNOTSUPP);
	assert_non_null(strstr(msg, "does not offer remote wakeup (remote_wakeup = true"));
	/* A plugin's request gets the same answer. */
	assert_int_equal(fake_bus_ops->wake("hid", fake_bus_data), -EOPNOTSUPP);
	assert_int_equal(do_switch(f, "w", "acm"), 0);
	text = fake_status_text(f->g, true);
	assert_non_null(strstr(text, "\"bus\":\"suspended\",\"remote_wakeup\":true"));
	free(text);
	fake_bus_suspended = false;
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EAGAIN);
	assert_non_null(strstr(msg, "the bus is not suspended"));
	assert_int_equal(fake_bus_ops->wake("hid", fake_bus_data), -EAGAIN);
	assert_int_equal(fake_udc_wakeups, 0);
	fake_bus_suspended = true;
	fake_udc_wakeup_r = -EROFS;
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EROFS);
	assert_non_null(strstr(msg, "/sys/class/udc/dummy_udc.0/srp: Read-only file system"));
	fake_udc_wakeup_r = 0;
	assert_int_equal(fake_bus_ops->wake("hid", fake_bus_data), 0);
	/* Woken: answered when a worker tells the bus resumed. */
	memset(&res, 0, sizeof(res));
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EINPROGRESS);
	fake_bus_ops->bus("acm", true, fake_bus_data);
	assert_false(res.done);
	fake_bus_ops->bus("acm", false, fake_bus_data);
	assert_true(res.done);
	assert_int_equal(res.r, 0);
	assert_string_equal(res.msg, "the host resumed the bus");
	/* Not woken: answered after 2 s. */
	memset(&res, 0, sizeof(res));
	t0 = loop_now_ms();
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EINPROGRESS);
	assert_int_equal(fake_wait_done(f->loop, &res), -EHOSTDOWN);
	assert_true(loop_now_ms() - t0 >= 2000);
	assert_non_null(strstr(res.msg, "it has not enabled remote wakeup"));
	/* A client that went: its wait is forgotten. */
	memset(&res, 0, sizeof(res));
	assert_int_equal(gadget_wakeup(f->g, msg, sizeof(msg), fake_on_done, &res), -EINPROGRESS);
	gadget_cancel(f->g, &res);
	fake_bus_ops->bus("acm", false, fake_bus_data);
	assert_false(res.done);
	assert_int_equal(fake_udc_wakeups, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_applies_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wakeup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_replaces_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_keeps_common_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_function_touches_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_not_ready_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_reaches_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_failure_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_to_two_configurations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_configuration_failure_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_plugin_in_second_configuration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_rollback_turns_gadget_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_and_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_network_link_follows_the_gadget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_follows_the_gadget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_shares, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbind_waits_for_console_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udc_stranded_bound_afresh,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_udc_bind_retried_while_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_bind_retried_while_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_bind_busy_registered_not_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_during_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_switch_only_accessory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_reply_sanitized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sighup_during_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sighup_broken_profile_in_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_dies_with_command_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_and_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_during_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_after_kernel_unbind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_waits_for_reap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_waits_for_reap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_revives_failed_plugin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_into_failed_binds_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_plugin_rebinds_without_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_when_unbound_binds_again, setup, teardown),
	};

	return cmocka_run_group_tests_name("gadget", tests, NULL, NULL);
}
