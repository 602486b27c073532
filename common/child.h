/*
 * child: a process gadgetd started, watched through a pidfd that the
 * event loop owns, stopped with one escalation (SIGTERM, then SIGKILL),
 * described in one way, and restarted under one policy.
 *
 * A watched child's end reaches its exit function once, from the loop,
 * with the status waitpid() gave; "known" is false when something else
 * reaped it first (a waitpid(-1) elsewhere in the process), and the
 * status then says nothing. The struct child is gone when the function
 * returns.
 *
 * Used by the supervisor (gadgetd's plugin workers), netproc (its
 * network helpers) and a worker's spawner (adb's shells), so that no
 * process of gadgetd's has a SIGCHLD handler or a waitpid(-1); the pidfd
 * works under qemu-user too, as the ARM checks run the unit tests.
 */
#ifndef GADGETD_CHILD_H
#define GADGETD_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct child;

typedef void (*child_exit_fn)(int status, bool known, void *data);

/* Watch pid (a child of this process), which messages call what ("adb:
 * worker", "ecm: dnsmasq"): NULL with errno set when its pidfd cannot be
 * had; the caller then still owns the process. */
struct child *child_watch(struct loop *l, pid_t pid, const char *what,
			  child_exit_fn fn, void *data);
pid_t child_pid(const struct child *c);
/* How long a child has after SIGTERM before SIGKILL (child_stop()). */
#define CHILD_TERM_MS 2000
/* SIGTERM now, and SIGKILL after term_ms unless it has ended; the exit
 * function is still called when it does. Again: nothing more. */
void child_stop(struct child *c, unsigned term_ms);
/* SIGKILL it, wait for it here (the process is stopping) and free c; the
 * exit function is not called. NULL is fine. */
void child_kill_wait(struct child *c);
/* Stop watching: the caller has reaped the process, or leaves it. The
 * exit function is not called. NULL is fine. */
void child_forget(struct child *c);
/* "exited with status 3", "killed by signal 9", or "exited" (!known). */
void child_describe(int status, bool known, char *buf, size_t size);

/* The most ends a restart record remembers (restart_limit's maximum). */
#define CHILD_RESTART_MAX 64

/*
 * The one restart policy, for workers and helpers alike: a child that
 * ends is started again after a delay that starts at the first delay
 * (gadgetd.conf's restart_delay; 0 means at once) and doubles on each
 * end, up to CHILD_BACKOFF_MAX_MS, and starts over once the child has
 * run for CHILD_STABLE_MS; when limit ends fall within a window
 * (restart_limit, restart_window) it is failed instead.
 */
#define CHILD_BACKOFF_MAX_MS 5000
#define CHILD_STABLE_MS 30000
struct child_restart {
	unsigned backoff_ms; /* the next delay */
	unsigned n_exits;
	uint64_t exits_ms[CHILD_RESTART_MAX];
};

/* Start over: the next delay is first_ms, and no end is remembered. */
void child_restart_reset(struct child_restart *r, unsigned first_ms);
/* Count an end at now_ms: true when it makes limit within window_ms.
 * Once CHILD_RESTART_MAX are remembered, the oldest goes. */
bool child_restart_too_often(struct child_restart *r, uint64_t now_ms,
			     unsigned limit, unsigned window_ms);
/* The delay before the next start of a child that ran up_ms: first_ms
 * after a run of CHILD_STABLE_MS, else the one before doubled, up to
 * CHILD_BACKOFF_MAX_MS (or the same, when the first is already beyond). */
unsigned child_restart_delay(struct child_restart *r, unsigned first_ms,
			     uint64_t up_ms);

#endif
