/*
 * spawner: a small unfiltered process that starts programs on behalf of
 * a seccomp-filtered worker (see spawner.h for the protocol).
 */
#include "spawner.h"
#include "child.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pty.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmp.h>

/* A fork is quick; a spawner that does not answer in this time is hung. */
#define SPAWNER_REPLY_MS 5000

bool spawner_reboot_arg_ok(const char *arg)
{
	size_t i;

	if (arg[0] == '-')
		return false;
	for (i = 0; arg[i]; i++)
		if (i == SPAWNER_REBOOT_ARG_MAX ||
		    !((arg[i] >= 'a' && arg[i] <= 'z') ||
		      (arg[i] >= '0' && arg[i] <= '9') || arg[i] == '-' ||
		      arg[i] == '_'))
			return false;
	return true;
}

int spawner_req_build(const struct spawner_cmd *c, uint8_t *buf, size_t size)
{
	struct spawner_req h = {
		.flags = (c->pty ? SPAWNER_PTY : 0) |
			 (c->reboot ? SPAWNER_REBOOT : 0),
		.rows = c->rows,
		.cols = c->cols,
	};
	const char *strs[2] = { c->term ? c->term : "", c->cmd };
	size_t n = sizeof(h), l;
	unsigned i;

	if (!c->cmd || size < n)
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		l = strlen(strs[i]) + 1;
		if (n + l > size || n + l > SPAWNER_MSG_MAX)
			return -E2BIG;
		memcpy(buf + n, strs[i], l);
		n += l;
	}
	memcpy(buf, &h, sizeof(h));
	return n;
}

/* The next NUL-terminated string at *off, or NULL. */
static const char *spawner_str(const uint8_t *buf, size_t len, size_t *off)
{
	const uint8_t *end;
	const char *s;

	if (*off >= len)
		return NULL;
	end = memchr(buf + *off, '\0', len - *off);
	if (!end)
		return NULL;
	s = (const char *)buf + *off;
	*off = end - buf + 1;
	return s;
}

int spawner_req_parse(const uint8_t *buf, size_t len, struct spawner_cmd *c)
{
	struct spawner_req h;
	size_t off = sizeof(h);

	memset(c, 0, sizeof(*c));
	if (len < sizeof(h) || len > SPAWNER_MSG_MAX)
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if ((h.flags & ~(SPAWNER_PTY | SPAWNER_REBOOT)) ||
	    h.flags == (SPAWNER_PTY | SPAWNER_REBOOT))
		return -EBADMSG;
	c->pty = h.flags & SPAWNER_PTY;
	c->reboot = h.flags & SPAWNER_REBOOT;
	c->rows = h.rows;
	c->cols = h.cols;
	c->term = spawner_str(buf, len, &off);
	c->cmd = spawner_str(buf, len, &off);
	if (!c->term || !c->cmd || off != len)
		return -EBADMSG;
	if (c->reboot && (c->term[0] || !spawner_reboot_arg_ok(c->cmd)))
		return -EBADMSG;
	return 0;
}

/* ---- the spawner process ---- */

/* A program started and not yet reaped: its pidfd's watch (NULL: a free
 * slot) and the write end of its status pipe. */
struct spawner_kid {
	struct child *child;
	int status_w;
};

/*
 * What every child gets that does not change while the spawner runs,
 * found once when it starts rather than between each fork and exec (a
 * child of an adb shell made 88 system calls there, adbd's 15): the
 * user's entry, and which signals the worker inherited ignored.
 */
struct spawner_env {
	bool have_pw;
	char home[PATH_MAX];
	char user[256];
	sigset_t ignored;
};

/* The spawner's own state, on its own loop: nothing of the worker's. */
struct spawner_server {
	const struct spawner_cfg *cfg;
	struct spawner_env env;
	struct loop *loop;
	struct loop_watch *sock; /* owns the request socket */
	struct spawner_kid kids[SPAWNER_MAX_CHILDREN];
	uint8_t buf[SPAWNER_MSG_MAX + 1];
};

static void spawner_env_init(struct spawner_env *e)
{
	struct passwd *pw = getpwuid(getuid());
	struct sigaction sa;

	memset(e, 0, sizeof(*e));
	e->have_pw = pw && strlen(pw->pw_dir) < sizeof(e->home) &&
		     strlen(pw->pw_name) < sizeof(e->user);
	if (e->have_pw) {
		strcpy(e->home, pw->pw_dir);
		strcpy(e->user, pw->pw_name);
	}
	endpwent();
	sigemptyset(&e->ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&e->ignored, sig);
}

