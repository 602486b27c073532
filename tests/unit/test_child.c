/*
 * common/child.c with real children: the exit function gets each end
 * once with its status; child_stop() sends SIGTERM and, to a child that
 * ignores it, SIGKILL after the time given; child_kill_wait() reaps at
 * once; a child reaped by someone else is told as "exited", unknown.
 * The restart record: ends outside the window are forgotten, limit ends
 * within it fail, the delay doubles to its cap.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "loop.h"
#include "run_until.h"

struct ended {
	unsigned calls;
	int status;
	bool known;
};

static void on_exit_fn(int status, bool known, void *data)
{
	struct ended *e = data;

	e->calls++;
	e->status = status;
	e->known = known;
}

/* A child that runs sh -c script. */
static pid_t start(const char *script)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_exit_status(void **state)
{
	struct loop *l = loop_new();
	struct ended e = { 0 };
	struct child *c = child_watch(l, start("exit 3"), "test", on_exit_fn, &e);
	char how[64];

	assert_non_null(c);
	assert_true(child_pid(c) > 0);
	RUN_UNTIL(l, e.calls);
	assert_int_equal(e.calls, 1);
	assert_true(e.known);
	assert_true(WIFEXITED(e.status));
	child_describe(e.status, e.known, how, sizeof(how));
	assert_string_equal(how, "exited with status 3");
	/* Once: nothing more comes. */
	loop_dispatch(l, 50);
	assert_int_equal(e.calls, 1);
	loop_free(l);
}

/* SIGTERM ends a plain child; one that ignores it gets SIGKILL after
 * term_ms, not before. */
static void test_stop_escalates(void **state)
{
	struct loop *l = loop_new();
	struct ended plain = { 0 }, stubborn = { 0 };
	struct child *a = child_watch(l, start("exec sleep 30"), "test", on_exit_fn, &plain);
	/* The trap is set before the child says so (the file appears). */
	char ready[] = "/tmp/test_child.XXXXXX";
	int fd = mkstemp(ready);
	char script[160];
	struct child *b;
	uint64_t t0;
	char how[64];

	assert_true(fd >= 0);
	close(fd);
	unlink(ready);
	snprintf(script, sizeof(script), "trap '' TERM; : > %s; while :; do sleep 1; done",
		 ready);
	b = child_watch(l, start(script), "test", on_exit_fn, &stubborn);
	assert_non_null(a);
	assert_non_null(b);
	WAIT_UNTIL(access(ready, F_OK) == 0, usleep(10000));
	assert_int_equal(access(ready, F_OK), 0);
	unlink(ready);
	t0 = loop_now_ms();
	child_stop(a, 60000);
	child_stop(b, 300);
	child_stop(b, 300); /* again: nothing more */
	RUN_UNTIL(l, plain.calls && stubborn.calls);
	assert_int_equal(plain.calls, 1);
	assert_true(WIFSIGNALED(plain.status));
	assert_int_equal(WTERMSIG(plain.status), SIGTERM);
	assert_int_equal(stubborn.calls, 1);
	assert_true(WIFSIGNALED(stubborn.status));
	assert_int_equal(WTERMSIG(stubborn.status), SIGKILL);
	/* Late, as it must be: the SIGKILL waited for its time. */
	assert_true(loop_now_ms() - t0 >= 300);
	child_describe(stubborn.status, true, how, sizeof(how));
	assert_string_equal(how, "killed by signal 9");
	loop_free(l);
}

/* child_kill_wait() reaps before it returns; the exit function is not
 * called. */
static void test_kill_wait(void **state)
{
	struct loop *l = loop_new();
	struct ended e = { 0 };
	pid_t pid = start("exec sleep 30");
	struct child *c = child_watch(l, pid, "test", on_exit_fn, &e);

	assert_non_null(c);
	child_kill_wait(c);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	loop_dispatch(l, 50);
	assert_int_equal(e.calls, 0);
	child_kill_wait(NULL);
	loop_free(l);
}

/* Reaped elsewhere first (a waitpid(-1) in the same process): still told
 * once, as an unknown end. */
