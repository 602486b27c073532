/* adb_shell: shell (raw, v2, pty) and exec services. */
#include "adb_shell.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "plugin.h"

#include "adb_shellmsg.h"

/* One read from the child's output, at most one WRTE's payload; a pty
 * gives at most a few KiB. */
#define SHELL_READ_MAX (1024 * 1024)

/*
 * What the child's stdout pipe may hold. Every stream gets one WRTE a
 * round trip, and a pipe holds 64 KiB unless told: a shell's WRTE
 * carried at most that where a sync stream's carries the max payload,
 * and in a mix of 16 adb 29 streams (b-adbstreams, 2026-12-06) each
 * `adb shell cat` moved 0.09 MB/s against 1.3 for each push or pull.
 * The system's pipe-max-size (1 MiB by default) may refuse it, and
 * pages are only taken as the child fills them.
 */
#define SHELL_PIPE_SIZE (1024 * 1024)

struct adb_shell {
	struct adb_stream *s;
	const char *shell; /* for messages (the caller's, which lives on) */
	struct spawner_call *call; /* the child is being started */
	bool v2, pty;
	bool stdin_closed; /* by the host (v2 close-stdin) */
	pid_t pid;
	struct loop_watch *in_w;  /* child's stdin (the pty master if pty) */
	struct loop_watch *out_w; /* stdout; NULL for pty (use in_w) */
	struct loop_watch *err_w;
	struct loop_watch *pid_w;
	bool out_eof, err_eof, exited, exit_sent, out_armed;
	int status;
	/* Unparsed rest of a host WRTE that waits for stdin to drain. */
	uint8_t *pend;
	size_t pend_len, pend_off;
	struct adb_shellmsg_reader in; /* the host's v2 packets */
	char win[64];
	size_t win_have;
	struct winsize ws; /* the host's last window size, if ws_set */
	bool ws_set;
};

static const struct adb_service_ops shell_ops;

static int shell_parse_arg(const char *arg, size_t len,
			   struct adb_shell_args *a)
{
	if (len == 2 && !strncmp(arg, "v2", 2))
		a->v2 = true;
	else if (len == 3 && !strncmp(arg, "raw", 3))
		a->type = ADB_SHELL_RAW;
	else if (len == 3 && !strncmp(arg, "pty", 3))
		a->type = ADB_SHELL_PTY;
	else if (len > 5 && !strncmp(arg, "TERM=", 5)) {
		if (len - 5 >= sizeof(a->term))
			return -EINVAL;
		memcpy(a->term, arg + 5, len - 5);
		a->term[len - 5] = '\0';
	}
	/* Unknown arguments are ignored, as adbd does. */
	return 0;
}

int adb_shell_parse(const char *name, struct adb_shell_args *a)
{
	const char *p, *colon;

	memset(a, 0, sizeof(*a));
	if (!strncmp(name, "exec:", 5)) {
		a->type = ADB_SHELL_RAW;
		a->cmd = name + 5;
		return 0;
	}
	if (strncmp(name, "shell", 5) || (name[5] != ':' && name[5] != ','))
		return -ENOENT;
	colon = strchr(name, ':');
	if (!colon)
		return -EINVAL;
	for (p = name + 5; p < colon;) {
		const char *end;

		if (*p != ',')
			return -EINVAL;
		p++;
		end = memchr(p, ',', colon - p);
		if (!end)
			end = colon;
		if (shell_parse_arg(p, end - p, a) < 0)
			return -EINVAL;
		p = end;
	}
	a->cmd = colon + 1;
	return 0;
}

static void shell_io(struct loop_watch *w, int fd, uint32_t events, void *data);
static void shell_arm(struct adb_shell *sh, bool want_out);
static void shell_pid(struct loop_watch *w, int fd, uint32_t events,
		      void *data);

static int shell_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Watch fd (taking it: closed if the watch cannot be made). */
static struct loop_watch *shell_watch(struct adb_shell *sh, int fd, uint32_t ev,
				      loop_io_fn fn)
{
	struct loop_watch *w;

	if (fd < 0)
		return NULL;
	shell_set_nonblock(fd);
	w = loop_add_fd(adb_stream_loop(sh->s), fd, ev, fn, sh);
	if (!w)
		close(fd);
	return w;
}

