/* gadgetd-worker -x (functions/runtime/ffsexec.c) from the outside, as
 * gadgetd starts it (fd 3 a SOCK_SEQPACKET socketpair), with /bin/sh as
 * the program and a plain folder as its "instance", where the program's
 * creating ep1 stands for f_fs making it: READY only then, the program's
 * path and pid as status, the heartbeat answered, a command refused, the program's
 * environment and working folder, and the worker ending as the program
 * did (a kill -9 of the program, an exit before its descriptors).
 *
 * The binary is $GADGETD_WORKER, else build/gadgetd-worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run_until.h"
#include "wmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

struct worker {
	pid_t pid;
	int sock;
	bool ready;
	char program[256];
	int program_pid;
	char err[WORKER_ERROR_MAX + 16];
	uint32_t pong;
	bool pong_seen;
	bool reply_seen;
	uint32_t reply_id;
	int32_t reply_rc;
	char reply[512];
};

static const char *worker_bin(void)
{
	const char *w = getenv("GADGETD_WORKER");

	return w && w[0] ? w : "build/gadgetd-worker";
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_ffsexec.XXXXXX");
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

/* gadgetd-worker -x /bin/sh -i t -d DIR -e X=y [FLAG [VALUE]] -a -c -a
 * script. */
static void start_with(struct worker *w, const char *flag, const char *value,
		       const char *script)
{
	char *argv[] = { (char *)worker_bin(), "-x", "/bin/sh", "-i", "t",
			 "-d", dir, "-e", "X=y", "-a", "-c", "-a",
			 (char *)script, (char *)flag, (char *)value, NULL };
	int sv[2];

	memset(w, 0, sizeof(*w));
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	w->pid = fork();
	assert_true(w->pid >= 0);
	if (w->pid == 0) {
		if (dup2(sv[1], 3) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	w->sock = sv[0];
}

static void start(struct worker *w, const char *script)
{
	start_with(w, NULL, NULL, script);
}

/* One message from the worker within ms into w; false on none or EOF. */
static bool next_msg(struct worker *w, int ms)
{
	struct pollfd p = { .fd = w->sock, .events = POLLIN };
	uint8_t buf[WORKER_MSG_MAX], *payload;
	char *strs[4];
	uint16_t type;
	size_t len;
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return false;
	n = recv(w->sock, buf, sizeof(buf), 0);
	if (n <= 0)
		return false;
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	switch (type) {
	case WORKER_READY:
		w->ready = true;
		break;
	case WORKER_STATUS:
		assert_int_equal(wmsg_parse_strings(payload, len, strs, 2), 2);
		if (!strcmp(strs[0], "program"))
			snprintf(w->program, sizeof(w->program), "%s", strs[1]);
		else if (!strcmp(strs[0], "program_pid"))
			w->program_pid = atoi(strs[1]);
		break;
	case WORKER_ERROR:
		assert_int_equal(wmsg_parse_strings(payload, len, strs, 1), 1);
		snprintf(w->err, sizeof(w->err), "%s", strs[0]);
		break;
	case WORKER_REPLY: {
		const char *text;

		assert_int_equal(wmsg_parse_reply(payload, len, &w->reply_id,
						  &w->reply_rc, &text), 0);
		snprintf(w->reply, sizeof(w->reply), "%s", text);
		w->reply_seen = true;
		break;
	}
	case WORKER_PONG:
		assert_int_equal(wmsg_parse_u32(payload, len, &w->pong), 0);
		w->pong_seen = true;
		break;
	default:
		fail_msg("unexpected message %u", type);
	}
	return true;
}

/* The worker's wait status, once it ended (RUN_UNTIL_MS at most). */
static int reap(struct worker *w)
{
	bool ended = false;
	int st;

	WAIT_UNTIL(ended, {
		ended = waitpid(w->pid, &st, WNOHANG) == w->pid;
		next_msg(w, 10);
	});
	if (ended) {
		while (next_msg(w, 0))
			;
		close(w->sock);
		return st;
	}
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	fail_msg("the worker did not end");
	return -1;
}

static void test_ready_heartbeat_kill(void **state)
{
	char path[128], env[256] = "", want[160];
	uint8_t buf[32], buf2[WORKER_MSG_MAX];
	struct worker w;
	int st;
	FILE *f;

	start(&w, "printf %s \"$GADGETD_FFS:$GADGETD_FUNCTION:$X:$PWD\" > env.txt; "
		  "sleep 0.3; : > ep1; exec sleep 30");
	WAIT_UNTIL(w.program_pid, next_msg(&w, 100));
	assert_string_equal(w.program, "/bin/sh");
	assert_true(w.program_pid > 1);
	/* Not before the program made ep1. */
	snprintf(path, sizeof(path), "%s/ep1", dir);
	WAIT_UNTIL(w.ready, {
		bool had = access(path, F_OK) == 0;

		next_msg(&w, 100);
		if (w.ready && !had)
			assert_int_equal(access(path, F_OK), 0);
	});
	assert_true(w.ready);
	snprintf(path, sizeof(path), "%s/env.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(env, sizeof(env), f));
	fclose(f);
	snprintf(want, sizeof(want), "%s:t:y:%s", dir, dir);
	assert_string_equal(env, want);
	assert_int_equal(send(w.sock, buf, wmsg_build_u32(buf, sizeof(buf), WORKER_PING, 7), 0),
			 (ssize_t)wmsg_build_u32(buf, sizeof(buf), WORKER_PING, 7));
	WAIT_UNTIL(w.pong_seen, next_msg(&w, 100));
	assert_true(w.pong_seen);
	assert_int_equal(w.pong, 7);
	{
		char *cmd[] = { "status", NULL };
		int n = wmsg_build_command(buf2, sizeof(buf2), 42, 1, cmd);

		assert_true(n > 0);
		assert_int_equal(send(w.sock, buf2, n, 0), n);
	}
	WAIT_UNTIL(w.reply_seen, next_msg(&w, 100));
	assert_true(w.reply_seen);
	assert_int_equal(w.reply_id, 42);
	assert_int_equal(w.reply_rc, -EOPNOTSUPP);
	assert_string_equal(w.reply, "/bin/sh is a program, not a plugin: it takes no commands");
	assert_int_equal(kill(w.program_pid, SIGKILL), 0);
	st = reap(&w);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_string_equal(w.err, "/bin/sh killed by signal 9");
	unlink(path);
	snprintf(path, sizeof(path), "%s/ep1", dir);
	unlink(path);
}

static void test_exit_before_descriptors(void **state)
{
	struct worker w;
	int st;

	start(&w, "exit 3");
	st = reap(&w);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_false(w.ready);
	assert_string_equal(w.err, "/bin/sh exited with status 3 before it wrote its descriptors");
}

/* gadgetd's SIGTERM reaches the program, and the worker ends with it. */
static void test_sigterm(void **state)
{
	char path[128];
	struct worker w;
	int st;

	start(&w, ": > ep1; trap 'exit 0' TERM; while :; do sleep 0.1; done");
	WAIT_UNTIL(w.ready, next_msg(&w, 100));
	assert_true(w.ready);
	assert_int_equal(kill(w.pid, SIGTERM), 0);
	st = reap(&w);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(kill(w.program_pid, 0), -1);
	snprintf(path, sizeof(path), "%s/ep1", dir);
	unlink(path);
}

/* What the program of start_with(flag, value) saw, written by it to
 * DIR/pre.txt: its LD_PRELOAD as the worker gave it (the environment
 * block it started with), as its shell sees it once the guard took
 * itself out, and how many guards it has. */
static void preload_seen(const char *flag, const char *value, char *out,
			 size_t size)
{
	char path[128];
	struct worker w;
	size_t n;
	FILE *f;

	start_with(&w, flag, value,
		   "{ tr '\\0' '\\n' < /proc/$$/environ | grep ^LD_PRELOAD= || echo none; "
		   "echo \"${LD_PRELOAD-unset}\"; pgrep -c -x aioguard -P $$; } > pre.txt; "
		   ": > ep1; exec sleep 30");
	WAIT_UNTIL(w.ready, next_msg(&w, 100));
	assert_true(w.ready);
	kill(w.program_pid, SIGKILL);
	reap(&w);
	snprintf(path, sizeof(path), "%s/pre.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ep1", dir);
	unlink(path);
}

/* The ELF machine of path (e_machine), or -1. */
static int elf_machine(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	return n == sizeof(h) ? h[18] | h[19] << 8 : -1;
}

/* The AIO guard beside the worker's binary comes first in LD_PRELOAD,
 * the profile's own after it; the guard runs and leaves the program's
 * children the profile's alone. -G (aio_guard = false): none of it. */
static void test_aio_guard_preloaded(void **state)
{
	char real[PATH_MAX], want[PATH_MAX + 128], got[PATH_MAX + 128];

	assert_non_null(realpath(worker_bin(), real));
	/* Under qemu-user (make check-cross) the worker is an ARM binary
	 * but the /bin/sh it runs is this machine's, which cannot load an
	 * ARM library: nothing to see there. */
	if (elf_machine(real) != elf_machine("/bin/sh")) {
		fprintf(stderr, "%s and /bin/sh are built for different machines\n", real);
		skip();
	}
	*strrchr(real, '/') = '\0';
	preload_seen("-e", "LD_PRELOAD=libc.so.6", got, sizeof(got));
	snprintf(want, sizeof(want),
		 "LD_PRELOAD=%s/gadgetd-aioguard.so:libc.so.6\nlibc.so.6\n1\n", real);
	assert_string_equal(got, want);
	preload_seen("-G", NULL, got, sizeof(got));
	assert_string_equal(got, "none\nunset\n0\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_heartbeat_kill),
		cmocka_unit_test(test_exit_before_descriptors),
		cmocka_unit_test(test_sigterm),
		cmocka_unit_test(test_aio_guard_preloaded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
