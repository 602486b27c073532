/*
 * Unit tests for functions/runtime/sandbox.c and functions/runtime/spawner.c. Each
 * sandbox case runs in a forked child, since a filter and a credential
 * change cannot be undone; the parent checks how the child ended. The
 * spawner runs for real, unprivileged, on a socketpair.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"
#include "sandbox.h"
#include "spawner.h"

/* Run fn in a child; return its wait status. The child leaves with
 * _exit() so that no sanitizer work at exit meets the filter. */
static int in_child(int (*fn)(void))
{
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* The value of a "Key:\tvalue" line of /proc/self/status (read before
 * the filter forbids opening it). */
static int status_line(const char *key, char *out, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int r = -1;

	if (!f)
		return -1;
	while (r && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			snprintf(out, size, "%s", line + strlen(key) + 2);
			out[strcspn(out, "\n")] = '\0';
			r = 0;
		}
	fclose(f);
	return r;
}

/* The child reports on this pipe how far it got. */
static int g_pipe[2];

static int child_allowed_then_denied(void)
{
	char buf[4096];
	ssize_t n;
	int fd;

	/* Opened before the filter, read after: /proc shows the state at
	 * the time of the read. */
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || sandbox_lock(NULL) < 0)
		return 10;
	n = read(fd, buf, sizeof(buf) - 1); /* the runtime's own calls */
	if (n <= 0)
		return 11;
	buf[n] = '\0';
	if (!strstr(buf, "NoNewPrivs:\t1\n") || !strstr(buf, "Seccomp:\t2\n"))
		return 12;
	if (write(g_pipe[1], "ok", 2) != 2)
		return 13;
	/* socket is not in the runtime's list: SIGSYS, no return. */
	syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	return 14;
}

