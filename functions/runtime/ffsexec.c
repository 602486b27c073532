/* ffsexec: an existing FunctionFS program as a function (ffsexec.h). */
#include "ffsexec.h"
#include "child.h"
#include "ffsbound.h"
#include "log.h"
#include "loop.h"
#include "sandbox.h"
#include "wmsg.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* The environment's entries besides the profile's: PATH, GADGETD_FFS,
 * GADGETD_FUNCTION, LD_PRELOAD, NULL. */
#define FFSEXEC_ENV_OWN 5
/* The AIO guard preloaded into the program (aiopreload.c), beside this
 * worker's binary. */
#define FFSEXEC_GUARD "gadgetd-aioguard.so"

/* Beyond the runtime's list: the program's reap and stop. */
static const char *const ffsexec_syscalls[] = {
	"wait4", "waitid", "kill", "pidfd_send_signal", NULL,
};

struct ffsexec {
	const struct wargv *a;
	struct loop *loop;
	struct loop_watch *ctl;
	struct loop_watch *poll;
	struct child *child;
	const char *name;  /* the program's base name, for messages */
	const char *ffs;   /* where the program finds the instance */
	/* "LD_PRELOAD=.../gadgetd-aioguard.so[:the profile's]", or empty
	 * with aio_guard = false. */
	char preload[2 * PATH_MAX + 16];
	bool ready;
	int status;        /* the program's wait status, once it ended */
	bool ended;
};

static void ffsexec_send(struct ffsexec *x, const uint8_t *buf, int len)
{
	if (len < 0 || !x->ctl)
		return;
	if (send(loop_watch_fd(x->ctl), buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_warn("cannot send message %u to gadgetd", buf[0] | buf[1] << 8);
}

/* WORKER_ERROR: what gadgetd shows with our exit. */
static void ffsexec_send_error(struct ffsexec *x, const char *text)
{
	uint8_t buf[WORKER_MSG_MAX];
	const char *s[] = { text };

	ffsexec_send(x, buf, wmsg_build_strings(buf, sizeof(buf), WORKER_ERROR,
						 s, 1));
}

/* A status key for `gadgetctl status` (the worker's pid is gadgetd's
 * own; the program's is this). */
static void ffsexec_send_status(struct ffsexec *x, const char *key,
				const char *value)
{
	uint8_t buf[WORKER_MSG_MAX];
	const char *s[] = { key, value };

	ffsexec_send(x, buf, wmsg_build_strings(buf, sizeof(buf), WORKER_STATUS,
						 s, 2));
}

/* A command for the function (`gadgetctl NAME ...`): refused, so that
 * its caller hears why at once instead of waiting for a timeout. */
static void ffsexec_command(struct ffsexec *x, uint8_t *payload, size_t len)
{
	char *argv[WMSG_MAX_ARGS + 1], text[PATH_MAX + 64];
	uint8_t buf[WORKER_MSG_MAX];
	uint32_t id;
	int argc;

	if (wmsg_parse_command(payload, len, &id, argv, &argc) < 0) {
		log_warnx("malformed command from gadgetd");
		return;
	}
	snprintf(text, sizeof(text), "%s is a program, not a plugin: it takes no commands",
		 x->a->exec);
	ffsexec_send(x, buf, wmsg_build_reply(buf, sizeof(buf), id, -EOPNOTSUPP,
					       text));
}

/* The heartbeat needs an answer, a command a refusal; nothing else does. */
static void ffsexec_on_ctl(struct loop_watch *w, int fd, uint32_t events,
			   void *data)
{
	struct ffsexec *x = data;
	uint8_t buf[WORKER_MSG_MAX], out[16], *payload;
	uint16_t type;
	uint32_t seq;
	size_t len;
	ssize_t n;

	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		log_warnx("gadgetd closed fd %d; stopping %s", WORKER_FD, x->name);
		loop_watch_remove(w);
		x->ctl = NULL;
		child_stop(x->child, CHILD_TERM_MS);
		return;
	}
	if (wmsg_parse(buf, n, &type, &payload, &len) < 0) {
		log_warnx("malformed message (%zd bytes) from gadgetd", n);
		return;
	}
	if (type == WORKER_COMMAND) {
		ffsexec_command(x, payload, len);
		return;
	}
	if (type != WORKER_PING) {
		log_debug("message %u from gadgetd ignored: %s takes none", type,
			  x->name);
		return;
	}
	if (wmsg_parse_u32(payload, len, &seq) < 0) {
		log_warnx("malformed heartbeat (%zu bytes) from gadgetd", len);
		return;
	}
	ffsexec_send(x, out, wmsg_build_u32(out, sizeof(out), WORKER_PONG, seq));
}

/* f_fs makes ep1.. once descriptors and strings are both written; until
 * then the instance holds ep0 alone and a bind fails (ENODEV). */
static void ffsexec_on_poll(struct loop_watch *t, void *data)
{
	struct ffsexec *x = data;
	char path[PATH_MAX];
	uint8_t buf[16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/ep1", x->a->dir);
	if (stat(path, &st) < 0) {
		loop_timer_rearm(t, FFSEXEC_POLL_MS);
		return;
	}
	loop_watch_remove(t);
	x->poll = NULL;
	x->ready = true;
	log_info("%s wrote its descriptors on %s", x->name, x->ffs);
	ffsexec_send(x, buf, wmsg_build_empty(buf, sizeof(buf), WORKER_READY));
}

static void ffsexec_on_exit(int status, bool known, void *data)
{
	struct ffsexec *x = data;
	char how[64], line[WORKER_ERROR_MAX];

	x->child = NULL;
	x->ended = true;
	x->status = known ? status : W_EXITCODE(1, 0);
	child_describe(status, known, how, sizeof(how));
	snprintf(line, sizeof(line), "%s %s%s", x->a->exec, how,
		 x->ready ? "" : " before it wrote its descriptors");
	if (WIFEXITED(x->status) && !WEXITSTATUS(x->status))
		log_info("%s", line);
	else
		log_warnx("%s", line);
	ffsexec_send_error(x, line);
	loop_quit(x->loop, 0);
}

static void ffsexec_on_signal(struct loop *l, int signo, void *data)
{
	struct ffsexec *x = data;

	log_info("%s: stopping %s", strsignal(signo), x->name);
	child_stop(x->child, CHILD_TERM_MS);
}

/* mkdir -p path (0755), as the worker's start-up user. */
static int ffsexec_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*p = c;
	}
}

