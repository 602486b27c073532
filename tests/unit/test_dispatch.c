/* The clients' queue (dispatch.c) over the gadget (gadget.c), with the
 * fakes of test_gadget: run, queue or busy; the order; the limits; the
 * check again, by access_check(), when a queued request starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"
#include "config.h"
#include "dispatch.h"
#include "event.h"
#include "fake_gadget_deps.h"
#include "gadget.h"
#include "loop.h"
#include "request.h"
#include "run_until.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct access_peer peer_admin = { .uid = 1001, .in_admin = true };
static const struct access_peer peer_member = { .uid = 1002, .in_group = true };

struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct gadget *g;
	struct dispatch *d;
	char msg[4096];
};

/* A switch (or reload, off) of who, as a front end submits it. */
static int submit(struct fixture *f, const struct access_peer *who, enum request_op op,
		  const char *profile, const char *set, struct fake_result *res)
{
	struct request req = { .op = op, .profile = profile, .set = set };

	return dispatch_submit(f->d, who, &req, f->msg, sizeof(f->msg), NULL,
			       fake_on_done, res);
}

static int switch_as(struct fixture *f, const struct access_peer *who,
		     const char *profile, const char *set, struct fake_result *res)
{
	return submit(f, who, REQUEST_SWITCH, profile, set, res);
}

static void run_rounds(struct fixture *f, int n)
{
	while (n-- > 0)
		loop_dispatch(f->loop, 10);
}

static int setup(void **state)
{
	struct access_policy pol = { .group = "plugdev", .group_gid = 4242,
				     .admin_group = "gadgetadm", .admin_gid = 4343 };
	struct fake_result res = { 0 };
	struct fixture *f = calloc(1, sizeof(*f));

	fake_profile_dir(f->dir, sizeof(f->dir), "test_dispatch");
	fake_profile_put(f->dir, "t", fake_gadget_profile);
	/* u: the same sets under another name. */
	fake_profile_put(f->dir, "u", fake_gadget_profile);
	fake_config(&f->cfg, f->dir);
	f->cfg.switch_queue = 8;
	f->cfg.switch_queue_timeout_ms = 60000;
	fake_reset();
	f->loop = loop_new();
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	assert_int_equal(fake_finish(f->loop, gadget_boot_start(f->g, f->msg, sizeof(f->msg),
								  fake_on_done, &res), &res), 0);
	f->d = dispatch_new(f->loop, &f->cfg, &pol, f->g);
	assert_non_null(f->d);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	dispatch_free(f->d);
	gadget_free(f->g);
	loop_free(f->loop);
	fake_profile_dir_remove(f->dir);
	free(f);
	return 0;
}

/* An admin's switch to set of the active profile, begun and holding: it
 * waits for its plugins until fake_release_ready(). */
static void hold_switch(struct fixture *f, const char *profile, const char *set,
			struct fake_result *res)
{
	fake_hold_ready = true;
	assert_int_equal(switch_as(f, &peer_admin, profile, set, res), -EINPROGRESS);
	run_rounds(f, 3);
	assert_true(fake_waiting_ready());
}

/* Switches asked while one runs wait their turn, in order, each answered
 * when its own is done; one more than switch_queue is refused as busy,
 * and a set the active profile lacks is refused at once. status counts
 * what waits. */
