/* gadgetd-worker (functions/worker.c) from the outside, as gadgetd
 * starts it: fd 3 a SOCK_SEQPACKET socketpair, the plugin and the
 * FunctionFS folder on the command line. What it must refuse, before it
 * touches any USB file: bad arguments (exit 2), an fd 3 that is not
 * gadgetd's socket, a plugin that does not load or is no gadgetd plugin,
 * a user that does not exist, an FFS folder without ep0 (exit 1, with
 * its reason sent to gadgetd as WORKER_ERROR right before it exits).
 *
 * The binary is $GADGETD_WORKER, else build/gadgetd-worker (make unit
 * runs from the top of the tree and builds it first); the plugin that
 * loads is build/plugins/echo.so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "worker.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ECHO_SO "build/plugins/echo.so"

static const char *worker_bin(void)
{
	const char *w = getenv("GADGETD_WORKER");

	return w && w[0] ? w : "build/gadgetd-worker";
}

struct run {
	int status;          /* the worker's exit status, -1 if killed */
	char err[WORKER_ERROR_MAX + 16]; /* its WORKER_ERROR text, or "" */
	int n_msgs;          /* datagrams it sent on fd 3 */
	char log[4096];      /* its stderr */
};

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_worker.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* What the worker gets as fd 3. */
enum fd3 { FD3_GADGETD, FD3_DEVNULL, FD3_STREAM };

/* Run the worker with argv (argv[0] is set here) until it exits (10 s at
 * most), fd 3 as given: gadgetd's SOCK_SEQPACKET socketpair, /dev/null,
 * or a SOCK_STREAM socketpair. */
static void run_worker_fd3(char **argv, enum fd3 fd3, struct run *res)
{
	bool sock = fd3 == FD3_GADGETD;
	char logpath[128];
	int sv[2] = { -1, -1 }, logfd, i, n;
	uint8_t buf[WORKER_MSG_MAX];
	pid_t pid;

	memset(res, 0, sizeof(*res));
	snprintf(logpath, sizeof(logpath), "%s/stderr", dir);
	logfd = open(logpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(logfd >= 0);
	if (fd3 != FD3_DEVNULL)
		assert_int_equal(socketpair(AF_UNIX, (sock ? SOCK_SEQPACKET : SOCK_STREAM) |
					    SOCK_CLOEXEC, 0, sv), 0);
	argv[0] = (char *)worker_bin();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int three = fd3 != FD3_DEVNULL ? sv[1] : open("/dev/null", O_RDWR);

		/* stderr first: logfd may be fd 3 itself. */
		if (three < 0 || dup2(logfd, 2) < 0 || dup2(three, WORKER_FD) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (fd3 != FD3_DEVNULL)
		close(sv[1]);
	for (i = 0; i < 1000; i++) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid) {
			res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			break;
		}
		usleep(10000);
	}
	if (i == 1000) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("%s did not exit within 10 s", argv[0]);
	}
	while (sock && (n = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct worker_hdr h;

		res->n_msgs++;
		assert_true(n >= (int)sizeof(h));
		memcpy(&h, buf, sizeof(h));
		assert_int_equal(h.len, n - sizeof(h));
		if (h.type == WORKER_ERROR) {
			/* One NUL-terminated string, never longer than promised. */
			assert_true(h.len >= 1 && h.len <= WORKER_ERROR_MAX);
			assert_int_equal(buf[n - 1], '\0');
			memcpy(res->err, buf + sizeof(h), h.len);
		}
	}
	if (fd3 != FD3_DEVNULL)
		close(sv[0]);
	n = pread(logfd, res->log, sizeof(res->log) - 1, 0);
	res->log[n > 0 ? n : 0] = '\0';
	close(logfd);
	if (res->status == 127)
		fail_msg("cannot run %s (make it first: make all)", argv[0]);
}

static void run_worker(char **argv, struct run *res)
{
	run_worker_fd3(argv, FD3_GADGETD, res);
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("\"%s\" does not contain \"%s\"", s, part);
}

static void test_bad_arguments(void **state)
{
	struct run r;
	char *no_plugin[] = { NULL, "-i", "x", "-d", dir, NULL };
	char *bad_caps[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, "-c", "zz", NULL };
	char *bad_opt[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, "-o", "noequals", NULL };
	char *extra[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, "stray", NULL };

	run_worker(no_plugin, &r);
	assert_int_equal(r.status, 2);
	assert_contains(r.log, "usage: gadgetd-worker");
	run_worker(bad_caps, &r);
	assert_int_equal(r.status, 2);
	assert_contains(r.log, "-c takes a hex capability mask, not \"zz\"");
	run_worker(bad_opt, &r);
	assert_int_equal(r.status, 2);
	assert_contains(r.log, "bad or too many options at \"noequals\"");
	run_worker(extra, &r);
	assert_int_equal(r.status, 2);
	/* Nothing was said to gadgetd: it was not even looked at. */
	assert_int_equal(r.n_msgs, 0);
}

static void test_fd3_not_gadgetd(void **state)
{
	struct run r;
	char *argv[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, NULL };

	run_worker_fd3(argv, FD3_DEVNULL, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.log, "fd 3 is not a SOCK_SEQPACKET socket to gadgetd");
	/* A socket, but a stream: not gadgetd's either. */
	run_worker_fd3(argv, FD3_STREAM, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.log, "fd 3 is not a SOCK_SEQPACKET socket to gadgetd");
}

static void test_plugin_missing(void **state)
{
	struct run r;
	char so[128];
	char *argv[] = { NULL, "-P", so, "-i", "x", "-d", dir, NULL };

	snprintf(so, sizeof(so), "%s/nosuch.so", dir);
	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "cannot load plugin");
	assert_contains(r.err, "nosuch.so");
}

static void test_plugin_not_elf(void **state)
{
	struct run r;
	char so[128];
	char *argv[] = { NULL, "-P", so, "-i", "x", "-d", dir, NULL };
	FILE *f;

	snprintf(so, sizeof(so), "%s/garbage.so", dir);
	f = fopen(so, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nnot a shared object\n", f);
	fclose(f);
	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "cannot load plugin");
}

/* A shared object that loads but is no gadgetd plugin (libc has no
 * gadgetd_plugin). */
static void test_plugin_without_symbol(void **state)
{
	struct run r;
	char *argv[] = { NULL, "-P", "libc.so.6", "-i", "x", "-d", dir, NULL };

	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "libc.so.6 has no symbol gadgetd_plugin");
}

static void test_unknown_user(void **state)
{
	struct run r;
	char *argv[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, "-u",
			 "nosuch-gadgetd-user", NULL };

	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "no user \"nosuch-gadgetd-user\"");
}

/* A folder that is no FunctionFS mount: the plugin started, ep0 is not
 * there, and gadgetd hears why. Never READY. */
static void test_no_ep0(void **state)
{
	struct run r;
	char ffs[128];
	char *argv[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", ffs, NULL };

	snprintf(ffs, sizeof(ffs), "%s/ffs", dir);
	assert_int_equal(mkdir(ffs, 0700), 0);
	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "cannot open");
	assert_contains(r.err, "/ffs/ep0");
	/* Only the error: no READY came before it. */
	assert_int_equal(r.n_msgs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd3_not_gadgetd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_not_elf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_without_symbol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ep0, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
