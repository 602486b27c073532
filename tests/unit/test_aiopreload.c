/*
 * Unit tests for functions/runtime/aiopreload.c, the AIO guard preloaded
 * into a program gadgetd only starts: the built gadgetd-aioguard.so (one
 * folder above this binary) is preloaded into this same binary run as
 * "child N" (a program with N AIO contexts), as gadgetd-worker does for
 * adbd. The test process is a child subreaper, so the orphaned guard
 * becomes its child and its exit status tells what it did: 0 contexts
 * destroyed, 3 none there.
 */
#include <dirent.h>
#include <errno.h>
#include <libaio.h>
#include <limits.h>
#include <pthread.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "run_until.h"

struct program {
	pid_t pid;
	pid_t guard;
	char preload[256]; /* LD_PRELOAD as main() saw it */
};

static char test_so[PATH_MAX];
static char test_self[PATH_MAX];

/* "child N [thread]": N contexts, its LD_PRELOAD on stdout, then it
 * waits to be killed; with "thread", main() ends and a thread waits. */
static void *child_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int child_main(int n, bool thread)
{
	const char *v = getenv("LD_PRELOAD");
	io_context_t ctx;
	pthread_t t;
	int i;

	for (i = 0; i < n; i++) {
		ctx = NULL;
		if (io_setup(4, &ctx) < 0)
			return 1;
	}
	printf("%s\n", v ? v : "(unset)");
	fflush(stdout);
	alarm(30);
	if (thread) {
		if (pthread_create(&t, NULL, child_thread, NULL))
			return 1;
		pthread_exit(NULL);
	}
	for (;;)
		pause();
}

/* The guard: the child of pid named aioguard (it has no exit signal). */
static pid_t guard_of(pid_t pid)
{
	char path[300], line[256];
	struct dirent *d;
	pid_t found = -1;
	DIR *dir = opendir("/proc");

	while (dir && (d = readdir(dir)) && found < 0) {
		bool name = false, parent = false;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			name |= !strcmp(line, "Name:\taioguard\n");
			if (!strncmp(line, "PPid:\t", 6))
				parent = atoi(line + 6) == pid;
		}
		fclose(f);
		if (name && parent)
			found = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return found;
}