static void test_queue_in_order(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 };
	struct event_sub *sub = event_subscribe(fake_hear, NULL);
	char set[64], *text;

	f->cfg.switch_queue = 2;
	fake_heard[0] = '\0';
	hold_switch(f, NULL, "ncm", &a);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "acm,adb", &b), -EINPROGRESS);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "nosuch", &e), -EINVAL);
	assert_int_equal(submit(f, &peer_admin, REQUEST_RELOAD, NULL, NULL, &c), -EINPROGRESS);
	assert_int_equal(dispatch_queued(f->d), 2);
	text = fake_status_text(f->g, false);
	assert_non_null(strstr(text, "queued: 2 requests waiting their turn"));
	free(text);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "mtp,adb", &d), -EBUSY);
	assert_non_null(strstr(f->msg, "another switch is in progress (2 more wait"));
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
	assert_false(b.done);
	run_rounds(f, 3);
	assert_true(fake_waiting_ready());
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &b), 0);
	assert_non_null(strstr(b.msg, "switched to acm,adb (profile t)"));
	assert_false(c.done);
	fake_hold_ready = false;
	assert_int_equal(fake_wait_done(f->loop, &c), 0);
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "acm,adb");
	assert_int_equal(dispatch_queued(f->d), 0);
	assert_false(d.done);
	assert_false(e.done);
	/* Each begun after the one before was done. */
	assert_string_equal(fake_heard, "switch-begun:ncm:0;switch-done:ncm:0;"
			    "switch-begun:acm,adb:0;switch-done:acm,adb:0;"
			    "switch-begun:acm,adb:0;switch-done:acm,adb:0;");
	event_unsubscribe(sub);
}

/*
 * A member's queued request is judged again when it runs: "--profile t"
 * was allowed while t was active, and is refused once an administrator's
 * switch to u ran first. Members leave the last places of the queue to
 * administrators. An administrator's off goes first: what waited before
 * it is answered, not run.
 */
static void test_queue_member(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 },
			   o = { 0 };
	char set[64];

	f->cfg.switch_queue = 4;
	hold_switch(f, "u", "mtp,adb", &a);
	assert_int_equal(switch_as(f, &peer_member, "t", "ncm", &b), -EINPROGRESS);
	assert_int_equal(switch_as(f, &peer_member, NULL, "ncm", &c), -EINPROGRESS);
	assert_int_equal(switch_as(f, &peer_member, NULL, "acm,ecm", &d), -EBUSY);
	assert_non_null(strstr(f->msg, "the last places kept for root and admin_group"));
	assert_int_equal(switch_as(f, &peer_admin, NULL, "acm,ecm", &d), -EINPROGRESS);
	fake_release_ready(0, "");
	fake_hold_ready = false;
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
	assert_int_equal(fake_wait_done(f->loop, &b), -EACCES);
	assert_non_null(strstr(b.msg, "permission denied: while this switch waited, the "
			       "active profile became u; choosing another profile "
			       "(switch --profile t) is for root and admin_group"));
	assert_int_equal(fake_wait_done(f->loop, &c), 0);
	assert_int_equal(fake_wait_done(f->loop, &d), 0);
	assert_string_equal(gadget_profile_name(f->g), "u");
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");

	/* Off during a switch: queued ahead, the member's switch cancelled. */
	memset(&b, 0, sizeof(b));
	hold_switch(f, NULL, "mtp,adb", &e);
	assert_int_equal(switch_as(f, &peer_member, NULL, "ncm", &b), -EINPROGRESS);
	assert_int_equal(submit(f, &peer_admin, REQUEST_OFF, NULL, NULL, &o), -EINPROGRESS);
	assert_true(b.done);
	assert_int_equal(b.r, -ECANCELED);
	assert_non_null(strstr(b.msg, "an administrator turned the gadget off before"));
	assert_false(o.done);
	fake_release_ready(0, "");
	fake_hold_ready = false;
	assert_int_equal(fake_wait_done(f->loop, &e), 0);
	assert_int_equal(fake_wait_done(f->loop, &o), 0);
	assert_non_null(strstr(o.msg, "gadget is off"));
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "off");
}

/*
 * The check again is access_check()'s: a member's "switch --profile t
 * ncm", queued behind an administrator's queued switch to u, is refused
 * once that switch ran; the member's request without --profile runs.
 */