static void spawner_child_env(const struct spawner_env *e, const char *shell,
			      const struct spawner_cmd *c)
{
	if (e->have_pw) {
		setenv("HOME", e->home, 1);
		setenv("USER", e->user, 1);
		setenv("LOGNAME", e->user, 1);
	}
	setenv("SHELL", shell, 1);
	if (!getenv("PATH"))
		setenv("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", 1);
	if (c->pty)
		setenv("TERM", c->term[0] ? c->term : "dumb", 1);
	else
		unsetenv("TERM");
	if (!e->have_pw || chdir(e->home) < 0)
		(void)!chdir("/");
}

/* In the forked child: never returns. */
static void spawner_child_exec(const struct spawner_cfg *cfg,
			       const struct spawner_env *e,
			       const struct spawner_cmd *c)
{
	const char *base = strrchr(cfg->shell, '/');
	const char *argv[6];
	char login[64];
	sigset_t none;
	unsigned n = 0;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Every signal at its default, whatever the worker inherited: a
	 * gadgetd started under nohup passed SIGHUP ignored down to here, and
	 * the hang-up of a session then ended none of its jobs. exec resets
	 * the handled ones; the ignored ones, found when the spawner started
	 * (after it ignored SIGPIPE itself), are reset here. */
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&e->ignored, sig) == 1)
			signal(sig, SIG_DFL);
	close_range(3, ~0U, 0);
	spawner_child_env(e, cfg->shell, c);
	if (c->reboot) {
		/* The shell finds the command on PATH; the target, checked
		 * by the parser, is its one argument. */
		argv[n++] = cfg->shell;
		argv[n++] = "-c";
		argv[n++] = "exec \"$0\" \"$@\"";
		argv[n++] = cfg->reboot;
		if (c->cmd[0])
			argv[n++] = c->cmd;
	} else if (c->cmd[0]) {
		argv[n++] = cfg->shell;
		argv[n++] = "-c";
		argv[n++] = c->cmd;
	} else {
		/* A login shell, like adbd: argv[0] starts with '-'. */
		snprintf(login, sizeof(login), "-%s", base ? base + 1 : cfg->shell);
		argv[n++] = login;
	}
	argv[n] = NULL;
	execv(cfg->shell, (char *const *)argv);
	dprintf(2, "gadgetd: cannot run %s: %s\n", cfg->shell, strerror(errno));
	_exit(127);
}

static void spawner_close_all(int *fds, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * Fork c's program. give[] gets the fds for the worker (n_give of them),
 * *status_w the write end of the status pipe. 0 or -errno.
 */
static int spawner_fork(const struct spawner_cfg *cfg,
			const struct spawner_env *env,
			const struct spawner_cmd *c, pid_t *pid, int *give,
			unsigned *n_give, int *status_w)
{
	struct winsize ws = { .ws_row = c->rows ? c->rows : 24,
			      .ws_col = c->cols ? c->cols : 80 };
	int st[2], io[6] = { -1, -1, -1, -1, -1, -1 }, master = -1, slave = -1;
	int e;

	if (pipe2(st, O_CLOEXEC) < 0)
		return -errno;
	if (c->pty ? openpty(&master, &slave, NULL, NULL, &ws) < 0
		   : pipe2(io, O_CLOEXEC) < 0 || pipe2(io + 2, O_CLOEXEC) < 0 ||
			     pipe2(io + 4, O_CLOEXEC) < 0)
		goto fail;
	*pid = fork();
	if (*pid < 0)
		goto fail;
	if (*pid == 0) {
		/* Its own session, so that the whole job can be hung up. */
		if (c->pty ? login_tty(slave) < 0
			   : setsid() < 0 || dup2(io[0], 0) < 0 ||
				     dup2(io[3], 1) < 0 || dup2(io[5], 2) < 0)
			_exit(126);
		spawner_child_exec(cfg, env, c);
	}
	if (c->pty) {
		close(slave);
		give[0] = master;
		give[1] = st[0];
		*n_give = 2;
	} else {
		close(io[0]);
		close(io[3]);
		close(io[5]);
		give[0] = io[1];
		give[1] = io[2];
		give[2] = io[4];
		give[3] = st[0];
		*n_give = 4;
	}
	*status_w = st[1];
	return 0;
fail:
	e = errno;
	close(st[0]);
	close(st[1]);
	spawner_close_all(io, 6);
	if (master >= 0)
		close(master);
	if (slave >= 0)
		close(slave);
	return -e;
}

static void spawner_reply(int fd, int32_t err, pid_t pid, const int *fds,
			  unsigned n)
{
	struct spawner_rep rep = { .err = err, .pid = pid };
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (n) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	(void)!sendmsg(fd, &mh, MSG_NOSIGNAL);
}

/* The kid's end, from the loop: its wait status goes to the worker as
 * before, then EOF. Nothing else here reaps, so the status is known; were
 * it not, the worker reads EOF alone, as when the spawner is gone. */
static void spawner_kid_exited(int status, bool known, void *data)
{
	struct spawner_kid *kid = data;

	if (known)
		(void)!write(kid->status_w, &status, sizeof(status));
	close(kid->status_w);
	kid->status_w = -1;
	kid->child = NULL;
}

/* A program forked but not watched: end it now, before the worker hears
 * of it. */
static void spawner_unfork(pid_t pid, int *give, unsigned n_give, int status_w)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	spawner_close_all(give, n_give);
	close(status_w);
}