static void program_start(struct program *p, int n, const char *preload,
			  bool thread)
{
	char num[16];
	int out[2];
	FILE *f;

	snprintf(num, sizeof(num), "%d", n);
	assert_int_equal(pipe(out), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		setenv("LD_PRELOAD", preload, 1);
		/* This binary has ASan, which wants to be loaded first. */
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
		execl(test_self, test_self, "child", num, thread ? "thread" : NULL,
		      (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(p->preload, sizeof(p->preload), f));
	p->preload[strcspn(p->preload, "\n")] = '\0';
	fclose(f);
	p->guard = guard_of(p->pid);
	assert_true(p->guard > 0);
}

static void program_kill(struct program *p)
{
	int st;

	kill(p->pid, SIGKILL);
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
}

/* The guard's exit status, or -1 if it is still there after ms. */
static int guard_wait(pid_t guard, unsigned ms)
{
	unsigned i;
	int st;

	for (i = 0; i < ms / 10; i++) {
		pid_t r = waitpid(guard, &st, WNOHANG | __WALL);
		if (r == guard)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	return -1;
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

/* The targets of pid's fds, joined by ' '. */
static int fds_of(pid_t pid, char *buf, size_t size)
{
	char path[300], target[PATH_MAX];
	struct dirent *d;
	size_t len = 0;
	ssize_t n;
	int count = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	buf[0] = '\0';
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, d->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		len += snprintf(buf + len, size - len, "%s ", target);
		count++;
	}
	closedir(dir);
	return count;
}

static int setup(void **state)
{
	char *slash;
	ssize_t n = readlink("/proc/self/exe", test_self, sizeof(test_self) - 1);

	if (n < 0)
		return -1;
	test_self[n] = '\0';
	/* build/unit/test_aiopreload -> build/gadgetd-aioguard.so */
	snprintf(test_so, sizeof(test_so), "%s", test_self);
	slash = strrchr(test_so, '/');
	*slash = '\0';
	slash = strrchr(test_so, '/');
	snprintf(slash, sizeof(test_so) - (size_t)(slash - test_so),
		 "/gadgetd-aioguard.so");
	if (access(test_so, R_OK) < 0) {
		fprintf(stderr, "no %s: %s\n", test_so, strerror(errno));
		return -1;
	}
	return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -1 : 0;
}

/* kill -9 of a program with two contexts: its guard destroys them. */
static void test_guard_destroys_contexts(void **state)
{
	struct program p;

	program_start(&p, 2, test_so, false);
	assert_string_equal(p.preload, "(unset)");
	assert_int_equal(guard_wait(p.guard, 100), -1);
	program_kill(&p);
	assert_int_equal(guard_wait(p.guard, RUN_UNTIL_MS), 0);
}

static void test_guard_without_context(void **state)
{
	struct program p;

	program_start(&p, 0, test_so, false);
	program_kill(&p);
	assert_int_equal(guard_wait(p.guard, RUN_UNTIL_MS), 3);
}

/* The guard holds its pidfd and its maps, nothing of the program's (its
 * stdout pipe), runs locked, and ignores other signals. Its lock pipe's
 * write end goes last: the constructor goes on at the byte written on
 * it, and the guard closes it a moment later (1 run in 30 at 8 at a time
 * still saw it: 3 fds). */
static void test_guard_holds_nothing(void **state)
{
	struct program p;
	char fds[1024];

	program_start(&p, 1, test_so, false);
	WAIT_UNTIL(fds_of(p.guard, fds, sizeof(fds)) == 2, usleep(1000));
	assert_int_equal(fds_of(p.guard, fds, sizeof(fds)), 2);
	assert_non_null(strstr(fds, "pidfd"));
	assert_null(strstr(fds, "pipe:"));
	assert_true(status_has(p.guard, "Seccomp:\t2"));
	assert_true(status_has(p.guard, "NoNewPrivs:\t1"));
	kill(p.guard, SIGTERM);
	kill(p.guard, SIGHUP);
	assert_int_equal(guard_wait(p.guard, 200), -1);
	program_kill(&p);
	assert_int_equal(guard_wait(p.guard, RUN_UNTIL_MS), 0);
}

/* main() gone, a thread still running: the program has not ended (a
 * PDEATHSIG would have fired here). */
static void test_guard_waits_for_every_thread(void **state)
{
	struct program p;

	program_start(&p, 1, test_so, true);
	WAIT_UNTIL(status_has(p.pid, "State:\tZ") || status_has(p.pid, "Threads:\t1"),
		   usleep(10000));
	assert_int_equal(guard_wait(p.guard, 300), -1);
	program_kill(&p);
	assert_int_equal(guard_wait(p.guard, RUN_UNTIL_MS), 0);
}

/* Only this library leaves LD_PRELOAD; another stays for the children. */
static void test_other_preload_kept(void **state)
{
	char both[PATH_MAX + 32];
	struct program p;

	snprintf(both, sizeof(both), "%s libc.so.6", test_so);
	program_start(&p, 0, both, false);
	assert_string_equal(p.preload, "libc.so.6");
	program_kill(&p);
	assert_int_equal(guard_wait(p.guard, RUN_UNTIL_MS), 3);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_destroys_contexts),
		cmocka_unit_test(test_guard_without_context),
		cmocka_unit_test(test_guard_holds_nothing),
		cmocka_unit_test(test_guard_waits_for_every_thread),
		cmocka_unit_test(test_other_preload_kept),
	};

	if (argc >= 3 && !strcmp(argv[1], "child"))
		return child_main(atoi(argv[2]), argc > 3);
	return cmocka_run_group_tests(tests, setup, NULL);
}
