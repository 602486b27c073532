/* gadgetd/supervisor.c with real worker processes: this binary, run again
 * as the worker (see worker_main), and mount()/umount2() wrapped. Plugin
 * commands are answered from the loop, never from inside the call; a
 * worker that dies or is stopped while a command waits finishes it, and
 * ASan sees any use of the freed worker record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "loop.h"
#include "profile.h"
#include "supervisor.h"
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int __wrap_mount(const char *src, const char *dst, const char *type,
		 unsigned long flags, const void *data);
int __wrap_umount2(const char *dst, int flags);

int __wrap_mount(const char *src, const char *dst, const char *type,
		 unsigned long flags, const void *data)
{
	return 0;
}

int __wrap_umount2(const char *dst, int flags)
{
	return 0;
}

static void worker_send(uint16_t type, const void *payload, size_t len)
{
	char buf[WORKER_MSG_MAX];
	struct worker_hdr h = { .type = type, .len = len };

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	if (send(WORKER_FD, buf, sizeof(h) + len, MSG_NOSIGNAL) < 0)
		_exit(1);
}

/* A worker's last error before it exits, as an MTP worker sends it: with
 * bytes a subverted worker might add, and longer than gadgetd keeps. */
#define EARLY_ERROR "mtp: option storage0_path: /srv/mtp: No such file or directory"
#define EARLY_EVIL "\x1b[2J\n"

static void worker_early(void)
{
	char text[600];

	memset(text, 'x', sizeof(text));
	memcpy(text, EARLY_ERROR EARLY_EVIL, strlen(EARLY_ERROR EARLY_EVIL));
	text[sizeof(text) - 1] = '\0';
	worker_send(WORKER_ERROR, text, sizeof(text));
	_exit(1);
}

/* The worker (-i NAME): "early" exits with an error before it is ready,
 * "slow" is healthy but ready only after 3 s; the others are READY at
 * once, then for each command "ping" a reply "pong", "die" an exit
 * without a reply, anything else no reply at all. */
static int worker_main(const char *name)
{
	char buf[WORKER_MSG_MAX], reply[64];
	struct worker_hdr h;
	int32_t rc = 0;
	ssize_t n;

	if (!strcmp(name, "early"))
		worker_early();
	if (!strcmp(name, "slow"))
		sleep(3);
	worker_send(WORKER_READY, NULL, 0);
	while ((n = recv(WORKER_FD, buf, sizeof(buf), 0)) > 0) {
		const char *cmd = buf + sizeof(h) + 4;
		memcpy(&h, buf, sizeof(h));
		if (h.type != WORKER_COMMAND || n < (ssize_t)sizeof(h) + 5)
			continue;
		if (!strcmp(cmd, "die"))
			_exit(1);
		if (strcmp(cmd, "ping"))
			continue;
		memcpy(reply, buf + sizeof(h), 4);
		memcpy(reply + 4, &rc, 4);
		memcpy(reply + 8, "pong", 5);
		worker_send(WORKER_REPLY, reply, 13);
	}
	return 0;
}

struct result {
	bool done;
	int r;
	char text[1024];
};

struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct supervisor *sup;
	struct profile_function fn;
	struct result ready, cmd;
};

static void on_child(struct loop *l, int signo, void *data)
{
	struct fixture *f = data;

	supervisor_reap(f->sup);
}

static void on_result(int r, const char *text, void *data)
{
	struct result *res = data;

	assert_false(res->done);
	res->done = true;
	res->r = r;
	snprintf(res->text, sizeof(res->text), "%s", text);
}

static void wait_result(struct fixture *f, struct result *res)
{
	int i;

	for (i = 0; i < 200 && !res->done; i++)
		loop_dispatch(f->loop, 50);
	assert_true(res->done);
}