static void test_queue_rejudged_by_access(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 }, c = { 0 }, m = { 0 };
	char set[64];

	hold_switch(f, NULL, "acm,adb", &a);
	assert_int_equal(switch_as(f, &peer_admin, "u", "mtp,adb", &b), -EINPROGRESS);
	/* Allowed now: t is active. */
	assert_int_equal(dispatch_check(f->d, &peer_member, &(struct request){
		.op = REQUEST_SWITCH, .profile = "t", .set = "ncm" }, f->msg,
		sizeof(f->msg)), 0);
	assert_int_equal(switch_as(f, &peer_member, "t", "ncm", &m), -EINPROGRESS);
	assert_int_equal(switch_as(f, &peer_member, NULL, "ncm", &c), -EINPROGRESS);
	fake_hold_ready = false;
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
	assert_int_equal(fake_wait_done(f->loop, &b), 0);
	assert_int_equal(fake_wait_done(f->loop, &m), -EACCES);
	assert_non_null(strstr(m.msg, "while this switch waited, the active profile "
			       "became u"));
	assert_non_null(strstr(m.msg, "nothing was changed"));
	assert_int_equal(fake_wait_done(f->loop, &c), 0);
	assert_string_equal(gadget_profile_name(f->g), "u");
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

/* A client that hangs up is forgotten, its switch not run; one that
 * waited longer than switch_queue_timeout is told so, nothing changed;
 * gadgetd stopping answers the rest. */
static void test_queue_cancel_and_expiry(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	char set[64];

	f->cfg.switch_queue_timeout_ms = 50;
	hold_switch(f, NULL, "ncm", &a);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "acm,adb", &b), -EINPROGRESS);
	dispatch_cancel(f->d, &b);
	assert_int_equal(dispatch_queued(f->d), 0);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "mtp,adb", &c), -EINPROGRESS);
	assert_int_equal(fake_wait_done(f->loop, &c), -ETIME);
	assert_non_null(strstr(c.msg, "waited 0 s for the switches before it; nothing "
			       "was changed (switch_queue_timeout)"));
	f->cfg.switch_queue_timeout_ms = 60000;
	assert_int_equal(switch_as(f, &peer_admin, NULL, "mtp,adb", &d), -EINPROGRESS);
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
	fake_hold_ready = false;
	assert_int_equal(fake_wait_done(f->loop, &d), 0);
	assert_false(b.done);
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "mtp,adb");
	/* Queued at dispatch_free(): answered, -ECANCELED. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	hold_switch(f, NULL, "ncm", &a);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "acm,adb", &b), -EINPROGRESS);
	dispatch_free(f->d);
	f->d = NULL;
	assert_true(b.done);
	assert_int_equal(b.r, -ECANCELED);
	assert_string_equal(b.msg, "gadgetd is stopping; the request did not run");
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
}

/* The gadget's own pending work runs before the clients' queue: a
 * plugin's switch request that came after a client's queued switch runs
 * first, once the plugin command in progress is answered. */
static void test_gadget_first(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 }, k = { 0 };
	char *argv[] = { "adb", "keys", NULL };
	struct request cmd = { .op = REQUEST_COMMAND, .function = "adb", .command = "keys",
			       .argc = 2, .argv = argv };
	char set[64];

	assert_int_equal(fake_finish(f->loop, switch_as(f, &peer_admin, NULL, "mtp,adb,aoa", &a), &a), 0);
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &cmd, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &k), -EINPROGRESS);
	assert_int_equal(switch_as(f, &peer_admin, NULL, "acm,adb", &b), -EINPROGRESS);
	fake_plugin_request("aoa", "ncm");
	run_rounds(f, 3);
	assert_false(b.done);
	fake_hold_ready = true;
	fake_command_reply(0, "pong");
	assert_true(k.done);
	/* The plugin's switch now, the client's still waiting. */
	assert_true(gadget_busy(f->g));
	assert_false(b.done);
	assert_int_equal(dispatch_queued(f->d), 1);
	run_rounds(f, 3);
	assert_true(fake_waiting_ready());
	fake_release_ready(0, "");
	/* Then the client's, from ncm. */
	RUN_UNTIL(f->loop, fake_waiting_ready());
	assert_true(fake_waiting_ready());
	assert_false(b.done);
	fake_status_set(f->g, set, sizeof(set));
	assert_string_equal(set, "ncm");
	fake_hold_ready = false;
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &b), 0);
	assert_non_null(strstr(b.msg, "switched to acm,adb"));
	assert_non_null(strstr(fake_calls, "link(ncm)"));
}

