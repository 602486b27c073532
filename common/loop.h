/*
 * loop: the event loop that owns every file descriptor of a process.
 *
 * A watch takes ownership of its fd: the fd is closed when the watch is
 * removed, and loop_free() complains about watches still registered.
 * Removing a watch from inside any callback is safe, also for watches whose
 * events are pending in the same round: a removed watch is never dispatched
 * again, and its memory lives until the round ends.
 *
 * loop_dispatch() never runs nested: a callback that must wait for
 * something (a plugin's readiness, a reply) returns and continues from the
 * callback of that event. A nested call is refused with -EDEADLK.
 */
#ifndef GADGETD_LOOP_H
#define GADGETD_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

struct loop;
struct loop_watch;

/* events are EPOLLIN/EPOLLOUT/EPOLLHUP/EPOLLERR bits. */
typedef void (*loop_io_fn)(struct loop_watch *w, int fd, uint32_t events,
			   void *data);
typedef void (*loop_timer_fn)(struct loop_watch *w, void *data);
typedef void (*loop_signal_fn)(struct loop *l, int signo, void *data);
typedef void (*loop_idle_fn)(struct loop_watch *w, void *data);
/* The loop has let go of a watch; data may be freed now. */
typedef void (*loop_destroy_fn)(void *data);

struct loop *loop_new(void);
/* Removes (and closes) every remaining watch, logging each as dangling. */
void loop_free(struct loop *l);

/* Watch fd for events; the loop owns fd from now on. NULL on error. */
struct loop_watch *loop_add_fd(struct loop *l, int fd, uint32_t events,
			       loop_io_fn fn, void *data);
int loop_watch_set_events(struct loop_watch *w, uint32_t events);
int loop_watch_fd(const struct loop_watch *w);
/* Stop watching and close the fd. */
void loop_watch_remove(struct loop_watch *w);
/* Stop watching and hand the fd back to the caller (not closed). */
int loop_watch_release(struct loop_watch *w);
/*
 * Call fn(data) once the loop has let go of w: at the end of the round in
 * which w was removed (after that round's idle callbacks), or from
 * loop_free(). A one-shot idle watch is let go after it ran. Never called
 * from inside loop_watch_remove().
 */
void loop_watch_set_destroy(struct loop_watch *w, loop_destroy_fn fn);

/*
 * Run fn once after the current round's events (from a callback), or in
 * the next round without waiting for events (from outside the loop). An
 * idle watch added by an idle callback runs in the round after. The watch
 * is removed before fn runs: forget the pointer there. Cancel it with
 * loop_watch_remove() before it ran.
 */
struct loop_watch *loop_add_idle(struct loop *l, loop_idle_fn fn, void *data);

/* One-shot timer (a timerfd watch) firing after ms milliseconds. */
struct loop_watch *loop_add_timer(struct loop *l, uint64_t ms,
				  loop_timer_fn fn, void *data);
/* Re-arm a timer watch; ms == 0 disarms it. */
int loop_timer_rearm(struct loop_watch *w, uint64_t ms);

/* Deliver signo through a signalfd; the signal is blocked process-wide. */
int loop_add_signal(struct loop *l, int signo, loop_signal_fn fn, void *data);

/* Run until loop_quit(); returns the code given to it. */
int loop_run(struct loop *l);
/* Dispatch one round: the events (waiting at most timeout_ms, -1: forever;
 * not at all while idle watches are due), then the idle watches due.
 * Returns how many callbacks ran, or -errno; -EDEADLK when called from
 * inside a callback of the same loop. */
int loop_dispatch(struct loop *l, int timeout_ms);
void loop_quit(struct loop *l, int code);

/* Monotonic clock in milliseconds. */
uint64_t loop_now_ms(void);

/* In a child after fork(): unblock the signals the loop had blocked. */
void loop_child_reset_signals(void);

#endif
