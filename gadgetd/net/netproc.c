/*
 * netproc: spawn, watch and stop (common/child.c), restart with backoff.
 */
#include "netproc.h"
#include "child.h"
#include "config.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct netproc {
	struct loop *loop;
	const struct config *cfg;
	char what[64];
	char comm[16];
	char *pidfile;
	char *argv[NETPROC_ARGS_MAX + 1];
	struct child *child;        /* the running child */
	struct loop_watch *timer;   /* a restart */
	bool stopping, failed, session;
	void (*on_failed)(void *data);
	void *on_failed_data;
	struct child_restart restarts;
	uint64_t started_ms;        /* the running child's start */
	/* With a ready text: the child's output, the wait for the text. */
	char *ready_text;
	unsigned ready_ms, ready_first_ms;
	bool ready, renew;
	struct loop_watch *out, *ready_timer;
	char line[256];
	size_t line_len;
};

static void netproc_free(struct netproc *p)
{
	unsigned i;

	loop_watch_remove(p->timer);
	loop_watch_remove(p->out);
	loop_watch_remove(p->ready_timer);
	free(p->ready_text);
	for (i = 0; p->argv[i]; i++)
		free(p->argv[i]);
	if (p->pidfile)
		unlink(p->pidfile);
	free(p->pidfile);
	free(p);
}

static void netproc_write_pidfile(const struct netproc *p)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", p->pidfile);
	f = fopen(tmp, "we");
	if (!f) {
		log_warn("%s: cannot write %s", p->what, tmp);
		return;
	}
	fprintf(f, "%d %s\n", (int)child_pid(p->child), p->comm);
	if (fclose(f) != 0 || rename(tmp, p->pidfile) < 0)
		log_warn("%s: cannot write %s", p->what, p->pidfile);
}

/* In the child: nothing of gadgetd's but stdout and stderr, or instead
 * of both the pipe out, to gadgetd. */
static void netproc_exec(struct netproc *p, int out)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	loop_child_reset_signals();
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (fd >= 0)
		dup2(fd, 0);
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
	}
	syscall(SYS_close_range, 3, ~0u, 0);
	execvp(p->argv[0], p->argv);
	fprintf(stderr, "gadgetd: %s: cannot run %s: %s\n", p->what, p->argv[0],
		strerror(errno));
	_exit(127);
}

static void netproc_exited(int status, bool known, void *data);
static void netproc_unready(struct loop_watch *w, void *data);

/* One line of the helper's output: logged, and looked at for its text. */
static void netproc_line(struct netproc *p)
{
	size_t i;

	for (i = 0; i < p->line_len; i++)
		if ((unsigned char)p->line[i] < 0x20 || p->line[i] == 0x7f)
			p->line[i] = '?';
	p->line[p->line_len] = '\0';
	p->line_len = 0;
	log_info("%s: %s", p->what, p->line);
	/* A child that is being started again (renew) is on its way out:
	 * what it says now is not the next one's, which must say it again
	 * within its own wait. */
	if (p->ready || p->renew || !strstr(p->line, p->ready_text))
		return;
	p->ready = true;
	p->ready_ms = p->ready_first_ms;
	loop_watch_remove(p->ready_timer);
	p->ready_timer = NULL;
}

/* What the helper wrote, line by line: 1 after a read, 0 at its end
 * (the watch is gone), -1 when there is nothing more for now. */
static int netproc_read(struct netproc *p)
{
	char buf[512];
	ssize_t n, i;

	n = read(loop_watch_fd(p->out), buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	if (n <= 0) {
		if (p->line_len)
			netproc_line(p);
		loop_watch_remove(p->out);
		p->out = NULL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || p->line_len == sizeof(p->line) - 1) {
			netproc_line(p);
			if (buf[i] == '\n')
				continue;
		}
		p->line[p->line_len++] = buf[i];
	}
	return 1;
}