/* Not busy: a change runs at once; a command during a switch is refused
 * with what the gadget is busy with; an off while nothing runs starts at
 * once, and answers when the gadget is gone. */
static void test_run_or_busy(void **state)
{
	struct fixture *f = *state;
	struct fake_result a = { 0 }, b = { 0 };
	char *argv[] = { "adb", "keys", NULL };
	struct request cmd = { .op = REQUEST_COMMAND, .function = "adb", .command = "keys",
			       .argc = 2, .argv = argv };

	assert_int_equal(fake_finish(f->loop, switch_as(f, &peer_admin, NULL, "acm,adb", &a), &a), 0);
	hold_switch(f, NULL, "mtp,adb", &b);
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &cmd, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &a), -EBUSY);
	assert_string_equal(f->msg, "another switch is in progress");
	assert_int_equal(dispatch_queued(f->d), 0);
	fake_hold_ready = false;
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &b), 0);
	/* An off answers once the gadget has left ConfigFS, after its
	 * workers were reaped: not while they are still going. */
	memset(&a, 0, sizeof(a));
	fake_calls[0] = '\0';
	assert_int_equal(submit(f, &peer_admin, REQUEST_OFF, NULL, NULL, &a), -EINPROGRESS);
	assert_false(a.done);
	assert_null(strstr(fake_calls, "destroy"));
	assert_int_equal(fake_wait_done(f->loop, &a), 0);
	assert_string_equal(a.msg, "gadget is off");
	assert_non_null(strstr(fake_calls, "reaped"));
	assert_non_null(strstr(fake_calls, "destroy"));
}

/* Heard events of kind EVENT_LOCK. */
static char lock_heard[256];

static void lock_listen(const struct event *ev, void *data)
{
	size_t n = strlen(lock_heard);

	if (ev->kind == EVENT_LOCK)
		snprintf(lock_heard + n, sizeof(lock_heard) - n, "%s;", ev->detail);
}

/*
 * A lock takes effect at once, in the middle of a switch: neither queued
 * nor refused as busy. The marker is written first, the workers told,
 * one event said; a second lock changes nothing. A member may not lock;
 * a marker that cannot be written leaves the state as it was.
 */
static void test_lock(void **state)
{
	struct fixture *f = *state;
	struct fake_result b = { 0 };
	struct request lock = { .op = REQUEST_LOCK, .lock = true };
	struct request unlock = { .op = REQUEST_LOCK, .lock = false };
	struct event_sub *sub = event_subscribe(lock_listen, NULL);
	char why[512];

	lock_heard[0] = '\0';
	assert_false(gadget_locked(f->g));
	assert_int_equal(dispatch_check(f->d, &peer_member, &lock, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "permission denied: lock is for root and group gadgetadm"));
	assert_int_equal(dispatch_check(f->d, &peer_admin, &lock, why, sizeof(why)), 0);
	hold_switch(f, NULL, "mtp,adb", &b);
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &lock, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &b), 0);
	assert_string_equal(f->msg, "locked");
	assert_true(gadget_locked(f->g));
	assert_true(fake_lock_marker);
	assert_int_equal(fake_sup_locked, 1);
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &lock, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &b), 0);
	assert_string_equal(f->msg, "already locked");
	assert_string_equal(lock_heard, "locked;");
	fake_lock_save_r = -EROFS;
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &unlock, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &b), -EROFS);
	assert_non_null(strstr(f->msg, "the lock state is unchanged"));
	assert_true(gadget_locked(f->g));
	assert_int_equal(fake_sup_locked, 1);
	fake_lock_save_r = 0;
	assert_int_equal(dispatch_submit(f->d, &peer_admin, &unlock, f->msg, sizeof(f->msg),
					 NULL, fake_on_done, &b), 0);
	assert_false(gadget_locked(f->g));
	assert_int_equal(fake_sup_locked, 0);
	assert_string_equal(lock_heard, "locked;unlocked;");
	fake_hold_ready = false;
	fake_release_ready(0, "");
	assert_int_equal(fake_wait_done(f->loop, &b), 0);
	event_unsubscribe(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_queue_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_rejudged_by_access, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_cancel_and_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gadget_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_or_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