/*
 * The deepest existing folder above path is on a read-only mount (the
 * service's private /dev under systemd's PrivateDevices=): make that
 * mount writable in this namespace alone, its other flags kept, for the
 * folders -m needs. 0, or -errno (EINVAL: it is not a mount's root).
 */
static int ffsexec_mkdirs_rw(const char *path)
{
	char top[PATH_MAX], *slash;
	unsigned long keep;
	struct statvfs sv;
	struct stat st;

	snprintf(top, sizeof(top), "%s", path);
	while (stat(top, &st) < 0 && (slash = strrchr(top, '/')) && slash != top)
		*slash = '\0';
	if (statvfs(top, &sv) < 0)
		return -errno;
	keep = sv.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_NOATIME |
			    ST_NODIRATIME | ST_RELATIME);
	if (mount(NULL, top, NULL, MS_REMOUNT | MS_BIND | keep, NULL) < 0)
		return -errno;
	log_info("%s made writable in the program's mount namespace for %s",
		 top, path);
	return ffsexec_mkdirs(path);
}

/*
 * -m: the instance at the path the program opens by itself (adbd's
 * /dev/usb-ffs/adb), in a mount namespace of the program's own, so that
 * nothing else sees it there. Folders missing on the way are made (on a
 * read-only mount too: ffsexec_mkdirs_rw()); they stay, empty, where the
 * mount's file system is shared.
 */