/* The spawner's answer: the child's fds and status pipe, watched. */
static int shell_take_child(struct adb_shell *sh,
			    const struct spawner_child *ch)
{
	sh->pid = ch->pid;
	if (sh->stdin_closed && !sh->pty) {
		/* The host closed stdin while the child was being started. */
		close(ch->in);
		sh->in_w = NULL;
	} else {
		sh->in_w = shell_watch(sh, ch->in, 0, shell_io);
	}
	/* Best effort: a smaller pipe only makes smaller WRTEs. */
	if (!sh->pty && ch->out >= 0)
		fcntl(ch->out, F_SETPIPE_SZ, SHELL_PIPE_SIZE);
	sh->out_w = shell_watch(sh, ch->out, EPOLLIN, shell_io);
	sh->err_w = shell_watch(sh, ch->err, EPOLLIN, shell_io);
	sh->pid_w = shell_watch(sh, ch->status, EPOLLIN, shell_pid);
	if (sh->pty)
		sh->err_eof = true;
	if ((!sh->in_w && !sh->stdin_closed) || !sh->pid_w ||
	    (!sh->pty && (!sh->out_w || !sh->err_w)))
		return -ENOMEM;
	return 0;
}

static void shell_resume_stdin(struct adb_shell *sh);

static void shell_spawned(void *data, int err, const struct spawner_child *ch)
{
	struct adb_shell *sh = data;

	sh->call = NULL;
	if (err == 0)
		err = shell_take_child(sh, ch);
	if (err < 0) {
		log_warnx("adb: cannot start %s: %s", sh->shell,
			  strerror(-err));
		adb_stream_close(sh->s);
		return;
	}
	if (sh->ws_set)
		ioctl(loop_watch_fd(sh->in_w), TIOCSWINSZ, &sh->ws);
	shell_arm(sh, sh->out_armed);
	/* What the host typed meanwhile. */
	if (sh->pend_len > sh->pend_off)
		shell_resume_stdin(sh);
}

/*
 * The worker runs under a seccomp filter that has no fork or execve, so
 * the runtime's spawner starts the child, as the function's user (the
 * whole worker is that user), and hands back its fds and a status pipe,
 * later: the worker's loop goes on meanwhile (shell_spawned()).
 */
static int shell_spawn(struct adb_shell *sh, const struct adb_shell_cfg *cfg,
		       const struct adb_shell_args *a)
{
	struct spawner_cmd c = {
		.cmd = a->cmd,
		.pty = sh->pty,
		.term = a->term[0] ? a->term : NULL,
		.rows = 24,
		.cols = 80,
	};

	return plugin_spawn(cfg->p, &c, shell_spawned, sh, &sh->call);
}

static struct loop_watch *shell_out_watch(struct adb_shell *sh)
{
	return sh->pty ? sh->in_w : sh->out_w;
}

/*
 * What the child's watches should wait for right now. A watch with nothing
 * to wait for is left edge-triggered so that a hung-up pipe, which epoll
 * reports whatever the mask, wakes us once rather than in a loop.
 */
static uint32_t shell_mask(uint32_t ev)
{
	return ev ? ev : EPOLLET;
}

static void shell_arm(struct adb_shell *sh, bool want_out)
{
	uint32_t out = want_out ? EPOLLIN : 0;
	uint32_t in = sh->pend_len > sh->pend_off ? EPOLLOUT : 0;

	sh->out_armed = want_out;
	if (sh->pty) {
		if (sh->in_w)
			loop_watch_set_events(
			    sh->in_w, shell_mask((sh->out_eof ? 0 : out) | in));
		return;
	}
	if (sh->out_w)
		loop_watch_set_events(sh->out_w, shell_mask(out));
	if (sh->err_w)
		loop_watch_set_events(sh->err_w, shell_mask(out));
	if (sh->in_w)
		loop_watch_set_events(sh->in_w, shell_mask(in));
}

static void shell_drop_watch(struct loop_watch **w)
{
	if (*w) {
		loop_watch_remove(*w);
		*w = NULL;
	}
}

static void shell_free(void *svc)
{
	struct adb_shell *sh = svc;

	/* Still being started: the spawner ends it when it comes. */
	plugin_spawn_cancel(sh->call);
	shell_drop_watch(&sh->in_w);
	shell_drop_watch(&sh->out_w);
	shell_drop_watch(&sh->err_w);
	shell_drop_watch(&sh->pid_w);
	if (sh->pid > 0 && !sh->exited) {
		/* The host went away: end the session like a hangup. The
		 * spawner reaps it. */
		kill(-sh->pid, SIGHUP);
		kill(-sh->pid, SIGKILL);
	}
	free(sh->pend);
	free(sh);
}

