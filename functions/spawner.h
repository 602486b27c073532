/*
 * spawner: starts programs for a worker that may not (its seccomp filter
 * has no fork or execve, and a filter would be inherited by every
 * program it started).
 *
 * The worker forks the spawner once, after it has taken the function's
 * user and capabilities but before it opens FunctionFS or installs its
 * filter: the spawner holds no USB fd and runs unfiltered, as the same
 * user. It serves one SOCK_SEQPACKET socket:
 *
 *   request: struct spawner_req, then the strings shell, term, cmd and
 *            n_args arguments, each NUL-terminated, filling the datagram
 *            exactly;
 *   reply:   struct spawner_rep; with err 0 it carries the child's fds
 *            (SCM_RIGHTS): pty: master, status; pipes: stdin, stdout,
 *            stderr, status.
 *
 * The child runs `shell -c cmd [args...]` (`-shell` as a login shell when
 * cmd is empty) in its own session, with HOME, USER, LOGNAME and SHELL of
 * the user and TERM for a pty. When it exits, the spawner writes its wait
 * status (an int) to the status pipe and closes it. When the worker's end
 * closes, the spawner hangs up every child's session and exits.
 *
 * The spawner treats every request as hostile: a malformed one gets
 * -EBADMSG and changes nothing.
 */
#ifndef GADGETD_SPAWNER_H
#define GADGETD_SPAWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWNER_MSG_MAX 8192
#define SPAWNER_MAX_ARGS 4
#define SPAWNER_MAX_CHILDREN 64

#define SPAWNER_PTY 1u

struct spawner_req {
	uint32_t flags;  /* SPAWNER_PTY */
	uint16_t rows, cols;
	uint32_t n_args;
};

struct spawner_rep {
	int32_t err;     /* 0 or -errno */
	int32_t pid;
};

struct spawner_cmd {
	const char *shell;  /* absolute path */
	const char *cmd;    /* "": a login shell */
	bool pty;
	const char *term;   /* pty only; NULL: "dumb" */
	unsigned short rows, cols;
	const char *args[SPAWNER_MAX_ARGS + 1]; /* $0, $1... after -c cmd */
};

/* The spawned program: in is the pty master (out and err are -1 then). */
struct spawner_child {
	pid_t pid;
	int in, out, err;
	int status;
};

/* Fork the spawner; *fd is the worker's end (close-on-exec). */
int spawner_start(int *fd, pid_t *pid);

/* Ask for one program; blocks for the reply (at most a few seconds). */
int spawner_spawn(int fd, const struct spawner_cmd *c, struct spawner_child *out);

/* The spawner's side: serve fd until it closes. Exposed for tests. */
void spawner_serve(int fd);

/* Build and parse a request (tests and fuzzing use these directly). */
int spawner_req_build(const struct spawner_cmd *c, uint8_t *buf, size_t size);
int spawner_req_parse(const uint8_t *buf, size_t len, struct spawner_cmd *c);

#endif
