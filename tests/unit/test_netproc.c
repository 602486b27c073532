/*
 * Unit tests for gadgetd/net/netproc.c with real children: a helper killed
 * with SIGKILL comes back with a new pid and its pid file follows; one
 * that keeps dying is given up on after restart_limit exits; stopping
 * ends it and removes its pid file; a stale pid file's process is killed
 * only when its command still matches. A helper with a ready text that
 * does not print it in time is started again, with a longer wait each
 * time and without counting as a crash, until it does; one that prints
 * it stays. A session's program (agetty) that ends with status 0 (a
 * logout) is started again however often it does, and one that fails
 * (another status) is still given up on, its owner told.
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

#include "config.h"
#include "loop.h"
#include "netproc.h"
#include "run_until.h"

static char test_netproc_pidfile[64];

static struct config test_netproc_cfg = {
	.restart_delay_ms = 10,
	.restart_limit = 3,
	.restart_window_ms = 60000,
};

/* Run the loop until cond() (at most RUN_UNTIL_MS: a child's start or
 * exit under qemu-user on a loaded machine can take seconds). */
static bool test_netproc_until(struct loop *l, bool (*cond)(void *), void *arg)
{
	RUN_UNTIL(l, cond(arg));
	return cond(arg);
}

static pid_t test_netproc_filepid(void)
{
	FILE *f = fopen(test_netproc_pidfile, "r");
	int pid = 0;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

static pid_t test_netproc_old;

static bool test_netproc_new_pid(void *arg)
{
	pid_t p = netproc_pid(arg);

	return p && p != test_netproc_old && test_netproc_filepid() == p;
}

static bool test_netproc_failed(void *arg)
{
	return netproc_failed(arg);
}

static int test_netproc_setup(void **state)
{
	snprintf(test_netproc_pidfile, sizeof(test_netproc_pidfile),
		 "/tmp/test_netproc.%d.pid", (int)getpid());
	return 0;
}

static void test_restart_after_kill(void **state)
{
	struct loop *l = loop_new();
	char *argv[] = { "sleep", "30", NULL };
	struct netproc *p;
	int i;

	assert_non_null(l);
	p = netproc_start(l, &test_netproc_cfg, "t: sleep", argv, test_netproc_pidfile, NULL);
	assert_non_null(p);
	for (i = 0; i < 2; i++) {
		test_netproc_old = netproc_pid(p);
		assert_true(test_netproc_old > 0);
		assert_int_equal(test_netproc_filepid(), test_netproc_old);
		kill(test_netproc_old, SIGKILL);
		assert_true(test_netproc_until(l, test_netproc_new_pid, p));
		assert_false(netproc_failed(p));
	}
	test_netproc_old = netproc_pid(p);
	netproc_stop(p);
	/* The process is gone and so is its pid file, from the loop. */
	RUN_UNTIL(l, kill(test_netproc_old, 0) < 0 &&
		     access(test_netproc_pidfile, F_OK) < 0);
	assert_int_equal(kill(test_netproc_old, 0), -1);
	assert_int_equal(access(test_netproc_pidfile, F_OK), -1);
	loop_free(l);
}

static void test_gives_up(void **state)
{
	struct loop *l = loop_new();
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct netproc *p;

	p = netproc_start(l, &test_netproc_cfg, "t: exit", argv, NULL, NULL);
	assert_non_null(p);
	assert_true(test_netproc_until(l, test_netproc_failed, p));
	assert_int_equal(netproc_pid(p), 0);
	netproc_stop(p);
	loop_free(l);
}

static void test_netproc_stop_wait(struct loop *l, struct netproc *p);

/* The pids a session had (netproc_pid changes) or its failure. */
static unsigned test_netproc_session_pids;
static pid_t test_netproc_session_last;

static bool test_netproc_session_done(void *arg)
{
	pid_t now = netproc_pid(arg);

	if (now && now != test_netproc_session_last) {
		test_netproc_session_pids++;
		test_netproc_session_last = now;
	}
	return netproc_failed(arg) || test_netproc_session_pids > 2 * test_netproc_cfg.restart_limit;
}

static void test_netproc_told(void *data)
{
	(*(unsigned *)data)++;
}

/* A session's program (netproc_set_session) running `sh -c script`, its
 * failure counted in *told. */
static struct netproc *test_netproc_session(struct loop *l, char *script, unsigned *told)
{
	char *argv[] = { "sh", "-c", script, NULL };
	struct netproc *p = netproc_start(l, &test_netproc_cfg, "t: getty", argv, NULL, NULL);

	assert_non_null(p);
	netproc_set_session(p);
	netproc_on_failed(p, test_netproc_told, told);
	return p;
}

/* Logouts: twice restart_limit exits with status 0 within the window, and
 * still not given up on. Failed when every exit counted. */
static void test_session_logouts_not_counted(void **state)
{
	struct loop *l = loop_new();
	unsigned told = 0;
	struct netproc *p = test_netproc_session(l, "exit 0", &told);

	test_netproc_session_pids = 0;
	test_netproc_session_last = 0;
	RUN_UNTIL(l, test_netproc_session_done(p));
	assert_false(netproc_failed(p));
	assert_true(test_netproc_session_pids > 2 * test_netproc_cfg.restart_limit);
	assert_int_equal(told, 0);
	test_netproc_stop_wait(l, p);
	loop_free(l);
}

/* A session's program that fails at once (status 1) is still a crash
 * loop: given up on after restart_limit exits, its owner told once. */
static void test_session_crash_loop(void **state)
{
	struct loop *l = loop_new();
	unsigned told = 0;
	struct netproc *p = test_netproc_session(l, "exit 1", &told);

	assert_true(test_netproc_until(l, test_netproc_failed, p));
	assert_int_equal(told, 1);
	assert_int_equal(netproc_pid(p), 0);
	netproc_stop(p);
	loop_free(l);
}

static void test_kill_now(void **state)
{
	struct loop *l = loop_new();
	char *argv[] = { "sleep", "30", NULL };
	struct netproc *p = netproc_start(l, &test_netproc_cfg, "t: sleep", argv, NULL, NULL);
	pid_t pid = netproc_pid(p);

	assert_true(pid > 0);
	netproc_kill(p);
	assert_int_equal(kill(pid, 0), -1);
	loop_free(l);
}

static bool test_netproc_is_ready(void *arg)
{
	return netproc_ready(arg);
}

/* Runs the loop for ms, counting the pids p had (changes of pid). */
static unsigned test_netproc_pids_during(struct loop *l, struct netproc *p, unsigned ms)
{
	uint64_t end = loop_now_ms() + ms;
	pid_t last = netproc_pid(p), now;
	unsigned changes = 0;

	while (loop_now_ms() < end) {
		loop_dispatch(l, 10);
		now = netproc_pid(p);
		if (now && now != last) {
			changes++;
			last = now;
		}
	}
	return changes;
}

/* netproc_stop(), then the loop until the child is reaped and p freed. */
static void test_netproc_stop_wait(struct loop *l, struct netproc *p)
{
	pid_t pid = netproc_pid(p);
	int i;

	netproc_stop(p);
	RUN_UNTIL(l, pid <= 0 || kill(pid, 0) < 0);
	assert_true(pid <= 0 || kill(pid, 0) < 0);
	for (i = 0; i < 10; i++)
		loop_dispatch(l, 10);
}

/* A child that says the text only once it was told to go (it ignores
 * SIGTERM until SIGKILL comes) does not count: the next one must say it
 * within its own wait, and once one has, the helper stays. It failed when
 * the text of a child on its way out counted: the helper was ready, then
 * started again when that child died. */
static void test_ready_from_dying_child(void **state)
{
	char script[256];
	char *argv[] = { "sh", "-c", script, NULL };
	const struct netproc_ready ready = { .text = "Established under name", .ms = 100 };
	struct loop *l = loop_new();
	struct netproc *p;

	snprintf(script, sizeof(script),
		 "trap '' TERM; sleep 0.3; echo \"Established under name 'x.local'\" >&2; exec sleep 30");
	p = netproc_start(l, &test_netproc_cfg, "t: late", argv, NULL, &ready);
	assert_non_null(p);
	/* The first child is told to go at 100 ms and says it at 300 ms. */
	for (int i = 0; i < 50; i++)
		loop_dispatch(l, 10);
	assert_false(netproc_ready(p));
	/* The third child's wait (400 ms) outlasts its 300 ms. */
	assert_true(test_netproc_until(l, test_netproc_is_ready, p));
	assert_int_equal(test_netproc_pids_during(l, p, 1000), 0);
	assert_true(netproc_ready(p));
	test_netproc_stop_wait(l, p);
	loop_free(l);
}

static void test_ready_renews(void **state)
{
	char flag[64], script[256];
	char *argv[] = { "sh", "-c", script, NULL };
	const struct netproc_ready ready = { .text = "Established under name", .ms = 200 };
	struct loop *l = loop_new();
	struct netproc *p;
	pid_t first;

	/* Silent the first time, then it says it is established, on its
	 * standard error as avahi-publish does. */
	snprintf(flag, sizeof(flag), "/tmp/test_netproc.%d.flag", (int)getpid());
	unlink(flag);
	snprintf(script, sizeof(script),
		 "[ -e %s ] && echo \"Established under name 'x.local'\" >&2; touch %s; exec sleep 30",
		 flag, flag);
	p = netproc_start(l, &test_netproc_cfg, "t: publish", argv, NULL, &ready);
	assert_non_null(p);
	first = netproc_pid(p);
	assert_true(first > 0);
	assert_false(netproc_ready(p));
	assert_true(test_netproc_until(l, test_netproc_is_ready, p));
	assert_true(netproc_pid(p) != first);
	/* Established: it stays, well past the wait. */
	assert_int_equal(test_netproc_pids_during(l, p, 1000), 0);
	assert_true(netproc_ready(p));
	assert_false(netproc_failed(p));
	test_netproc_stop_wait(l, p);
	unlink(flag);
	loop_free(l);
}

static void test_ready_never(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	const struct netproc_ready ready = { .text = "Established under name", .ms = 100 };
	struct loop *l = loop_new();
	uint64_t t0 = loop_now_ms(), end = t0 + 30000;
	struct netproc *p = netproc_start(l, &test_netproc_cfg, "t: silent", argv, NULL, &ready);
	pid_t last = netproc_pid(p);
	unsigned n = 0;

	assert_non_null(p);
	/* Started again four times, more than restart_limit (3): never
	 * failed, as these are not crashes. The waits double (100, 200,
	 * 400, 800 ms), each from a start: the nth new start comes at least
	 * their sum after the first, however late the loop sees it. */
	while (n < 4 && loop_now_ms() < end) {
		loop_dispatch(l, 10);
		if (!netproc_pid(p) || netproc_pid(p) == last)
			continue;
		last = netproc_pid(p);
		n++;
		assert_true(loop_now_ms() - t0 >= 100u * ((1u << n) - 1));
	}
	assert_int_equal(n, 4);
	assert_false(netproc_failed(p));
	assert_false(netproc_ready(p));
	test_netproc_stop_wait(l, p);
	loop_free(l);
}

/* /proc/PID/comm is name. */
static bool comm_is(pid_t pid, const char *name)
{
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, name);
}

