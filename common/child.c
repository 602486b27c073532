/* child: pidfd watch, stop escalation, exit text, restart policy. */
#include "child.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
	pid_t pid;
	char what[80];
	struct loop *loop;
	struct loop_watch *pidfd;
	struct loop_watch *kill_timer;
	unsigned term_ms;
	child_exit_fn fn;
	void *data;
};

static void child_free(struct child *c)
{
	loop_watch_remove(c->pidfd);
	loop_watch_remove(c->kill_timer);
	free(c);
}

static void child_ended(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	struct child *c = data;
	int status = 0;
	pid_t r;

	/* The pidfd is readable once the process has ended. */
	do {
		r = waitpid(c->pid, &status, WNOHANG);
	} while (r < 0 && errno == EINTR);
	c->fn(status, r == c->pid, c->data);
	child_free(c);
}

struct child *child_watch(struct loop *l, pid_t pid, const char *what,
			  child_exit_fn fn, void *data)
{
	struct child *c = calloc(1, sizeof(*c));
	int fd;

	if (!c)
		return NULL;
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		int e = errno;

		free(c);
		errno = e;
		return NULL;
	}
	c->pid = pid;
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->loop = l;
	c->fn = fn;
	c->data = data;
	c->pidfd = loop_add_fd(l, fd, EPOLLIN, child_ended, c);
	if (!c->pidfd) {
		close(fd);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

pid_t child_pid(const struct child *c)
{
	return c ? c->pid : 0;
}

static void child_sigkill(struct loop_watch *w, void *data)
{
	struct child *c = data;

	loop_watch_remove(w);
	c->kill_timer = NULL;
	log_warnx("%s (pid %d) did not stop within %u ms of SIGTERM; killing it",
		  c->what, (int)c->pid, c->term_ms);
	kill(c->pid, SIGKILL);
}

void child_stop(struct child *c, unsigned term_ms)
{
	if (!c || c->kill_timer)
		return;
	kill(c->pid, SIGTERM);
	c->term_ms = term_ms;
	c->kill_timer = loop_add_timer(c->loop, term_ms, child_sigkill, c);
	if (!c->kill_timer)
		kill(c->pid, SIGKILL);
}

void child_kill_wait(struct child *c)
{
	if (!c)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	child_free(c);
}

void child_forget(struct child *c)
{
	if (c)
		child_free(c);
}

void child_describe(int status, bool known, char *buf, size_t size)
{
	if (!known)
		snprintf(buf, size, "exited");
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
}

bool child_restart_too_often(struct child_restart *r, uint64_t now_ms,
			     unsigned limit, unsigned window_ms)
{
	unsigned i = 0;

	while (i < r->n_exits && now_ms - r->exits_ms[i] >= window_ms)
		i++;
	memmove(r->exits_ms, r->exits_ms + i, (r->n_exits - i) * sizeof(r->exits_ms[0]));
	r->n_exits -= i;
	if (r->n_exits == CHILD_RESTART_MAX) {
		memmove(r->exits_ms, r->exits_ms + 1,
			(r->n_exits - 1) * sizeof(r->exits_ms[0]));
		r->n_exits--;
	}
	r->exits_ms[r->n_exits++] = now_ms;
	return r->n_exits >= limit;
}

void child_restart_reset(struct child_restart *r, unsigned first_ms)
{
	r->backoff_ms = first_ms;
	r->n_exits = 0;
}

unsigned child_restart_delay(struct child_restart *r, unsigned first_ms,
			     uint64_t up_ms)
{
	unsigned d, max = first_ms > CHILD_BACKOFF_MAX_MS ? first_ms : CHILD_BACKOFF_MAX_MS;

	if (up_ms >= CHILD_STABLE_MS)
		r->backoff_ms = first_ms;
	d = r->backoff_ms;
	r->backoff_ms = d < max / 2 ? d * 2 : max;
	return d;
}
