/*
 * spawner: starts programs for a worker that may not (its seccomp filter
 * has no fork or execve, and a filter would be inherited by every
 * program it started).
 *
 * The worker forks the spawner once, after it has taken the function's
 * user and capabilities but before it opens FunctionFS or installs its
 * filter: the spawner holds no USB fd and runs unfiltered, as the same
 * user. What it may run is fixed then, from the profile (struct
 * spawner_cfg): the shell, and the reboot command if any. The worker can
 * only name the command text a shell runs, which an authenticated host
 * names too, never a program. It serves one SOCK_SEQPACKET socket:
 *
 *   request: struct spawner_req, then two NUL-terminated strings, term and
 *            text, filling the datagram exactly. text is the command
 *            line for the shell ("": a login shell), or with
 *            SPAWNER_REBOOT the reboot target (spawner_reboot_arg_ok());
 *   reply:   struct spawner_rep; with err 0 it carries the child's fds
 *            (SCM_RIGHTS): pty: master, status; pipes: stdin, stdout,
 *            stderr, status.
 *
 * A shell request runs `SHELL -c text` (`-SHELL` as a login shell when
 * text is empty); a reboot request runs `SHELL -c 'exec "$0" "$@"'
 * REBOOT_COMMAND [target]` (no target when it is empty), with pipes. The
 * child runs in its own session, with HOME, USER, LOGNAME and SHELL of
 * the user and TERM for a pty. When it exits, the spawner writes its wait
 * status (an int) to the status pipe and closes it. When the worker's end
 * closes, the spawner hangs up every child's session and exits.
 *
 * The spawner treats every request as hostile: a malformed one gets
 * -EBADMSG, a reboot without a reboot command -EPERM, and neither
 * changes anything.
 */
#ifndef GADGETD_SPAWNER_H
#define GADGETD_SPAWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWNER_MSG_MAX 8192
#define SPAWNER_MAX_CHILDREN 64
/* Longest reboot target ("bootloader", "recovery", "sideload"...). */
#define SPAWNER_REBOOT_ARG_MAX 32

#define SPAWNER_PTY 1u
#define SPAWNER_REBOOT 2u /* text is the reboot target; never with PTY */

struct spawner_req {
	uint32_t flags;  /* SPAWNER_PTY, SPAWNER_REBOOT */
	uint16_t rows, cols;
};

struct spawner_rep {
	int32_t err;     /* 0 or -errno */
	int32_t pid;
};

/* What the spawner may run, fixed when it is forked. */
struct spawner_cfg {
	const char *shell;  /* absolute path */
	const char *reboot; /* the reboot command; NULL: reboot refused */
};

struct spawner_cmd {
	bool reboot;        /* cmd is the reboot target */
	const char *cmd;    /* shell: the command text, "": a login shell */
	bool pty;
	const char *term;   /* pty only; NULL: "dumb" */
	unsigned short rows, cols;
};

/* The spawned program: in is the pty master (out and err are -1 then). */
struct spawner_child {
	pid_t pid;
	int in, out, err;
	int status;
};

/*
 * Fork the spawner, which keeps a copy of cfg; *fd is the worker's end
 * (close-on-exec). -EINVAL when cfg->shell is not an absolute path.
 */
int spawner_start(const struct spawner_cfg *cfg, int *fd, pid_t *pid);

/*
 * The worker's end of the spawner, owned by the worker's loop: requests
 * go out at once and their replies come back through the loop, so that a
 * slow or hung spawner never holds the worker (its heartbeats included).
 */
struct loop;
struct spawner;
struct spawner_call;

/* Calls in flight at most (those given up on included, until their late
 * reply comes). */
#define SPAWNER_MAX_CALLS 16

/*
 * A call's outcome, once, from the loop: 0 with child (whose fds are the
 * callee's now), or -errno with child NULL: the spawner's own error
 * (-EPERM, -EAGAIN, -EBADMSG...), -ETIMEDOUT when it did not answer in 5
 * s, -EPIPE when it is gone. The call is forgotten as done runs.
 */
typedef void (*spawner_done_fn)(void *data, int err,
				const struct spawner_child *child);

/* Watch fd (spawner_start()'s, taken: closed on failure and by
 * spawner_free()) on loop. NULL when out of memory. */
struct spawner *spawner_new(struct loop *loop, int fd);
/* Closes the socket (the spawner hangs up what it started); no done runs
 * after. Not from a done callback. */
void spawner_free(struct spawner *sp);

/*
 * Ask for one program; done(data, ...) runs later, never from here. 0
 * with *call set, or -errno now (nothing will run): a request that does
 * not build (-EBADMSG, -ENAMETOOLONG...), -EAGAIN with SPAWNER_MAX_CALLS
 * in flight, -EPIPE once the spawner is gone.
 */
int spawner_spawn(struct spawner *sp, const struct spawner_cmd *c,
		  spawner_done_fn done, void *data, struct spawner_call **call);
/* The caller no longer waits: done will not run, and a program started
 * for it anyway is killed and its fds closed. NULL is ignored. */
void spawner_cancel(struct spawner_call *call);

/* The spawner's side: serve fd (taken: closed when it returns) on a loop
 * of its own until it closes. Exposed for tests. */
void spawner_serve(const struct spawner_cfg *cfg, int fd);

/*
 * A reboot target the spawner passes on: empty, or at most
 * SPAWNER_REBOOT_ARG_MAX of a-z, 0-9, '-' and '_', not starting with '-'
 * (so it can be neither an option nor a path).
 */
bool spawner_reboot_arg_ok(const char *arg);

/* Build and parse a request (tests and fuzzing use these directly). */
int spawner_req_build(const struct spawner_cmd *c, uint8_t *buf, size_t size);
int spawner_req_parse(const uint8_t *buf, size_t len, struct spawner_cmd *c);

#endif