static void test_stale_pidfile(void **state)
{
	pid_t child = fork();
	FILE *f;
	int status;

	if (child == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	/* Until the child is sleep (exec done), bounded: under load or
	 * qemu-user a fixed pause was not always enough. */
	WAIT_UNTIL(comm_is(child, "sleep"), usleep(10000));
	assert_true(comm_is(child, "sleep"));
	/* Another command's pid: left alone, the file removed. */
	f = fopen(test_netproc_pidfile, "w");
	fprintf(f, "%d dnsmasq\n", (int)child);
	fclose(f);
	netproc_kill_stale(test_netproc_pidfile);
	assert_int_equal(access(test_netproc_pidfile, F_OK), -1);
	assert_int_equal(waitpid(child, &status, WNOHANG), 0);
	/* Its own command: killed. */
	f = fopen(test_netproc_pidfile, "w");
	fprintf(f, "%d sleep\n", (int)child);
	fclose(f);
	netproc_kill_stale(test_netproc_pidfile);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(access(test_netproc_pidfile, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restart_after_kill),
		cmocka_unit_test(test_gives_up),
		cmocka_unit_test(test_session_logouts_not_counted),
		cmocka_unit_test(test_session_crash_loop),
		cmocka_unit_test(test_kill_now),
		cmocka_unit_test(test_stale_pidfile),
		cmocka_unit_test(test_ready_renews),
		cmocka_unit_test(test_ready_from_dying_child),
		cmocka_unit_test(test_ready_never),
	};

	return cmocka_run_group_tests(tests, test_netproc_setup, NULL);
}