static void netproc_output(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	netproc_read(data);
}

/* The pipe for the helper's output and the wait for its text; -1 and
 * nothing to do without a ready text. */
static int netproc_watch_output(struct netproc *p)
{
	int fds[2];

	if (!p->ready_text)
		return -1;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	loop_watch_remove(p->out);
	p->line_len = 0;
	p->out = loop_add_fd(p->loop, fds[0], EPOLLIN, netproc_output, p);
	if (!p->out) {
		close(fds[0]);
		close(fds[1]);
		return -ENOMEM;
	}
	p->ready = false;
	loop_watch_remove(p->ready_timer);
	p->ready_timer = loop_add_timer(p->loop, p->ready_ms, netproc_unready, p);
	return fds[1];
}

static int netproc_spawn(struct netproc *p)
{
	int out = netproc_watch_output(p);
	pid_t pid;

	if (out < -1)
		return out;
	pid = fork();
	if (pid < 0) {
		if (out >= 0)
			close(out);
		return -errno;
	}
	if (pid == 0)
		netproc_exec(p, out);
	if (out >= 0)
		close(out);
	p->child = child_watch(p->loop, pid, p->what, netproc_exited, p);
	p->started_ms = loop_now_ms();
	if (!p->child) {
		int r = -errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	if (p->pidfile)
		netproc_write_pidfile(p);
	log_debug("%s: started %s as %d", p->what, p->argv[0], (int)pid);
	return 0;
}

static void netproc_restart(struct loop_watch *w, void *data)
{
	struct netproc *p = data;
	int r;

	loop_watch_remove(w);
	p->timer = NULL;
	r = netproc_spawn(p);
	if (r < 0)
		log_warnx("%s: cannot restart %s: %s", p->what, p->argv[0], strerror(-r));
}

/* No ready text within ready_ms: the helper goes, and comes back as soon
 * as it has gone (netproc_exited). */
static void netproc_unready(struct loop_watch *w, void *data)
{
	struct netproc *p = data;

	loop_watch_remove(w);
	p->ready_timer = NULL;
	if (!p->child || p->stopping || p->renew)
		return;
	log_warnx("%s: %s did not say \"%s\" within %u ms; starting it again",
		  p->what, p->argv[0], p->ready_text, p->ready_ms);
	p->ready_ms = p->ready_ms < NETPROC_READY_MAX_MS / 2 ? p->ready_ms * 2
							      : NETPROC_READY_MAX_MS;
	p->renew = true;
	child_stop(p->child, CHILD_TERM_MS);
}

/* The child ended (its struct child goes after this returns). */
static void netproc_exited(int status, bool known, void *data)
{
	struct netproc *p = data;
	char how[64];
	unsigned delay;
	int r;

	p->child = NULL;
	/* What it wrote last (the pipe's end may come after its exit). */
	while (p->out && netproc_read(p) > 0)
		;
	if (p->stopping) {
		netproc_free(p);
		return;
	}
	if (p->pidfile)
		unlink(p->pidfile);
	if (p->renew) {
		p->renew = false;
		r = netproc_spawn(p);
		if (r < 0)
			log_warnx("%s: cannot start %s again: %s", p->what, p->argv[0],
				  strerror(-r));
		return;
	}
	child_describe(status, known, how, sizeof(how));
	/* A session's end (a logout) is no crash: counted, five logouts
	 * within the window would give the port's login up. */
	if (p->session && known && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		delay = p->cfg->restart_delay_ms ? p->cfg->restart_delay_ms : 1;
		log_info("%s: %s %s; starting it again", p->what, p->argv[0], how);
		p->timer = loop_add_timer(p->loop, delay, netproc_restart, p);
		return;
	}
	if (child_restart_too_often(&p->restarts, loop_now_ms(), p->cfg->restart_limit,
				    p->cfg->restart_window_ms)) {
		p->failed = true;
		log_warnx("%s: %s %s, %u times within %u s: not restarted until the next switch",
			  p->what, p->argv[0], how, p->restarts.n_exits,
			  (p->cfg->restart_window_ms + 999) / 1000);
		if (p->on_failed)
			p->on_failed(p->on_failed_data);
		return;
	}
	delay = child_restart_delay(&p->restarts, p->cfg->restart_delay_ms,
				    loop_now_ms() - p->started_ms);
	log_warnx("%s: %s %s; restarting it in %u ms", p->what, p->argv[0], how, delay);
	p->timer = loop_add_timer(p->loop, delay, netproc_restart, p);
}

struct netproc *netproc_start(struct loop *l, const struct config *cfg,
			      const char *what, char *const *argv,
			      const char *pidfile, const struct netproc_ready *ready)
{
	struct netproc *p = calloc(1, sizeof(*p));
	const char *base;
	unsigned i;
	int r;

	if (!p)
		return NULL;
	p->loop = l;
	p->cfg = cfg;
	child_restart_reset(&p->restarts, cfg->restart_delay_ms);
	snprintf(p->what, sizeof(p->what), "%s", what);
	base = strrchr(argv[0], '/');
	snprintf(p->comm, sizeof(p->comm), "%s", base ? base + 1 : argv[0]);
	for (i = 0; i < NETPROC_ARGS_MAX && argv[i]; i++)
		if (!(p->argv[i] = strdup(argv[i])))
			break;
	p->pidfile = pidfile ? strdup(pidfile) : NULL;
	if (ready && ready->text) {
		p->ready_text = strdup(ready->text);
		p->ready_ms = p->ready_first_ms = ready->ms ? ready->ms : 1;
	}
	if (argv[i] || (pidfile && !p->pidfile) || (ready && ready->text && !p->ready_text)) {
		log_warnx("%s: cannot start %s: %s", what, argv[0], strerror(ENOMEM));
		netproc_free(p);
		return NULL;
	}
	r = netproc_spawn(p);
	if (r < 0) {
		log_warnx("%s: cannot start %s: %s", what, argv[0], strerror(-r));
		netproc_free(p);
		return NULL;
	}
	return p;
}

void netproc_set_session(struct netproc *p)
{
	p->session = true;
}

void netproc_on_failed(struct netproc *p, void (*failed)(void *data), void *data)
{
	p->on_failed = failed;
	p->on_failed_data = data;
}

void netproc_stop(struct netproc *p)
{
	if (!p)
		return;
	loop_watch_remove(p->timer);
	p->timer = NULL;
	if (!p->child) {
		netproc_free(p);
		return;
	}
	p->stopping = true;
	child_stop(p->child, CHILD_TERM_MS);
}

void netproc_kill(struct netproc *p)
{
	if (!p)
		return;
	child_kill_wait(p->child);
	p->child = NULL;
	netproc_free(p);
}

pid_t netproc_pid(const struct netproc *p)
{
	return p ? child_pid(p->child) : 0;
}

bool netproc_failed(const struct netproc *p)
{
	return p && p->failed;
}

bool netproc_ready(const struct netproc *p)
{
	return p && p->ready;
}

void netproc_kill_stale(const char *pidfile)
{
	char comm[32], want[32], path[64];
	FILE *f = fopen(pidfile, "re");
	int pid = 0;

	if (!f)
		return;
	if (fscanf(f, "%d %31s", &pid, want) != 2)
		pid = 0;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = pid > 1 ? fopen(path, "re") : NULL;
	if (f && fgets(comm, sizeof(comm), f)) {
		comm[strcspn(comm, "\n")] = '\0';
		/* comm is cut at 15 characters. */
		if (!strncmp(comm, want, 15)) {
			log_info("killing %s (%d), left by an earlier gadgetd", comm, pid);
			kill(pid, SIGKILL);
		}
	}
	if (f)
		fclose(f);
	unlink(pidfile);
}