static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_supervisor.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->cfg.ffs_dir = f->dir;
	/* The plugins' folders go there too, not into the real RUNDIR. */
	f->cfg.run_dir = f->dir;
	f->cfg.worker = "/proc/self/exe";
	f->cfg.plugin_dir = "/nonexistent";
	f->cfg.restart_delay_ms = 60000;
	f->loop = loop_new();
	f->sup = supervisor_new(f->loop, &f->cfg, NULL, NULL, NULL);
	assert_int_equal(loop_add_signal(f->loop, SIGCHLD, on_child, f), 0);
	f->fn.type = PROFILE_F_FFS;
	f->fn.plugin = "fake";
	return f;
}

static void start(struct fixture *f, const char *name)
{
	snprintf(f->fn.name, sizeof(f->fn.name), "%s", name);
	assert_int_equal(supervisor_start(f->sup, &f->fn), 0);
}

static int setup(void **state)
{
	struct fixture *f = fixture_new();

	start(f, "fa");
	/* The wait ends from the loop, not inside the call. */
	assert_int_equal(supervisor_wait_ready(f->sup, 5000, on_result, &f->ready), 0);
	assert_false(f->ready.done);
	wait_result(f, &f->ready);
	if (f->ready.r)
		fprintf(stderr, "ready: %s\n", f->ready.text);
	assert_int_equal(f->ready.r, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	supervisor_free(f->sup);
	loop_free(f->loop);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Two workers start; the wait runs in the test. */
static int setup_two(void **state)
{
	struct fixture *f = fixture_new();

	start(f, "slow");
	start(f, "early");
	*state = f;
	return 0;
}

/*
 * One worker exits before it is ready while the other is healthy but
 * slow: the wait ends at once (not after its 5 s), names only the one
 * that died, with its own last error, printable and cut to size.
 */
static void test_early_exit_fails_wait_at_once(void **state)
{
	struct fixture *f = *state;
	uint64_t t0 = loop_now_ms(), took;

	assert_int_equal(supervisor_wait_ready(f->sup, 5000, on_result, &f->ready), 0);
	wait_result(f, &f->ready);
	took = loop_now_ms() - t0;
	fprintf(stderr, "wait ended after %llu ms: %s\n", (unsigned long long)took,
		f->ready.text);
	assert_true(took < 1500);
	assert_int_equal(f->ready.r, -ECHILD);
	assert_non_null(strstr(f->ready.text, "function early: failed: " EARLY_ERROR
			       "\\x1b[2J\\x0axxx"));
	assert_non_null(strstr(f->ready.text, "(its worker exited with status 1 "
			       "before it was ready)"));
	assert_null(strstr(f->ready.text, "slow"));
	assert_null(strchr(f->ready.text, '\x1b'));
}

/* SIGCHLD can be handled before the worker's last datagram is read: the
 * error still goes with the exit. */
static void test_error_read_before_reap(void **state)
{
	struct fixture *f = fixture_new();
	char *text = NULL;
	size_t size = 0;
	siginfo_t si;
	FILE *out;

	*state = f;
	start(f, "early");
	/* Exited, not reaped, and the loop has not run. */
	assert_int_equal(waitid(P_ALL, 0, &si, WEXITED | WNOWAIT), 0);
	supervisor_reap(f->sup);
	out = open_memstream(&text, &size);
	supervisor_status(f->sup, out, false);
	fclose(out);
	assert_non_null(strstr(text, "    last error: " EARLY_ERROR));
	free(text);
}

/* A worker that cannot be set up: the reason names the path. */
static void test_start_error_names_path(void **state)
{
	struct fixture *f = fixture_new();
	char file[96], want[160];
	FILE *fp;

	*state = f;
	snprintf(file, sizeof(file), "%s/run", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	f->cfg.run_dir = file;
	snprintf(f->fn.name, sizeof(f->fn.name), "fa");
	assert_int_equal(supervisor_start(f->sup, &f->fn), -ENOTDIR);
	snprintf(want, sizeof(want), "cannot prepare %s/fake: Not a directory", file);
	assert_string_equal(supervisor_start_error(f->sup), want);
	assert_false(supervisor_has(f->sup, "fa"));
	unlink(file);
}

/* gadgetctl status: the function's last exit and its last error. */
static void test_status_shows_last_error(void **state)
{
	struct fixture *f = *state;
	char *text = NULL, *line, *end;
	size_t size = 0;
	FILE *out;

	assert_int_equal(supervisor_wait_ready(f->sup, 5000, on_result, &f->ready), 0);
	wait_result(f, &f->ready);
	out = open_memstream(&text, &size);
	supervisor_status(f->sup, out, false);
	fclose(out);
	fprintf(stderr, "%s", text);
	assert_non_null(strstr(text, "  early: restarting, pid 0, restarts 1, last exit: "
			       "exited with status 1\n"));
	line = strstr(text, "    last error: " EARLY_ERROR "\\x1b[2J\\x0axxx");
	assert_non_null(line);
	end = strchr(line, '\n');
	assert_non_null(end);
	/* At most WORKER_ERROR_MAX - 1 bytes of the worker's text. */
	assert_true(end - line - strlen("    last error: ") <= WORKER_ERROR_MAX - 1);
	free(text);
	text = NULL;
	out = open_memstream(&text, &size);
	supervisor_status(f->sup, out, true);
	fclose(out);
	assert_non_null(strstr(text, "\"last_error\":\"" EARLY_ERROR "\\\\x1b"));
	free(text);
}

static int command(struct fixture *f, const char *what)
{
	char *argv[] = { (char *)what, NULL }, reply[256];

	return supervisor_command(f->sup, "fa", 1, argv, reply, sizeof(reply),
				  on_result, &f->cmd);
}

static void test_reply(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command(f, "ping"), -EINPROGRESS);
	assert_false(f->cmd.done);
	wait_result(f, &f->cmd);
	assert_int_equal(f->cmd.r, 0);
	assert_string_equal(f->cmd.text, "pong");
}

static void test_worker_dies_with_command_pending(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command(f, "die"), -EINPROGRESS);
	wait_result(f, &f->cmd);
	assert_int_equal(f->cmd.r, -EPIPE);
	assert_non_null(strstr(f->cmd.text, "function fa: plugin worker"));
	assert_non_null(strstr(f->cmd.text, "before it replied"));
	/* A command to a worker that is down is refused at once. */
	memset(&f->cmd, 0, sizeof(f->cmd));
	assert_int_equal(command(f, "ping"), -EAGAIN);
}

/* A switch stops the function while its command waits: the command is
 * finished after the round, with the worker record already freed. */
static void test_stop_with_command_pending(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command(f, "hang"), -EINPROGRESS);
	loop_dispatch(f->loop, 50);
	supervisor_stop(f->sup, "fa");
	assert_false(f->cmd.done);
	wait_result(f, &f->cmd);
	assert_int_equal(f->cmd.r, -ECANCELED);
	assert_non_null(strstr(f->cmd.text, "stopped"));
}

/* gadgetd stops while a command waits: answered from supervisor_free(). */
static void test_free_with_command_pending(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(command(f, "hang"), -EINPROGRESS);
	supervisor_free(f->sup);
	f->sup = NULL;
	assert_true(f->cmd.done);
	assert_int_equal(f->cmd.r, -ECANCELED);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_dies_with_command_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_with_command_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_with_command_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_early_exit_fails_wait_at_once, setup_two, teardown),
		cmocka_unit_test_setup_teardown(test_status_shows_last_error, setup_two, teardown),
		cmocka_unit_test_teardown(test_error_read_before_reap, teardown),
		cmocka_unit_test_teardown(test_start_error_names_path, teardown),
	};

	if (argc > 4 && !strcmp(argv[1], "-P") && !strcmp(argv[3], "-i"))
		return worker_main(argv[4]);
	return cmocka_run_group_tests_name("supervisor", tests, NULL, NULL);
}
