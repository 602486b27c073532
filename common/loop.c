#include "loop.h"
#include "log.h"
#include "monotime.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum loop_watch_kind {
	LOOP_WATCH_FD,
	LOOP_WATCH_TIMER,
	LOOP_WATCH_SIGNAL,
	LOOP_WATCH_IDLE,    /* no fd; runs once after a round's events */
};

struct loop_watch {
	struct loop *loop;
	enum loop_watch_kind kind;
	int fd;
	bool dead;
	bool due;           /* an idle watch that runs in this round */
	loop_io_fn io_fn;
	loop_timer_fn timer_fn;
	loop_idle_fn idle_fn;
	loop_destroy_fn destroy;
	void *data;
	struct loop_watch *next;
};

struct loop_signal {
	int signo;
	loop_signal_fn fn;
	void *data;
};

struct loop {
	int epfd;
	bool quit;
	int code;
	struct loop_watch *watches;
	unsigned dead_count;
	unsigned n_idle;    /* idle watches not run yet */
	/* Set while a round runs callbacks: dead watches are freed only
	 * after it, and a nested loop_dispatch() is refused. */
	bool dispatching;
	struct loop_watch *sigwatch;
	sigset_t sigmask;
	struct loop_signal signals[16];
	unsigned n_signals;
};

static sigset_t loop_blocked;

uint64_t loop_now_ms(void)
{
	return monotime_ms();
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	sigemptyset(&l->sigmask);
	return l;
}

/* A destroy callback may remove other watches: walk again until none is
 * left dead. */
static void loop_reap(struct loop *l)
{
	struct loop_watch **pp, *w;

	while (l->dead_count) {
		l->dead_count = 0;
		pp = &l->watches;
		while ((w = *pp)) {
			if (!w->dead) {
				pp = &w->next;
				continue;
			}
			*pp = w->next;
			if (w->destroy)
				w->destroy(w->data);
			free(w);
		}
	}
}

void loop_free(struct loop *l)
{
	struct loop_watch *w;

	if (!l)
		return;
	for (w = l->watches; w; w = w->next) {
		if (w->dead || w == l->sigwatch)
			continue;
		if (w->kind == LOOP_WATCH_IDLE)
			log_debug("loop: dropping an idle callback that never ran");
		else
			log_debug("loop: closing dangling fd %d", w->fd);
		loop_watch_remove(w);
	}
	if (l->sigwatch)
		loop_watch_remove(l->sigwatch);
	loop_reap(l);
	close(l->epfd);
	free(l);
}

static struct loop_watch *loop_watch_new(struct loop *l, int fd,
					 enum loop_watch_kind kind,
					 uint32_t events, void *data)
{
	struct epoll_event ev = { .events = events };
	struct loop_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->loop = l;
	w->fd = fd;
	w->kind = kind;
	w->data = data;
	ev.data.ptr = w;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = errno;
		free(w);
		errno = err;
		return NULL;
	}
	w->next = l->watches;
	l->watches = w;
	return w;
}

struct loop_watch *loop_add_fd(struct loop *l, int fd, uint32_t events,
			       loop_io_fn fn, void *data)
{
	struct loop_watch *w = loop_watch_new(l, fd, LOOP_WATCH_FD, events, data);

	if (w)
		w->io_fn = fn;
	return w;
}