static void test_reaped_elsewhere(void **state)
{
	struct loop *l = loop_new();
	struct ended e = { 0 };
	pid_t pid = start("exit 5");
	struct child *c = child_watch(l, pid, "test", on_exit_fn, &e);
	char how[64];

	assert_non_null(c);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	RUN_UNTIL(l, e.calls);
	assert_int_equal(e.calls, 1);
	assert_false(e.known);
	child_describe(e.status, e.known, how, sizeof(how));
	assert_string_equal(how, "exited");
	loop_free(l);
}

/* Not a child of ours, or gone: NULL, errno set. */
static void test_watch_fails(void **state)
{
	struct loop *l = loop_new();
	struct ended e = { 0 };
	pid_t pid = start("exit 0");

	assert_int_equal(waitpid(pid, NULL, 0), pid);
	errno = 0;
	assert_null(child_watch(l, pid, "test", on_exit_fn, &e));
	assert_int_equal(errno, ESRCH);
	loop_free(l);
}

static void test_restart_window(void **state)
{
	struct child_restart r = { .backoff_ms = 0 };

	/* limit 3 within 1000 ms. */
	assert_false(child_restart_too_often(&r, 10000, 3, 1000));
	assert_false(child_restart_too_often(&r, 10500, 3, 1000));
	/* The first is out of the window by now. */
	assert_false(child_restart_too_often(&r, 11000, 3, 1000));
	assert_int_equal(r.n_exits, 2);
	assert_true(child_restart_too_often(&r, 11100, 3, 1000));
	assert_int_equal(r.n_exits, 3);
}

/* Full: the oldest goes, and a limit of CHILD_RESTART_MAX still fails. */
static void test_restart_full(void **state)
{
	struct child_restart r = { 0 };
	unsigned i;

	for (i = 0; i < CHILD_RESTART_MAX - 1; i++)
		assert_false(child_restart_too_often(&r, 1000 + i, CHILD_RESTART_MAX, 60000));
	for (i = 0; i < 5; i++)
		assert_true(child_restart_too_often(&r, 2000 + i, CHILD_RESTART_MAX, 60000));
	assert_int_equal(r.n_exits, CHILD_RESTART_MAX);
	assert_int_equal(r.exits_ms[CHILD_RESTART_MAX - 1], 2004);
	assert_int_equal(r.exits_ms[0], 1004); /* 1000..1003 went */
}

static void test_restart_delay(void **state)
{
	struct child_restart r;
	const unsigned want[] = { 200, 400, 800, 1600, 3200, 5000, 5000 };
	unsigned i;

	(void)state;
	child_restart_reset(&r, 200);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(child_restart_delay(&r, 200, 10), want[i]);
	/* A child that ran CHILD_STABLE_MS starts over at the first delay. */
	assert_int_equal(child_restart_delay(&r, 200, CHILD_STABLE_MS - 1), 5000);
	assert_int_equal(child_restart_delay(&r, 200, CHILD_STABLE_MS), 200);
	assert_int_equal(child_restart_delay(&r, 200, 10), 400);
	/* A first delay beyond the cap: it stays. */
	child_restart_reset(&r, 9000);
	assert_int_equal(child_restart_delay(&r, 9000, 10), 9000);
	assert_int_equal(child_restart_delay(&r, 9000, 10), 9000);
	/* 0 stays 0 (restart_delay = 0: at once). */
	child_restart_reset(&r, 0);
	assert_int_equal(child_restart_delay(&r, 0, 10), 0);
	assert_int_equal(child_restart_delay(&r, 0, 10), 0);
}

static void test_restart_reset(void **state)
{
	struct child_restart r = { 0 };

	(void)state;
	assert_false(child_restart_too_often(&r, 1000, 2, 60000));
	assert_true(child_restart_too_often(&r, 1001, 2, 60000));
	child_restart_reset(&r, 200);
	assert_int_equal(r.n_exits, 0);
	assert_false(child_restart_too_often(&r, 1002, 2, 60000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_stop_escalates),
		cmocka_unit_test(test_kill_wait),
		cmocka_unit_test(test_reaped_elsewhere),
		cmocka_unit_test(test_watch_fails),
		cmocka_unit_test(test_restart_window),
		cmocka_unit_test(test_restart_full),
		cmocka_unit_test(test_restart_reset),
		cmocka_unit_test(test_restart_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