static int ffsexec_bind(const struct wargv *a)
{
	int r;

	if (unshare(CLONE_NEWNS) < 0) {
		log_warn("cannot make a mount namespace for %s", a->exec);
		return -errno;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		log_warn("cannot make the mount namespace of %s private", a->exec);
		return -errno;
	}
	r = ffsexec_mkdirs(a->bind);
	if (r == -EROFS)
		r = ffsexec_mkdirs_rw(a->bind);
	if (r < 0) {
		errno = -r;
		log_warn("cannot create %s for %s", a->bind, a->exec);
		return r;
	}
	if (mount(a->dir, a->bind, NULL, MS_BIND, NULL) < 0) {
		log_warn("cannot bind %s on %s for %s", a->dir, a->bind, a->exec);
		return -errno;
	}
	return 0;
}

/* The user and group the program runs as (-u, -g), as worker_drop(). */
static int ffsexec_ids(const struct wargv *a, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	struct group *gr;

	*uid = getuid();
	*gid = getgid();
	if (a->user) {
		if (!(pw = getpwnam(a->user))) {
			log_warnx("no user \"%s\"", a->user);
			return -ENOENT;
		}
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
	}
	if (a->group) {
		if (!(gr = getgrnam(a->group))) {
			log_warnx("no group \"%s\"", a->group);
			return -ENOENT;
		}
		*gid = gr->gr_gid;
	}
	return 0;
}

/* In the child: never returns. Its environment is its own, not gadgetd's:
 * a PATH, where the instance is, and the profile's variables. */
static void ffsexec_child(const struct ffsexec *x, pid_t parent)
{
	const struct wargv *a = x->a;
	char *argv[WARGV_MAX_ARGS + 2], *envp[WARGV_MAX_ARGS + FFSEXEC_ENV_OWN];
	char ffs[PATH_MAX + 16], fn[64 + 32];
	unsigned i, n = 0;

	loop_child_reset_signals();
	/* Never outlive the worker: gadgetd's SIGKILL of a stuck worker (or
	 * its heartbeat) ends the program too. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(127);
	if (chdir(x->ffs) < 0)
		fprintf(stderr, "gadgetd-worker: cannot enter %s: %s\n", x->ffs,
			strerror(errno));
	snprintf(ffs, sizeof(ffs), "GADGETD_FFS=%s", x->ffs);
	snprintf(fn, sizeof(fn), "GADGETD_FUNCTION=%s", a->instance);
	envp[n++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	envp[n++] = ffs;
	envp[n++] = fn;
	if (x->preload[0])
		envp[n++] = (char *)x->preload;
	for (i = 0; i < a->n_env; i++)
		if (!x->preload[0] || strncmp(a->env[i], "LD_PRELOAD=", 11))
			envp[n++] = (char *)a->env[i];
	envp[n] = NULL;
	argv[0] = (char *)a->exec;
	for (i = 0; i < a->n_args; i++)
		argv[i + 1] = (char *)a->args[i];
	argv[i + 1] = NULL;
	execve(a->exec, argv, envp);
	fprintf(stderr, "gadgetd-worker: cannot run %s: %s\n", a->exec,
		strerror(errno));
	_exit(127);
}

/*
 * The guard's LD_PRELOAD entry (aioguard.h says why a program needs
 * one): the library beside this binary, before the profile's own
 * LD_PRELOAD if it has one. -ENOENT (said) when the library is missing.
 */
static int ffsexec_preload(struct ffsexec *x)
{
	const struct wargv *a = x->a;
	char self[PATH_MAX], lib[PATH_MAX + 32], *slash;
	const char *theirs = NULL;
	struct stat st;
	ssize_t len;
	unsigned i;

	if (a->no_aio_guard)
		return 0;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		log_warn("cannot find gadgetd-worker's own path");
		return -errno;
	}
	self[len] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(lib, sizeof(lib), "%s/%s", self, FFSEXEC_GUARD);
	if (stat(lib, &st) < 0 || !S_ISREG(st.st_mode) || strpbrk(lib, ": ")) {
		log_warnx("cannot preload the AIO guard %s into %s: %s "
			  "(aio_guard = false runs it without)", lib, a->exec,
			  strpbrk(lib, ": ") ? "a path with ':' or ' '" :
			  strerror(errno ? errno : ENOENT));
		return -ENOENT;
	}
	for (i = 0; i < a->n_env; i++)
		if (!strncmp(a->env[i], "LD_PRELOAD=", 11))
			theirs = a->env[i] + 11;
	snprintf(x->preload, sizeof(x->preload), "LD_PRELOAD=%s%s%s", lib,
		 theirs && *theirs ? ":" : "", theirs ? theirs : "");
	return 0;
}