int loop_watch_set_events(struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (epoll_ctl(w->loop->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
		return -errno;
	return 0;
}

int loop_watch_fd(const struct loop_watch *w)
{
	return w->fd;
}

int loop_watch_release(struct loop_watch *w)
{
	int fd = w->fd;

	if (w->dead)
		return -1;
	if (w->kind == LOOP_WATCH_IDLE)
		w->loop->n_idle--;
	else
		epoll_ctl(w->loop->epfd, EPOLL_CTL_DEL, fd, NULL);
	w->dead = true;
	w->fd = -1;
	w->loop->dead_count++;
	return fd;
}

void loop_watch_set_destroy(struct loop_watch *w, loop_destroy_fn fn)
{
	w->destroy = fn;
}

struct loop_watch *loop_add_idle(struct loop *l, loop_idle_fn fn, void *data)
{
	struct loop_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->loop = l;
	w->fd = -1;
	w->kind = LOOP_WATCH_IDLE;
	w->idle_fn = fn;
	w->data = data;
	w->next = l->watches;
	l->watches = w;
	l->n_idle++;
	return w;
}

void loop_watch_remove(struct loop_watch *w)
{
	int fd;

	if (!w || w->dead)
		return;
	fd = loop_watch_release(w);
	if (fd >= 0)
		close(fd);
}

int loop_timer_rearm(struct loop_watch *w, uint64_t ms)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000;
	if (timerfd_settime(w->fd, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

struct loop_watch *loop_add_timer(struct loop *l, uint64_t ms,
				  loop_timer_fn fn, void *data)
{
	struct loop_watch *w;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return NULL;
	w = loop_watch_new(l, fd, LOOP_WATCH_TIMER, EPOLLIN, data);
	if (!w) {
		close(fd);
		return NULL;
	}
	w->timer_fn = fn;
	if (ms && loop_timer_rearm(w, ms) < 0) {
		loop_watch_remove(w);
		return NULL;
	}
	return w;
}

int loop_add_signal(struct loop *l, int signo, loop_signal_fn fn, void *data)
{
	int fd;

	if (l->n_signals == sizeof(l->signals) / sizeof(l->signals[0]))
		return -ENOSPC;
	sigaddset(&l->sigmask, signo);
	sigaddset(&loop_blocked, signo);
	if (sigprocmask(SIG_BLOCK, &l->sigmask, NULL) < 0)
		return -errno;
	fd = signalfd(l->sigwatch ? l->sigwatch->fd : -1, &l->sigmask,
		      SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (!l->sigwatch) {
		l->sigwatch = loop_watch_new(l, fd, LOOP_WATCH_SIGNAL, EPOLLIN, NULL);
		if (!l->sigwatch) {
			close(fd);
			return -errno;
		}
	}
	l->signals[l->n_signals++] = (struct loop_signal){ signo, fn, data };
	return 0;
}

void loop_child_reset_signals(void)
{
	sigprocmask(SIG_UNBLOCK, &loop_blocked, NULL);
}

static void loop_signal_dispatch(struct loop *l)
{
	struct signalfd_siginfo si;
	unsigned i;

	while (read(l->sigwatch->fd, &si, sizeof(si)) == sizeof(si)) {
		for (i = 0; i < l->n_signals; i++)
			if ((int)si.ssi_signo == l->signals[i].signo)
				l->signals[i].fn(l, si.ssi_signo, l->signals[i].data);
	}
}

static void loop_watch_dispatch(struct loop_watch *w, uint32_t events)
{
	uint64_t ticks;

	switch (w->kind) {
	case LOOP_WATCH_FD:
		w->io_fn(w, w->fd, events, w->data);
		break;
	case LOOP_WATCH_TIMER:
		if (read(w->fd, &ticks, sizeof(ticks)) == sizeof(ticks))
			w->timer_fn(w, w->data);
		break;
	case LOOP_WATCH_SIGNAL:
		loop_signal_dispatch(w->loop);
		break;
	case LOOP_WATCH_IDLE:
		break;
	}
}

/* The idle watches that exist now run; those they add wait a round, so
 * an idle callback that re-adds itself cannot starve the fds. */
static int loop_run_idle(struct loop *l)
{
	struct loop_watch *w;
	int ran = 0;

	if (!l->n_idle)
		return 0;
	for (w = l->watches; w; w = w->next)
		w->due = w->kind == LOOP_WATCH_IDLE && !w->dead;
	for (w = l->watches; w; w = w->next) {
		if (!w->due || w->dead)
			continue;
		w->due = false;
		loop_watch_release(w);
		w->idle_fn(w, w->data);
		ran++;
	}
	return ran;
}

int loop_dispatch(struct loop *l, int timeout_ms)
{
	struct epoll_event evs[32];
	int n, i, ran = 0;

	if (l->dispatching) {
		log_warnx("loop: loop_dispatch() called from inside a callback; refused");
		return -EDEADLK;
	}
	n = epoll_wait(l->epfd, evs, 32, l->n_idle ? 0 : timeout_ms);
	if (n < 0) {
		if (errno != EINTR)
			return -errno;
		n = 0;
	}
	l->dispatching = true;
	for (i = 0; i < n; i++) {
		struct loop_watch *w = evs[i].data.ptr;
		if (w->dead)
			continue;
		loop_watch_dispatch(w, evs[i].events);
		ran++;
	}
	ran += loop_run_idle(l);
	l->dispatching = false;
	loop_reap(l);
	return ran;
}

int loop_run(struct loop *l)
{
	int r;

	l->quit = false;
	while (!l->quit) {
		r = loop_dispatch(l, -1);
		if (r < 0) {
			log_warnx("loop: epoll_wait: %s", strerror(-r));
			return r;
		}
	}
	return l->code;
}

void loop_quit(struct loop *l, int code)
{
	l->quit = true;
	l->code = code;
}