static void spawner_request(struct spawner_server *s, int fd,
			    const uint8_t *buf, size_t len)
{
	struct spawner_kid *kid = NULL;
	struct spawner_cmd c;
	int give[4], status_w = -1, r;
	unsigned i, n_give = 0;
	pid_t pid = 0;

	r = spawner_req_parse(buf, len, &c);
	if (!r && c.reboot && !s->cfg->reboot)
		r = -EPERM;
	for (i = 0; !r && i < SPAWNER_MAX_CHILDREN && !kid; i++)
		if (!s->kids[i].child)
			kid = &s->kids[i];
	if (!r && !kid)
		r = -EAGAIN;
	if (!r)
		r = spawner_fork(s->cfg, &s->env, &c, &pid, give, &n_give,
				 &status_w);
	if (!r) {
		kid->child = child_watch(s->loop, pid, "spawner: shell",
					 spawner_kid_exited, kid);
		if (!kid->child) {
			r = -errno;
			spawner_unfork(pid, give, n_give, status_w);
		}
	}
	if (r < 0) {
		spawner_reply(fd, r, 0, NULL, 0);
		return;
	}
	kid->status_w = status_w;
	spawner_reply(fd, 0, pid, give, n_give);
	/* The worker has its copies now (or is gone, and the hang-up that
	 * follows ends the child). */
	spawner_close_all(give, n_give);
}

static void spawner_serve_event(struct loop_watch *w, int fd, uint32_t events,
				void *data)
{
	struct spawner_server *s = data;
	ssize_t n = recv(fd, s->buf, sizeof(s->buf), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR) &&
	    !(events & (EPOLLHUP | EPOLLERR)))
		return;
	if (n <= 0) {
		loop_quit(s->loop, 0);
		return;
	}
	spawner_request(s, fd, s->buf, n);
}

/* The worker is gone: so are its sessions. Each is hung up as a whole
 * and left (whoever inherits it reaps it), as a terminal's hang-up
 * would; the worker's own end of a session kills it too. */
static void spawner_hangup(struct spawner_server *s)
{
	unsigned i;

	for (i = 0; i < SPAWNER_MAX_CHILDREN; i++) {
		if (!s->kids[i].child)
			continue;
		kill(-child_pid(s->kids[i].child), SIGHUP);
		child_forget(s->kids[i].child);
		s->kids[i].child = NULL;
		close(s->kids[i].status_w);
	}
}

