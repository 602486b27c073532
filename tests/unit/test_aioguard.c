/*
 * Unit tests for functions/runtime/aioguard.c. A forked child plays the worker:
 * it starts its guard, sets up a real AIO context and waits to be
 * killed. The test process is a child subreaper, so the orphaned guard
 * becomes its child and its exit status tells what it did.
 */
#include <dirent.h>
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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "aioguard.h"
#include "run_until.h"

struct worker {
	pid_t pid;
	pid_t guard;
};

/* The child: guard, then (with_ctx) an AIO context to watch; it reports
 * the guard's pid and sleeps until killed. */
static void fake_worker(int out, bool with_ctx)
{
	io_context_t ctx = NULL;
	pid_t g = aioguard_start();

	if (with_ctx && io_setup(8, &ctx) < 0)
		g = -1;
	aioguard_watch(ctx);
	/* Never outlive a failed test by long. */
	alarm(30);
	if (write(out, &g, sizeof(g)) != sizeof(g))
		_exit(1);
	for (;;)
		pause();
}

static void worker_start(struct worker *w, bool with_ctx)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	w->pid = fork();
	assert_true(w->pid >= 0);
	if (w->pid == 0) {
		close(p[0]);
		fake_worker(p[1], with_ctx);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &w->guard, sizeof(w->guard)), sizeof(w->guard));
	close(p[0]);
	assert_true(w->guard > 0);
}

static void worker_kill(struct worker *w)
{
	int st;

	kill(w->pid, SIGKILL);
	assert_int_equal(waitpid(w->pid, &st, 0), w->pid);
}

/* The guard's exit status, or -1 if it is still there after ms: a short
 * ms for a check that it stays, RUN_UNTIL_MS to wait for its exit (a
 * process's exit under qemu-user on a loaded machine can take seconds). */
static int guard_wait(pid_t guard, unsigned ms)
{
	int st;
	unsigned i;

	for (i = 0; i < ms / 10; i++) {
		pid_t r = waitpid(guard, &st, WNOHANG | __WALL);
		if (r == guard)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	return -1;
}

static int fd_count(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static bool status_has(pid_t pid, const char *want)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

static int setup(void **state)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -1 : 0;
}

/* The worker dies: the guard destroys its context and exits 0. */
static void test_guard_destroys_context(void **state)
{
	struct worker w;

	worker_start(&w, true);
	assert_int_equal(guard_wait(w.guard, 100), -1);
	worker_kill(&w);
	assert_int_equal(guard_wait(w.guard, RUN_UNTIL_MS), 0);
}

/* Nothing watched: it has nothing to destroy and says so. */
static void test_guard_without_context(void **state)
{
	struct worker w;

	worker_start(&w, false);
	worker_kill(&w);
	assert_int_equal(guard_wait(w.guard, RUN_UNTIL_MS), 3);
}

/* It keeps no fd of the worker's, runs under its own filter, and other
 * signals than the worker's death do not end it. */
static void test_guard_holds_nothing(void **state)
{
	struct worker w;

	worker_start(&w, true);
	/* close_range runs first thing in the guard, its filter a few calls
	 * later: give both a moment (an emulated CPU once caught it between
	 * the two), up to RUN_UNTIL_MS. */
	WAIT_UNTIL(fd_count(w.guard) == 0 && status_has(w.guard, "Seccomp:\t2"),
		   usleep(10000));
	assert_int_equal(fd_count(w.guard), 0);
	assert_true(status_has(w.guard, "Seccomp:\t2"));
	assert_true(status_has(w.guard, "NoNewPrivs:\t1"));
	kill(w.guard, SIGTERM);
	kill(w.guard, SIGHUP);
	assert_int_equal(guard_wait(w.guard, 200), -1);
	worker_kill(&w);
	assert_int_equal(guard_wait(w.guard, RUN_UNTIL_MS), 0);
}

/* Run fn in a forked child (a worker of its own), return what it returned. */
static int in_child(int (*fn)(void))
{
	int p[2], r = -12345, st;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		alarm(30);
		r = fn();
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &r, sizeof(r)), sizeof(r));
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return r;
}

/* 1 when the guard is under its filter the moment aioguard_start()
 * returned, 0 when not yet, -errno when the start failed. */
static int locked_at_start(void)
{
	pid_t g = aioguard_start();

	if (g < 0)
		return g;
	return status_has(g, "Seccomp:\t2") && status_has(g, "NoNewPrivs:\t1");
}

/* The worker goes on only once its guard is locked down: no waiting. */
static void test_guard_locked_before_start_returns(void **state)
{
	unsigned i;

	/* Several times: without the handshake the guard is caught
	 * before its filter most of the time, not always. */
	for (i = 0; i < 20; i++)
		assert_int_equal(in_child(locked_at_start), 1);
}

/* A worker in which installing a seccomp filter fails (EPERM for
 * prctl(PR_SET_SECCOMP) and seccomp()): its guard cannot lock itself
 * down, and the start fails instead of going on with an open guard. */
static int start_unlockable(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1000;
	return aioguard_start();
}

static void test_guard_unlockable_fails_start(void **state)
{
	assert_int_equal(in_child(start_unlockable), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_destroys_context),
		cmocka_unit_test(test_guard_without_context),
		cmocka_unit_test(test_guard_holds_nothing),
		cmocka_unit_test(test_guard_locked_before_start_returns),
		cmocka_unit_test(test_guard_unlockable_fails_start),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