/* As root still: ids, the mount namespace, then the drop; then the
 * program, watched by the loop. */
static int ffsexec_start(struct ffsexec *x)
{
	const struct wargv *a = x->a;
	pid_t parent = getpid(), pid;
	char num[16];
	uid_t uid;
	gid_t gid;
	int r;

	r = ffsbound_refuse(a->dir);
	if (r < 0)
		return r;
	r = ffsexec_preload(x);
	if (r < 0)
		return r;
	r = ffsexec_ids(a, &uid, &gid);
	if (r < 0)
		return r;
	if (a->bind && (r = ffsexec_bind(a)) < 0)
		return r;
	r = sandbox_drop(a->user, uid, gid, a->caps);
	if (r < 0)
		return r;
	pid = fork();
	if (pid < 0) {
		log_warn("cannot start %s", a->exec);
		return -errno;
	}
	if (pid == 0)
		ffsexec_child(x, parent);
	x->child = child_watch(x->loop, pid, x->name, ffsexec_on_exit, x);
	if (!x->child) {
		r = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	log_info("%s (pid %d) runs as uid %u gid %u, capabilities %#llx, on %s, %s",
		 a->exec, (int)pid, (unsigned)uid, (unsigned)gid,
		 (unsigned long long)a->caps, x->ffs,
		 x->preload[0] ? "with the AIO guard" : "without the AIO guard");
	snprintf(num, sizeof(num), "%d", (int)pid);
	ffsexec_send_status(x, "program", a->exec);
	ffsexec_send_status(x, "program_pid", num);
	/* The worker itself is locked as a plugin's is: it only waits,
	 * looks for ep1 and signals its child from now on. */
	r = sandbox_lock(ffsexec_syscalls);
	if (r < 0)
		return r;
	x->poll = loop_add_timer(x->loop, FFSEXEC_POLL_MS, ffsexec_on_poll, x);
	return x->poll ? 0 : -errno;
}

/* How the worker ends: as the program did, so that gadgetd's log and
 * status say "killed by signal 9" of a program killed so. */
static int ffsexec_exit_code(const struct ffsexec *x, int r)
{
	if (r < 0)
		return r == -EBUSY ? WORKER_EXIT_BOUND : 1;
	if (!x->ended)
		return 0;
	if (WIFSIGNALED(x->status)) {
		signal(WTERMSIG(x->status), SIG_DFL);
		raise(WTERMSIG(x->status));
		return 128 + WTERMSIG(x->status);
	}
	return WEXITSTATUS(x->status);
}

int ffsexec_run(const struct wargv *a)
{
	const char *slash = strrchr(a->exec, '/');
	struct ffsexec x = {
		.a = a,
		.name = slash ? slash + 1 : a->exec,
		.ffs = a->bind ? a->bind : a->dir,
	};
	int r;

	x.loop = loop_new();
	if (!x.loop)
		return 1;
	x.ctl = loop_add_fd(x.loop, WORKER_FD, EPOLLIN, ffsexec_on_ctl, &x);
	if (!x.ctl || loop_add_signal(x.loop, SIGTERM, ffsexec_on_signal, &x) < 0 ||
	    loop_add_signal(x.loop, SIGINT, ffsexec_on_signal, &x) < 0) {
		log_warn("cannot set up the event loop");
		return 1;
	}
	r = ffsexec_start(&x);
	if (r == 0)
		r = loop_run(x.loop);
	else if (worker_last_error()[0])
		ffsexec_send_error(&x, worker_last_error());
	if (x.child)
		child_kill_wait(x.child);
	loop_watch_remove(x.poll);
	loop_watch_remove(x.ctl);
	loop_free(x.loop);
	return ffsexec_exit_code(&x, r);
}