void spawner_serve(const struct spawner_cfg *cfg, int fd)
{
	static struct spawner_server s;

	/* A fresh loop: the worker's (its fds are closed) is not ours.
	 * The signals the worker's loop blocked (SIGTERM, SIGINT) stay
	 * blocked: the spawner ends when its worker hangs up, not on a
	 * signal sent to the whole group, so that it hangs up its sessions
	 * first. Its programs start with none blocked. Each child is
	 * reaped through its pidfd, so SIGCHLD must not be ignored (the
	 * kernel would reap them itself and their status would be lost). */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	spawner_env_init(&s.env);
	s.loop = loop_new();
	if (!s.loop) {
		close(fd);
		return;
	}
	s.sock = loop_add_fd(s.loop, fd, EPOLLIN, spawner_serve_event, &s);
	if (!s.sock) {
		close(fd);
		loop_free(s.loop);
		return;
	}
	loop_run(s.loop);
	spawner_hangup(&s);
	loop_watch_remove(s.sock);
	loop_free(s.loop);
}

int spawner_start(const struct spawner_cfg *cfg, int *fd, pid_t *pid)
{
	int sv[2];

	if (!cfg->shell || cfg->shell[0] != '/')
		return -EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (*pid == 0) {
		/* Nothing of the worker's but stdio and this socket. */
		if (sv[1] > 3)
			close_range(3, sv[1] - 1, 0);
		close_range(sv[1] + 1, ~0U, 0);
		spawner_serve(cfg, sv[1]);
		_exit(0);
	}
	close(sv[1]);
	*fd = sv[0];
	return 0;
}

/* ---- the worker's side ---- */

/* Take exactly want fds from the reply, or close whatever came. */
static int spawner_take_fds(struct msghdr *mh, unsigned want,
			    struct spawner_child *out)
{
	int fds[4] = { -1, -1, -1, -1 };
	struct cmsghdr *cm = CMSG_FIRSTHDR(mh);
	unsigned got = 0;

	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
		got = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (got > 4)
			got = 4;
		memcpy(fds, CMSG_DATA(cm), got * sizeof(int));
	}
	if (!want || got != want || (mh->msg_flags & MSG_CTRUNC)) {
		spawner_close_all(fds, got);
		return -EBADMSG;
	}
	out->in = fds[0];
	out->out = want == 2 ? -1 : fds[1];
	out->err = want == 2 ? -1 : fds[2];
	out->status = fds[want - 1];
	return 0;
}

/*
 * Requests in flight, in the order they were sent: the spawner serves
 * them one at a time, so the replies come back in that order. A call
 * whose caller no longer waits (cancelled, or timed out) stays queued
 * without done, so that its late reply is still matched, and what it
 * carries is closed.
 */
struct spawner_call {
	struct spawner_call *next;
	spawner_done_fn done; /* NULL: nobody waits */
	void *data;
	bool pty;
	uint64_t deadline;
};

struct spawner {
	struct loop *loop;
	struct loop_watch *watch; /* owns the socket */
	struct loop_watch *timer;
	struct spawner_call *head, **tail;
	unsigned n;
};

/* The timer follows the first call still waited for. */
static void spawner_arm(struct spawner *sp)
{
	uint64_t now = loop_now_ms();
	struct spawner_call *call;

	for (call = sp->head; call && !call->done; call = call->next)
		;
	if (!call)
		loop_timer_rearm(sp->timer, 0);
	else
		loop_timer_rearm(sp->timer, call->deadline > now
						    ? call->deadline - now
						    : 1);
}

static struct spawner_call *spawner_pop(struct spawner *sp)
{
	struct spawner_call *call = sp->head;

	sp->head = call->next;
	if (!sp->head)
		sp->tail = &sp->head;
	sp->n--;
	return call;
}

/* Tell call's caller, once: err, or 0 with child. */
static void spawner_finish(struct spawner_call *call, int err,
			   const struct spawner_child *child)
{
	spawner_done_fn done = call->done;

	call->done = NULL;
	if (done)
		done(call->data, err, child);
}

/* The spawner is gone (or speaks nonsense; err says how): every call
 * fails with -EPIPE, and so does every later one. */
static void spawner_lost(struct spawner *sp, int err)
{
	log_warnx("the spawner is gone: %s", strerror(-err));
	loop_watch_remove(sp->watch);
	sp->watch = NULL;
	while (sp->head) {
		struct spawner_call *call = spawner_pop(sp);

		spawner_finish(call, -EPIPE, NULL);
		free(call);
	}
	spawner_arm(sp);
}

