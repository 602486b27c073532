/* gadgetd-worker (functions/runtime/worker.c) from the outside, as gadgetd
 * starts it: fd 3 a SOCK_SEQPACKET socketpair, the plugin and the
 * FunctionFS folder on the command line. What it must refuse, before it
 * touches any USB file: bad arguments (exit 2), an fd 3 that is not
 * gadgetd's socket, a plugin that does not load or is no gadgetd plugin,
 * a user that does not exist, an option given by hand that is wrong, an
 * FFS folder without ep0 (exit 1, with its reason sent to gadgetd as
 * WORKER_ERROR right before it exits).
 *
 * The binary is $GADGETD_WORKER, else build/gadgetd-worker (make unit
 * runs from the top of the tree and builds it first); the plugin that
 * loads is build/plugins/echo.so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run_until.h"
#include "wmsg.h"

#include <linux/usb/functionfs.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <poll.h>
#include <sys/wait.h>
#include <termios.h>
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

/* Run the worker with argv (argv[0] is set here) until it exits
 * (RUN_UNTIL_MS at most), fd 3 as given: gadgetd's SOCK_SEQPACKET
 * socketpair, /dev/null, or a SOCK_STREAM socketpair. */
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
	for (i = 0; i < RUN_UNTIL_MS / 10; i++) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid) {
			res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			break;
		}
		usleep(10000);
	}
	if (i == RUN_UNTIL_MS / 10) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("%s did not exit within %d s", argv[0], RUN_UNTIL_MS / 1000);
	}
	while (sock && (n = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct wmsg_hdr h;

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
	/* getopt once took the last of them; the codec (common/wargv.c)
	 * refuses an argv that says two things. */
	char *twice[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", dir, "-i", "y", NULL };

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
	run_worker(twice, &r);
	assert_int_equal(r.status, 2);
	assert_contains(r.log, "-i given twice");
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

/*
 * Options given by hand, which gadgetd never checked: the plugin's getters
 * (plugin_option_bool(), functions/runtime/plugin.c) take what a profile
 * may say and refuse the rest, naming the option and the value.
 */
static void test_hand_given_option(void **state)
{
	struct run r;
	char ffs[128], opt[32];
	char *argv[] = { NULL, "-P", ECHO_SO, "-i", "x", "-d", ffs, "-o", opt, NULL };

	snprintf(ffs, sizeof(ffs), "%s/ffs", dir);
	assert_int_equal(mkdir(ffs, 0700), 0);
	snprintf(opt, sizeof(opt), "ms_os=maybe");
	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.log, "echo: option ms_os: \"maybe\" is not true or false");
	assert_contains(r.err, "option ms_os");
	/* A word a profile may use passes: the plugin starts, and stops at
	 * the missing ep0. */
	snprintf(opt, sizeof(opt), "ms_os=off");
	run_worker(argv, &r);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "/ffs/ep0");
}

/*
 * A running worker and what gadgetd may send it. ep0 is a pseudo-terminal
 * in raw mode (it takes the descriptors, reads nothing until written to,
 * and polls like ep0); ep1 and ep2 are plain files, untouched while the
 * host never enables the function.
 */
struct live {
	pid_t pid;
	int ctl;     /* gadgetd's end of fd 3 */
	int master;  /* the pty's master: what the "kernel" sees of ep0 */
	int slave;   /* kept open, so that its raw mode stays */
};

static void live_start(struct live *lv)
{
	char ffs[128], path[160];
	char *argv[] = { NULL, "-P", ECHO_SO, "-i", "echo", "-d", ffs, NULL };
	struct termios t;
	int sv[2], logfd;
	unsigned i;

	snprintf(ffs, sizeof(ffs), "%s/ffs", dir);
	assert_int_equal(mkdir(ffs, 0700), 0);
	lv->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(lv->master >= 0);
	assert_int_equal(grantpt(lv->master), 0);
	assert_int_equal(unlockpt(lv->master), 0);
	lv->slave = open(ptsname(lv->master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(lv->slave >= 0);
	assert_int_equal(tcgetattr(lv->slave, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(lv->slave, TCSANOW, &t), 0);
	snprintf(path, sizeof(path), "%s/ep0", ffs);
	assert_int_equal(symlink(ptsname(lv->master), path), 0);
	for (i = 1; i <= 2; i++) {
		snprintf(path, sizeof(path), "%s/ep%u", ffs, i);
		assert_int_equal(close(open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)), 0);
	}
	snprintf(path, sizeof(path), "%s/stderr", dir);
	logfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(logfd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	argv[0] = (char *)worker_bin();
	lv->pid = fork();
	assert_true(lv->pid >= 0);
	if (lv->pid == 0) {
		if (dup2(logfd, 2) < 0 || dup2(sv[1], WORKER_FD) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	close(logfd);
	lv->ctl = sv[0];
}

/* The next message of one of the types wanted (others, such as status
 * updates, are skipped) within RUN_UNTIL_MS: its type, payload in buf, or
 * -1 (at once when the worker has gone). */
static int live_next(struct live *lv, uint16_t want1, uint16_t want2,
		     uint8_t *buf, size_t size, size_t *len)
{
	struct pollfd pfd = { .fd = lv->ctl, .events = POLLIN };
	uint8_t m[WORKER_MSG_MAX];
	struct wmsg_hdr h;
	ssize_t n;

	while (poll(&pfd, 1, RUN_UNTIL_MS) == 1) {
		n = recv(lv->ctl, m, sizeof(m), 0);
		if (n <= 0)
			return -1;
		assert_true(n >= (ssize_t)sizeof(h));
		memcpy(&h, m, sizeof(h));
		assert_int_equal(h.len, n - sizeof(h));
		if (h.type != want1 && h.type != want2)
			continue;
		assert_true(h.len <= size);
		memcpy(buf, m + sizeof(h), h.len);
		*len = h.len;
		return h.type;
	}
	return -1;
}

static void live_send(struct live *lv, const void *msg, size_t len)
{
	assert_int_equal(send(lv->ctl, msg, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* A datagram: header type with len given as hdr_len, then payload. */
static void live_send_raw(struct live *lv, uint16_t type, uint16_t hdr_len,
			  const void *payload, size_t len)
{
	uint8_t m[WORKER_MSG_MAX];
	struct wmsg_hdr h = { .type = type, .len = hdr_len };

	memcpy(m, &h, sizeof(h));
	memcpy(m + sizeof(h), payload, len);
	live_send(lv, m, sizeof(h) + len);
}

static void live_command(struct live *lv, uint32_t id, const char *args, size_t len)
{
	uint8_t p[WORKER_MSG_MAX];

	memcpy(p, &id, 4);
	memcpy(p + 4, args, len);
	live_send_raw(lv, WORKER_COMMAND, 4 + len, p, 4 + len);
}

/* A WORKER_REPLY: id, rc, text. */
static void expect_reply(struct live *lv, uint32_t id, int32_t rc, const char *text)
{
	uint8_t p[WORKER_MSG_MAX];
	size_t len;
	uint32_t got_id;
	int32_t got_rc;

	assert_int_equal(live_next(lv, WORKER_REPLY, WORKER_PONG, p, sizeof(p), &len),
			 WORKER_REPLY);
	assert_true(len > 8);
	assert_int_equal(p[len - 1], '\0');
	memcpy(&got_id, p, 4);
	memcpy(&got_rc, p + 4, 4);
	assert_int_equal(got_id, id);
	assert_int_equal(got_rc, rc);
	if (strncmp((char *)p + 8, text, strlen(text)))
		fail_msg("reply \"%s\", expected it to start with \"%s\"", (char *)p + 8, text);
}

static void expect_pong(struct live *lv, uint32_t seq)
{
	uint8_t p[64];
	size_t len;
	uint32_t got;

	assert_int_equal(live_next(lv, WORKER_REPLY, WORKER_PONG, p, sizeof(p), &len),
			 WORKER_PONG);
	assert_int_equal(len, 4);
	memcpy(&got, p, 4);
	assert_int_equal(got, seq);
}

static void ping(struct live *lv, uint32_t seq)
{
	live_send_raw(lv, WORKER_PING, 4, &seq, 4);
}

/* ep0 gets event type (struct usb_functionfs_event: 8 bytes of setup,
 * then the type); gadgetd must get WORKER_BUS with want. */
static void expect_bus(struct live *lv, uint8_t type, uint32_t want)
{
	uint8_t ev[12] = { 0 }, p[64];
	uint32_t got;
	size_t len;

	ev[8] = type;
	assert_int_equal(write(lv->master, ev, sizeof(ev)), (ssize_t)sizeof(ev));
	assert_int_equal(live_next(lv, WORKER_BUS, WORKER_BUS, p, sizeof(p), &len), WORKER_BUS);
	assert_int_equal(len, 4);
	memcpy(&got, p, 4);
	assert_int_equal(got, want);
}

static void test_running_worker_and_bad_messages(void **state)
{
	struct live lv;
	uint8_t p[WORKER_MSG_MAX];
	char many[2 * (WMSG_MAX_ARGS + 1)];
	size_t len;
	int st, i;

	live_start(&lv);
	if (live_next(&lv, WORKER_READY, WORKER_ERROR, p, sizeof(p), &len) != WORKER_READY) {
		kill(lv.pid, SIGKILL);
		waitpid(lv.pid, NULL, 0);
		fail_msg("the echo worker did not get READY");
	}
	/* The descriptors reached ep0, as FunctionFS wants them first:
	 * FUNCTIONFS_DESCRIPTORS_MAGIC_V2 = 3, little-endian. */
	assert_true(read(lv.master, p, 4) == 4);
	assert_int_equal(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24, 3);

	/* Garbage of every kind is dropped without an answer... */
	live_send(&lv, "\x40", 1);                          /* half a header */
	live_send_raw(&lv, WORKER_PING, 10, "\1\0\0\0", 4); /* len says more */
	live_send_raw(&lv, WORKER_PING, 2, "\1\0", 2);       /* no u32 */
	live_send_raw(&lv, 999, 0, "", 0);                  /* unknown type */
	live_send_raw(&lv, WORKER_READY, 0, "", 0);          /* wrong way */
	live_send_raw(&lv, WORKER_COMMAND, 2, "ab", 2);      /* no id */
	/* ...and the worker still answers the heartbeat, in order. */
	ping(&lv, 7);
	expect_pong(&lv, 7);

	/* A command with an id but broken arguments is answered as such. */
	live_command(&lv, 41, "stats", 5);                   /* no NUL */
	expect_reply(&lv, 41, -EBADMSG, "malformed command");
	for (i = 0; i < WMSG_MAX_ARGS + 1; i++) {
		many[2 * i] = 'a';
		many[2 * i + 1] = '\0';
	}
	live_command(&lv, 42, many, 2 * (WMSG_MAX_ARGS + 1));
	expect_reply(&lv, 42, -E2BIG, "malformed command");
	/* The plugin's own refusal and answer come through. */
	live_command(&lv, 43, "frobnicate", 11);
	expect_reply(&lv, 43, -EINVAL, "usage: stats");
	live_command(&lv, 44, "stats", 6);
	expect_reply(&lv, 44, 0, "in 0 out 0");
	ping(&lv, 8);
	expect_pong(&lv, 8);

	/* The bus suspended and resumed, as f_fs tells ep0: told to gadgetd. */
	expect_bus(&lv, FUNCTIONFS_SUSPEND, 1);
	expect_bus(&lv, FUNCTIONFS_RESUME, 0);
	/* An answer to a wakeup nobody asked for, or a malformed one: dropped. */
	live_send_raw(&lv, WORKER_WAKEUP_DONE, 4, "\0\0\0\0", 4);
	live_send_raw(&lv, WORKER_WAKEUP_DONE, 2, "\0\0", 2);
	ping(&lv, 9);
	expect_pong(&lv, 9);

	/* SIGTERM: a clean stop, status 0, no WORKER_ERROR. */
	kill(lv.pid, SIGTERM);
	assert_int_equal(waitpid(lv.pid, &st, 0), lv.pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(live_next(&lv, WORKER_ERROR, WORKER_ERROR, p, sizeof(p), &len), -1);
	close(lv.ctl);
	close(lv.master);
	close(lv.slave);
}

/* gadgetd going away (fd 3 hung up) ends the worker, with status 1. */
static void test_running_worker_gadgetd_hangs_up(void **state)
{
	struct live lv;
	uint8_t p[WORKER_MSG_MAX];
	size_t len;
	int st, i;

	live_start(&lv);
	assert_int_equal(live_next(&lv, WORKER_READY, WORKER_ERROR, p, sizeof(p), &len),
			 WORKER_READY);
	close(lv.ctl);
	for (i = 0; i < RUN_UNTIL_MS / 10 && waitpid(lv.pid, &st, WNOHANG) != lv.pid;
	     i++)
		usleep(10000);
	if (i == RUN_UNTIL_MS / 10) {
		kill(lv.pid, SIGKILL);
		waitpid(lv.pid, NULL, 0);
		fail_msg("the worker outlived gadgetd's socket by %d s",
			 RUN_UNTIL_MS / 1000);
	}
	if (WIFSIGNALED(st))
		fail_msg("the worker died of signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	close(lv.master);
	close(lv.slave);
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
		cmocka_unit_test_setup_teardown(test_hand_given_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_worker_and_bad_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_worker_gadgetd_hangs_up, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