int adb_shell_open(struct adb_stream *s, const char *name,
		   const struct adb_shell_cfg *cfg,
		   const struct adb_service_ops **ops, void **svc)
{
	struct adb_shell_args a;
	struct adb_shell *sh;
	int rc;

	rc = adb_shell_parse(name, &a);
	if (rc < 0)
		return rc;
	if (a.type == ADB_SHELL_DEFAULT)
		a.type = a.cmd[0] ? ADB_SHELL_RAW : ADB_SHELL_PTY;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	sh->s = s;
	sh->shell = cfg->shell;
	sh->v2 = a.v2;
	sh->pty = a.type == ADB_SHELL_PTY;
	rc = shell_spawn(sh, cfg, &a);
	if (rc < 0) {
		log_warnx("adb: cannot start %s: %s", cfg->shell, strerror(-rc));
		shell_free(sh);
		return rc;
	}
	shell_arm(sh, true);
	*ops = &shell_ops;
	*svc = sh;
	return 0;
}

/* The status pipe: the child's wait status, then EOF. */
static void shell_pid(struct loop_watch *w, int fd, uint32_t events,
		      void *data)
{
	struct adb_shell *sh = data;
	ssize_t n;
	int st;

	n = read(fd, &st, sizeof(st));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	sh->exited = true;
	if (n == sizeof(st))
		sh->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	else
		sh->status = 255; /* the spawner went away */
	shell_drop_watch(&sh->pid_w);
	adb_stream_ready(sh->s);
}

static int shell_write_stdin(struct adb_shell *sh, const uint8_t *d, size_t len,
			     size_t *done)
{
	int fd = sh->in_w ? loop_watch_fd(sh->in_w) : -1;

	*done = 0;
	if (sh->call)
		return 1; /* no child yet: held until it comes */
	if (fd < 0) {
		/* stdin closed: drop the data, and say so, or shell_parse_v2()
		 * would wait for it to be taken forever. */
		*done = len;
		return 0;
	}
	while (*done < len) {
		ssize_t n = write(fd, d + *done, len - *done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n < 0) {
			*done = len; /* the child stopped reading */
			return 0;
		}
		*done += n;
	}
	return 0;
}

static void shell_close_stdin(struct adb_shell *sh)
{
	sh->stdin_closed = true;
	/* With a pty, stdin and stdout are the same fd: keep it. */
	if (!sh->pty)
		shell_drop_watch(&sh->in_w);
}

static void shell_set_winsize(struct adb_shell *sh)
{
	unsigned r, c, x, y;

	sh->win[sh->win_have] = '\0';
	if (!sh->pty || sscanf(sh->win, "%ux%u,%ux%u", &r, &c, &x, &y) != 4)
		return;
	sh->ws.ws_row = r;
	sh->ws.ws_col = c;
	sh->ws.ws_xpixel = x;
	sh->ws.ws_ypixel = y;
	sh->ws_set = true;
	/* Before the child is there, shell_spawned() sets it. */
	if (sh->in_w)
		ioctl(loop_watch_fd(sh->in_w), TIOCSWINSZ, &sh->ws);
}

/* Consume v2 packets from d; returns bytes used, stopping early (and
 * setting *blocked) when stdin is full. */
static size_t shell_parse_v2(struct adb_shell *sh, const uint8_t *d, size_t len,
			     bool *blocked)
{
	size_t used = 0;

	while (used < len) {
		struct adb_shellmsg_reader *in = &sh->in;

		if (!adb_shellmsg_in_payload(in)) {
			used += adb_shellmsg_take_hdr(in, d + used, len - used);
			if (!adb_shellmsg_in_payload(in))
				continue;
			sh->win_have = 0;
			if (in->id == ADB_SHELL_ID_CLOSE_STDIN)
				shell_close_stdin(sh);
		}
		size_t n = adb_shellmsg_payload(in, len - used);
		if (in->id == ADB_SHELL_ID_STDIN) {
			size_t done;
			*blocked = shell_write_stdin(sh, d + used, n, &done) > 0;
			n = done;
		} else if (in->id == ADB_SHELL_ID_WINSIZE) {
			size_t room = sizeof(sh->win) - 1 - sh->win_have;
			size_t k = n < room ? n : room;
			memcpy(sh->win + sh->win_have, d + used, k);
			sh->win_have += k;
		}
		used += n;
		if (adb_shellmsg_took(in, n) && in->id == ADB_SHELL_ID_WINSIZE)
			shell_set_winsize(sh);
		if (*blocked)
			return used;
	}
	return used;
}

