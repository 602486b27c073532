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
 * The record behind one restart policy, for workers and helpers alike: a
 * child that ends is started again after a delay that doubles from the
 * policy's first delay up to its cap, until limit ends fall within a
 * window; then it is failed. The policy's numbers are passed in, as
 * gadgetd.conf gives them.
 */
struct child_restart {
	unsigned backoff_ms; /* the next delay; set it to start over */
	unsigned n_exits;
	uint64_t exits_ms[CHILD_RESTART_MAX];
};

/* Count an end at now_ms: true when it makes limit within window_ms.
 * Once CHILD_RESTART_MAX are remembered, the oldest goes. */
bool child_restart_too_often(struct child_restart *r, uint64_t now_ms,
			     unsigned limit, unsigned window_ms);
/* The delay before the next start; the one after it doubles, up to
 * max_ms (or stays, when already beyond). */
unsigned child_restart_delay(struct child_restart *r, unsigned max_ms);

#endif