static void spawner_timeout(struct loop_watch *w, void *data)
{
	struct spawner *sp = data;
	uint64_t now = loop_now_ms();
	struct spawner_call *call;

	for (call = sp->head; call; call = call->next) {
		if (!call->done || call->deadline > now)
			continue;
		log_warnx("the spawner did not answer in %u ms",
			  SPAWNER_REPLY_MS);
		spawner_finish(call, -ETIMEDOUT, NULL);
	}
	spawner_arm(sp);
}

/* A reply for the head call. */
static void spawner_reply_in(struct spawner *sp)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct spawner_child child = { .in = -1, .out = -1, .err = -1,
				       .status = -1 };
	struct spawner_rep rep;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct spawner_call *call;
	ssize_t n;
	int r;

	n = recvmsg(loop_watch_fd(sp->watch), &mh,
		    MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		spawner_lost(sp, n < 0 ? -errno : -EPIPE);
		return;
	}
	if (!sp->head) {
		/* A reply nobody asked for: the spawner is not sane. */
		spawner_take_fds(&mh, 0, NULL);
		spawner_lost(sp, -EPROTO);
		return;
	}
	call = spawner_pop(sp);
	if (n != sizeof(rep) || rep.err < 0) {
		spawner_take_fds(&mh, 0, NULL);
		r = n != sizeof(rep) ? -EBADMSG : rep.err;
	} else {
		r = spawner_take_fds(&mh, call->pty ? 2 : 4, &child);
		child.pid = rep.pid;
	}
	if (r == 0 && !call->done) {
		/* Started after its caller gave up: end it. */
		kill(-child.pid, SIGKILL);
		spawner_close_all(&child.in, 4);
	}
	spawner_finish(call, r, r == 0 ? &child : NULL);
	free(call);
	spawner_arm(sp);
}

static void spawner_event(struct loop_watch *w, int fd, uint32_t events,
			  void *data)
{
	struct spawner *sp = data;

	if (events & EPOLLIN)
		spawner_reply_in(sp);
	else if (events & (EPOLLHUP | EPOLLERR))
		spawner_lost(sp, -EPIPE);
}

struct spawner *spawner_new(struct loop *loop, int fd)
{
	struct spawner *sp = calloc(1, sizeof(*sp));

	if (!sp) {
		close(fd);
		return NULL;
	}
	sp->loop = loop;
	sp->tail = &sp->head;
	sp->watch = loop_add_fd(loop, fd, EPOLLIN, spawner_event, sp);
	if (!sp->watch)
		close(fd);
	sp->timer = loop_add_timer(loop, 0, spawner_timeout, sp);
	if (!sp->watch || !sp->timer) {
		spawner_free(sp);
		return NULL;
	}
	return sp;
}

void spawner_free(struct spawner *sp)
{
	if (!sp)
		return;
	while (sp->head)
		free(spawner_pop(sp));
	loop_watch_remove(sp->watch);
	loop_watch_remove(sp->timer);
	free(sp);
}

int spawner_spawn(struct spawner *sp, const struct spawner_cmd *c,
		  spawner_done_fn done, void *data, struct spawner_call **out)
{
	uint8_t buf[SPAWNER_MSG_MAX];
	int len = spawner_req_build(c, buf, sizeof(buf));
	struct spawner_call *call;
	struct spawner_cmd check;

	if (len < 0)
		return len;
	/* What the spawner would refuse as malformed (a reboot target that
	 * is not a plain word) is refused now, by its own parser. */
	if (spawner_req_parse(buf, len, &check) < 0)
		return -EBADMSG;
	if (!sp->watch)
		return -EPIPE;
	if (sp->n >= SPAWNER_MAX_CALLS)
		return -EAGAIN;
	call = calloc(1, sizeof(*call));
	if (!call)
		return -ENOMEM;
	/* One datagram into a socket nobody else writes: it fits or fails
	 * at once, it does not wait. */
	if (send(loop_watch_fd(sp->watch), buf, len,
		 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		int err = -errno;

		free(call);
		return err;
	}
	call->done = done;
	call->data = data;
	call->pty = c->pty;
	call->deadline = loop_now_ms() + SPAWNER_REPLY_MS;
	*sp->tail = call;
	sp->tail = &call->next;
	sp->n++;
	if (sp->head == call)
		spawner_arm(sp);
	*out = call;
	return 0;
}

void spawner_cancel(struct spawner_call *call)
{
	if (call)
		call->done = NULL;
}