static size_t shell_consume(struct adb_shell *sh, const uint8_t *d, size_t len,
			    bool *blocked)
{
	size_t done;

	*blocked = false;
	if (sh->v2)
		return shell_parse_v2(sh, d, len, blocked);
	*blocked = shell_write_stdin(sh, d, len, &done) > 0;
	return done;
}

static int shell_write(void *svc, const uint8_t *data, size_t len)
{
	struct adb_shell *sh = svc;
	bool blocked;
	size_t used = shell_consume(sh, data, len, &blocked);

	/* Nothing left to hold back (an empty WRTE meeting a full stdin):
	 * done, rather than a zero-byte copy from the host's NULL. */
	if (!blocked || used == len)
		return 0;
	sh->pend = malloc(len - used);
	if (!sh->pend)
		return -ENOMEM;
	memcpy(sh->pend, data + used, len - used);
	sh->pend_len = len - used;
	sh->pend_off = 0;
	shell_arm(sh, sh->out_armed);
	return 1;
}

/* stdin became writable: go on with the held-back host data. */
static void shell_resume_stdin(struct adb_shell *sh)
{
	bool blocked;

	sh->pend_off += shell_consume(sh, sh->pend + sh->pend_off,
				      sh->pend_len - sh->pend_off, &blocked);
	if (blocked)
		return;
	free(sh->pend);
	sh->pend = NULL;
	sh->pend_len = sh->pend_off = 0;
	shell_arm(sh, sh->out_armed);
	adb_stream_ack(sh->s);
}

static void shell_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	struct adb_shell *sh = data;

	if (w == sh->in_w && (events & (EPOLLOUT | EPOLLERR)) &&
	    sh->pend_len > sh->pend_off) {
		shell_resume_stdin(sh);
		if (!sh->pty)
			return;
	}
	if (w == sh->in_w && !sh->pty) {
		/* The child closed its stdin: we cannot deliver. */
		shell_drop_watch(&sh->in_w);
		return;
	}
	if (sh->out_armed && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		/* Read when it is this stream's turn, in produce(). */
		shell_arm(sh, false);
		adb_stream_ready(sh->s);
	}
}

/* One read from fd into buf (after a v2 header); returns bytes used in
 * buf, 0 if nothing (EAGAIN) and sets *eof at the end. */
static size_t shell_read_output(struct adb_shell *sh, int fd, uint8_t id,
				uint8_t *buf, size_t max, bool *eof)
{
	size_t off = sh->v2 ? ADB_SHELLMSG_HDR : 0;
	ssize_t n;

	if (max <= off)
		return 0;
	if (max - off > SHELL_READ_MAX)
		max = off + SHELL_READ_MAX;
	do {
		n = read(fd, buf + off, max - off);
	} while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		/* EIO on a pty master: every slave fd is closed. */
		*eof = true;
		return 0;
	}
	if (n < 0)
		return 0;
	if (sh->v2)
		adb_shellmsg_put_hdr(buf, id, n);
	return off + n;
}

static ssize_t shell_produce(void *svc, uint8_t *buf, size_t max)
{
	struct adb_shell *sh = svc;
	size_t used = 0;

	if (sh->call)
		return 0; /* shell_spawned() arms the watches */
	if (!sh->out_eof)
		used +=
		    shell_read_output(sh, loop_watch_fd(shell_out_watch(sh)),
				      ADB_SHELL_ID_STDOUT, buf, max, &sh->out_eof);
	if (!sh->err_eof)
		used += shell_read_output(sh, loop_watch_fd(sh->err_w),
					  ADB_SHELL_ID_STDERR, buf + used,
					  max - used, &sh->err_eof);
	if (sh->out_eof && !sh->pty)
		shell_drop_watch(&sh->out_w);
	if (sh->err_eof)
		shell_drop_watch(&sh->err_w);
	if (used)
		return used;
	if (!(sh->out_eof && sh->err_eof)) {
		shell_arm(sh, true);
		return 0;
	}
	if (!sh->exited)
		return 0; /* shell_pid() calls adb_stream_ready() */
	if (sh->v2 && !sh->exit_sent && max >= ADB_SHELLMSG_HDR + 1) {
		adb_shellmsg_put_hdr(buf, ADB_SHELL_ID_EXIT, 1);
		buf[ADB_SHELLMSG_HDR] = (uint8_t)sh->status;
		sh->exit_sent = true;
		return ADB_SHELLMSG_HDR + 1;
	}
	return -EPIPE;
}

static const struct adb_service_ops shell_ops = {
	.write = shell_write,
	.produce = shell_produce,
	.free = shell_free,
};