static void test_filter_kills_on_denied_call(void **state)
{
	char got[8] = "";
	int st;

	assert_int_equal(pipe(g_pipe), 0);
	st = in_child(child_allowed_then_denied);
	close(g_pipe[1]);
	assert_int_equal(read(g_pipe[0], got, sizeof(got) - 1), 2);
	close(g_pipe[0]);
	assert_string_equal(got, "ok");
	if (WIFEXITED(st))
		fail_msg("child exited with %d instead of dying", WEXITSTATUS(st));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static int child_extra_allows(void)
{
	static const char *const extra[] = { "socket", NULL };
	long fd;

	if (sandbox_lock(extra) < 0)
		return 10;
	fd = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return 11;
	if (write(g_pipe[1], "ok", 2) != 2)
		return 13;
	/* execve is in no list. */
	syscall(SYS_execve, "/bin/true", NULL, NULL);
	return 12;
}

static void test_plugin_list_extends_the_filter(void **state)
{
	char got[8] = "";
	int st;

	assert_int_equal(pipe(g_pipe), 0);
	st = in_child(child_extra_allows);
	close(g_pipe[1]);
	assert_int_equal(read(g_pipe[0], got, sizeof(got) - 1), 2);
	close(g_pipe[0]);

	if (WIFEXITED(st))
		fail_msg("child exited with %d instead of dying at execve",
			 WEXITSTATUS(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static int child_bad_name(void)
{
	static const char *const extra[] = { "openat", "no_such_call", NULL };

	if (sandbox_lock(extra) != -EINVAL)
		return 10;
	/* Nothing was installed: any call still works. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0)
		return 11;
	return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0) < 0 ? 12 : 0;
}

static void test_unknown_name_installs_nothing(void **state)
{
	int st = in_child(child_bad_name);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int child_drop_caps_only(void)
{
	char v[64];

	/* Not root, or root staying root: the same ids, no capability. */
	if (sandbox_drop(NULL, getuid(), getgid(), 0) < 0)
		return 10;
	if (status_line("CapEff", v, sizeof(v)) || strcmp(v, "0000000000000000"))
		return 11;
	if (status_line("CapPrm", v, sizeof(v)) || strcmp(v, "0000000000000000"))
		return 12;
	return 0;
}

static void test_drop_capabilities(void **state)
{
	int st = in_child(child_drop_caps_only);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int child_become_nobody(void)
{
	char v[64];

	/* CAP_NET_BIND_SERVICE (10) kept across the uid change. */
	if (sandbox_drop("nobody", 65534, 65534, 1ULL << 10) < 0)
		return 10;
	if (getuid() != 65534 || geteuid() != 65534 || getgid() != 65534)
		return 11;
	if (status_line("CapEff", v, sizeof(v)) || strcmp(v, "0000000000000400"))
		return 12;
	if (status_line("CapBnd", v, sizeof(v)) || strcmp(v, "0000000000000400"))
		return 13;
	if (status_line("CapAmb", v, sizeof(v)) || strcmp(v, "0000000000000400"))
		return 14;
	/* No way back. */
	if (setuid(0) == 0)
		return 15;
	return 0;
}

static void test_become_user_with_one_capability(void **state)
{
	int st;

	if (geteuid() != 0)
		skip(); /* changing uid needs root; the rest runs anyway */
	st = in_child(child_become_nobody);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int child_not_root_cannot_switch(void)
{
	if (geteuid() == 0 && setresuid(65534, 65534, 65534) < 0)
		return 10;
	return sandbox_drop(NULL, 0, 0, 0) == -EPERM ? 0 : 11;
}

static void test_unprivileged_cannot_change_ids(void **state)
{
	int st = in_child(child_not_root_cannot_switch);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- spawner ---- */

struct sp {
	int fd;
	pid_t pid;
	char dir[64];
};

static void sp_start(struct sp *s, const char *shell, const char *reboot)
{
	struct spawner_cfg cfg = { .shell = shell, .reboot = reboot };

	assert_int_equal(spawner_start(&cfg, &s->fd, &s->pid), 0);
}

static int sp_setup(void **state)
{
	struct sp *s = calloc(1, sizeof(*s));

	snprintf(s->dir, sizeof(s->dir), "/tmp/test_spawner.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	sp_start(s, "/bin/sh", NULL);
	*state = s;
	return 0;
}

static void sp_stop(struct sp *s)
{
	int st;

	close(s->fd);
	/* The hang-up ends the spawner. */
	assert_int_equal(waitpid(s->pid, &st, 0), s->pid);
	assert_true(WIFEXITED(st));
}

static int sp_teardown(void **state)
{
	struct sp *s = *state;
	char cmd[128];

	sp_stop(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	return 0;
}

struct sp_wait {
	bool done;
	int err;
	struct spawner_child ch;
};

static void sp_done(void *data, int err, const struct spawner_child *ch)
{
	struct sp_wait *w = data;

	w->done = true;
	w->err = err;
	if (ch)
		w->ch = *ch;
}

/* One request through the worker's asynchronous end, on a loop of its
 * own, waited for: 0 with *ch, or -errno. */
static int sp_spawn(struct sp *s, const struct spawner_cmd *c,
		    struct spawner_child *ch)
{
	struct sp_wait w = { 0 };
	struct loop *loop = loop_new();
	struct spawner *sp = spawner_new(loop, dup(s->fd));
	struct spawner_call *call;
	int r;

	assert_non_null(sp);
	r = spawner_spawn(sp, c, sp_done, &w, &call);
	while (r == 0 && !w.done)
		assert_true(loop_dispatch(loop, 10000) > 0);
	spawner_free(sp);
	loop_free(loop);
	if (r < 0)
		return r;
	*ch = w.ch;
	return w.err;
}

static size_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
	return n;
}

static int wait_status(int fd)
{
	int st = -1;
	char more;

	assert_int_equal(read(fd, &st, sizeof(st)), sizeof(st));
	assert_int_equal(read(fd, &more, 1), 0); /* then EOF */
	return st;
}

static void close_child(struct spawner_child *ch)
{
	close(ch->in);
	if (ch->out >= 0)
		close(ch->out);
	if (ch->err >= 0)
		close(ch->err);
	close(ch->status);
}

static void test_spawn_pipes(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd c = {
		.cmd = "read x; echo out:$x:$0; echo err >&2; exit 7" };
	struct spawner_child ch;
	char buf[256];
	int st;

	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	assert_true(ch.pid > 0);
	assert_int_equal(write(ch.in, "hi\n", 3), 3);
	close(ch.in);
	read_all(ch.out, buf, sizeof(buf));
	assert_string_equal(buf, "out:hi:/bin/sh\n");
	read_all(ch.err, buf, sizeof(buf));
	assert_string_equal(buf, "err\n");
	st = wait_status(ch.status);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
	assert_true(fcntl(ch.out, F_GETFD) & FD_CLOEXEC);
	close(ch.out);
	close(ch.err);
	close(ch.status);
}

static void test_spawn_pty(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd c = { .pty = true, .term = "xterm-t",
				 .rows = 33, .cols = 99,
				 .cmd = "echo $TERM; stty size; test -t 0 && echo tty" };
	struct spawner_child ch;
	char buf[512];

	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	assert_int_equal(ch.out, -1);
	assert_int_equal(ch.err, -1);
	assert_true(WIFEXITED(wait_status(ch.status)));
	/* A pty master reads EIO once the slave is gone: read what came. */
	read_all(ch.in, buf, sizeof(buf));
	assert_non_null(strstr(buf, "xterm-t"));
	assert_non_null(strstr(buf, "33 99"));
	assert_non_null(strstr(buf, "tty"));
	close(ch.in);
	close(ch.status);
}

/* The shell is the profile's, fixed at the fork: a missing one fails in
 * the child (127), and a relative one is refused before any fork. */
static void test_spawn_missing_shell(void **state)
{
	struct sp *s = *state;
	struct spawner_cfg rel = { .shell = "sh" };
	struct spawner_cmd c = { .cmd = "true" };
	struct spawner_child ch;
	int fd;
	pid_t pid;

	sp_stop(s);
	sp_start(s, "/nonexistent/sh", NULL);
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	assert_int_equal(WEXITSTATUS(wait_status(ch.status)), 127);
	close_child(&ch);
	assert_int_equal(spawner_start(&rel, &fd, &pid), -EINVAL);
}

/* Each program's wait status reaches its own status pipe when it ends,
 * in whatever order they end; a signal's death too. */
static void test_spawn_status_each_its_own(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd waits = { .cmd = "read x; exit 3" };
	struct spawner_cmd killed = { .cmd = "kill -KILL $$" };
	struct spawner_child a, b;
	int st;

	assert_int_equal(sp_spawn(s, &waits, &a), 0);
	assert_int_equal(sp_spawn(s, &killed, &b), 0);
	st = wait_status(b.status);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_int_equal(write(a.in, "go\n", 3), 3);
	st = wait_status(a.status);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	close_child(&a);
	close_child(&b);
}

/* The worker hangs up: each session is hung up as a whole, its
 * background job too (stdout reaches EOF only once both are gone), and
 * the spawner exits at once, with no status to report. */
static void test_hangup_ends_sessions(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd c = { .cmd = "sleep 1000 & echo ready; wait" };
	struct spawner_child ch;
	struct pollfd p;
	char buf[64];

	/* Even from a worker that inherited SIGHUP ignored (gadgetd started
	 * under nohup), which once passed it on to the session: its jobs
	 * then outlived the hang-up. */
	sp_stop(s);
	signal(SIGHUP, SIG_IGN);
	sp_start(s, "/bin/sh", NULL);
	signal(SIGHUP, SIG_DFL);
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	assert_int_equal(read(ch.out, buf, 6), 6);
	assert_memory_equal(buf, "ready\n", 6);
	sp_stop(s);
	/* The job's end closes its output; bounded, so that a job that
	 * outlives the hang-up fails the test instead of hanging it. */
	p = (struct pollfd){ .fd = ch.out, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 30000), 1);
	assert_int_equal(read_all(ch.out, buf, sizeof(buf)), 0);
	assert_int_equal(read(ch.status, buf, 1), 0);
	close_child(&ch);
	sp_start(s, "/bin/sh", NULL);
}

/* A program starts with no signal ignored or blocked, whatever the worker
 * inherited (SIGHUP and SIGUSR1 ignored here) or the spawner set itself
 * (SIGPIPE), and with the user's HOME and USER, all found once when the
 * spawner started rather than in each child. The signals glibc keeps for
 * itself (32 up to SIGRTMIN) are out of a program's reach, and out of the
 * check: a test runner may pass them down ignored. */
static void test_child_starts_clean(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd c = {
		/* sed's own status, not the shell's: dash blocks every signal
		 * while it waits for a child, and Debian 13's (0.5.12-12) was
		 * always waiting when sed read it. */
		.cmd = "sed -n 's/^Sig\\(Blk\\|Ign\\):\\t//p' /proc/self/status; "
		       "echo \"$HOME $USER\""
	};
	struct passwd *pw = getpwuid(getuid());
	unsigned long long blk, ign, glibc = 0;
	struct spawner_child ch;
	char buf[512], home[256], user[64];
	ssize_t n;

	assert_non_null(pw);
	for (int sig = 32; sig < SIGRTMIN; sig++)
		glibc |= 1ULL << (sig - 1);
	sp_stop(s);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	sp_start(s, "/bin/sh", NULL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	n = read_all(ch.out, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_int_equal(sscanf(buf, "%llx %llx %255s %63s", &blk, &ign, home,
				user),
			 4);
	assert_int_equal(blk, 0);
	assert_int_equal(ign & ~glibc, 0);
	assert_string_equal(home, pw->pw_dir);
	assert_string_equal(user, pw->pw_name);
	assert_true(WIFEXITED(wait_status(ch.status)));
	close_child(&ch);
}

/*
 * A subverted worker cannot choose the program. A request laid out as
 * the old format (a shell path first) is refused; one that puts a path
 * where the term goes still runs the profile's shell; the text is only
 * ever the shell's command line.
 */
static void test_request_cannot_name_a_program(void **state)
{
	struct sp *s = *state;
	struct spawner_cmd c;
	struct spawner_child ch;
	uint8_t old[64];
	struct spawner_rep rep;
	char buf[256], path[128];
	struct stat st;
	size_t n = 0;
	uint32_t v = 0;

	/* flags, rows/cols, n_args = 0, then "/bin/touch", term, cmd. */
	memcpy(old + n, &v, 4), n += 4;
	memcpy(old + n, &v, 4), n += 4;
	memcpy(old + n, &v, 4), n += 4;
	snprintf(path, sizeof(path), "%s/owned", s->dir);
	memcpy(old + n, "/bin/touch", 11), n += 11;
	old[n++] = '\0';
	memcpy(old + n, path, strlen(path) + 1), n += strlen(path) + 1;
	assert_true(n <= sizeof(old));
	assert_int_equal(spawner_req_parse(old, n, &c), -EBADMSG);
	assert_int_equal(send(s->fd, old, n, 0), (ssize_t)n);
	assert_int_equal(recv(s->fd, &rep, sizeof(rep), 0), sizeof(rep));
	assert_int_equal(rep.err, -EBADMSG);
	assert_int_equal(stat(path, &st), -1);
	/* A path as the term: the profile's shell runs the text. */
	c = (struct spawner_cmd){ .term = "/bin/touch", .cmd = "echo $0" };
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	read_all(ch.out, buf, sizeof(buf));
	assert_string_equal(buf, "/bin/sh\n");
	assert_int_equal(WEXITSTATUS(wait_status(ch.status)), 0);
	close_child(&ch);
}

/* Reboot runs the profile's command with a plain-word target, and
 * nothing without one configured. */
static void test_spawn_reboot(void **state)
{
	static const char *const bad[] = { "-f", "/etc/x", "a b", "../x", "A",
					   "x;id", "$(id)",
					   "abcdefghijklmnopqrstuvwxyz0123456" };
	struct sp *s = *state;
	struct spawner_cmd c = { .reboot = true, .cmd = "bootloader" };
	struct spawner_child ch;
	char script[128], buf[256];
	uint8_t req[128];
	unsigned i;
	int n;
	FILE *f;

	/* None configured: -EPERM. */
	assert_int_equal(sp_spawn(s, &c, &ch), -EPERM);
	snprintf(script, sizeof(script), "%s/reboot", s->dir);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$#:$1\"\n");
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	sp_stop(s);
	sp_start(s, "/bin/sh", script);
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	read_all(ch.out, buf, sizeof(buf));
	assert_string_equal(buf, "1:bootloader\n");
	assert_int_equal(WEXITSTATUS(wait_status(ch.status)), 0);
	close_child(&ch);
	c.cmd = "";
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	read_all(ch.out, buf, sizeof(buf));
	assert_string_equal(buf, "0:\n");
	assert_int_equal(WEXITSTATUS(wait_status(ch.status)), 0);
	close_child(&ch);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_false(spawner_reboot_arg_ok(bad[i]));
		c.cmd = bad[i];
		n = spawner_req_build(&c, req, sizeof(req));
		assert_true(n > 0);
		assert_int_equal(spawner_req_parse(req, n, &c), -EBADMSG);
		c = (struct spawner_cmd){ .reboot = true, .cmd = bad[i] };
		assert_int_equal(sp_spawn(s, &c, &ch), -EBADMSG);
	}
	/* And never with a pty. */
	c = (struct spawner_cmd){ .reboot = true, .pty = true, .cmd = "x" };
	assert_int_equal(sp_spawn(s, &c, &ch), -EBADMSG);
}

/* A hostile worker: every malformed request gets -EBADMSG and no fd,
 * and the spawner keeps serving. */
static void test_spawner_refuses_garbage(void **state)
{
	static const uint8_t junk[][24] = {
		{ 0 },
		{ 4, 0, 0, 0, 0, 0, 0, 0, 0, 0 },                  /* unknown flag */
		{ 3, 0, 0, 0, 0, 0, 0, 0, 0, 'x', 0 },              /* pty + reboot */
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 'x' },                 /* no NUL */
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0 },                      /* text missing */
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 'x', 0, 'y', 0 },      /* a third string */
		{ 2, 0, 0, 0, 0, 0, 0, 0, 't', 0, 'x', 0 },         /* reboot with a term */
	};
	static const size_t lens[] = { 3, 10, 11, 10, 9, 13, 12 };
	struct sp *s = *state;
	struct spawner_rep rep;
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh;
	struct spawner_cmd c;
	struct spawner_child ch;
	unsigned i;
	uint8_t big[SPAWNER_MSG_MAX + 1];

	for (i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		assert_int_equal(send(s->fd, junk[i], lens[i], 0), (ssize_t)lens[i]);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		assert_int_equal(recvmsg(s->fd, &mh, 0), sizeof(rep));
		assert_int_equal(rep.err, -EBADMSG);
		assert_int_equal(mh.msg_controllen, 0);
		/* The parser agrees, on its own. */
		assert_int_equal(spawner_req_parse(junk[i], lens[i], &c), -EBADMSG);
	}
	memset(big, 'a', sizeof(big));
	assert_int_equal(spawner_req_parse(big, sizeof(big), &c), -EBADMSG);
	/* Still serving. */
	c = (struct spawner_cmd){ .cmd = "true" };
	assert_int_equal(sp_spawn(s, &c, &ch), 0);
	assert_int_equal(WEXITSTATUS(wait_status(ch.status)), 0);
	close_child(&ch);
}

static void test_request_round_trip(void **state)
{
	struct spawner_cmd c = { .cmd = "x", .pty = true,
				 .term = "vt100", .rows = 1, .cols = 2 }, d;
	uint8_t buf[SPAWNER_MSG_MAX];
	char huge[SPAWNER_MSG_MAX];
	int n = spawner_req_build(&c, buf, sizeof(buf));

	assert_true(n > 0);
	assert_int_equal(spawner_req_parse(buf, n, &d), 0);
	assert_string_equal(d.term, "vt100");
	assert_string_equal(d.cmd, "x");
	assert_true(d.pty);
	assert_false(d.reboot);
	assert_int_equal(d.rows, 1);
	assert_int_equal(d.cols, 2);
	/* Trailing bytes are refused. */
	buf[n] = 'z';
	assert_int_equal(spawner_req_parse(buf, n + 1, &d), -EBADMSG);
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	c.cmd = huge;
	assert_int_equal(spawner_req_build(&c, buf, sizeof(buf)), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_kills_on_denied_call),
		cmocka_unit_test(test_plugin_list_extends_the_filter),
		cmocka_unit_test(test_unknown_name_installs_nothing),
		cmocka_unit_test(test_drop_capabilities),
		cmocka_unit_test(test_become_user_with_one_capability),
		cmocka_unit_test(test_unprivileged_cannot_change_ids),
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test_setup_teardown(test_spawn_pipes, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_spawn_pty, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_spawn_missing_shell, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_spawn_status_each_its_own, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_hangup_ends_sessions, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_child_starts_clean, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_request_cannot_name_a_program, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_spawn_reboot, sp_setup, sp_teardown),
		cmocka_unit_test_setup_teardown(test_spawner_refuses_garbage, sp_setup, sp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
