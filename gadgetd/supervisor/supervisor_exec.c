#include "supervisor_exec.h"
#include "config.h"
#include "dirs.h"
#include "log.h"
#include "loop.h"
#include "profile.h"
#include "profile_exec.h"
#include "wargv.h"
#include "wmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A start-up step failed on path (errno set): say so in err, return
 * -errno. */
static int supervisor_exec_failed(const char *what, const char *path,
				  char *err, size_t size)
{
	int r = -errno;

	snprintf(err, size, "%s %s: %s", what, path, strerror(-r));
	return r;
}

/*
 * Root's set after a worker asks for root (`adb root`): every capability
 * gadgetd holds itself (all of them, unless a service manager bounded
 * gadgetd; the worker cannot get more than that anyway).
 */
static uint64_t supervisor_exec_all_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0) {
		log_warn("cannot read gadgetd's capabilities; a worker restarted as root gets none");
		return 0;
	}
	return (uint64_t)d[1].permitted << 32 | d[0].permitted;
}

void supervisor_exec_config_path(const struct config *cfg,
				 const struct profile_function *f, char *buf,
				 size_t size)
{
	snprintf(buf, size, "%s/exec-%s/config", cfg->run_dir, f->name);
}

/* list's n entries with %f and %c expanded into out (the caller frees
 * them even on failure). */
static int supervisor_exec_expand(char *const *list, unsigned n,
				  const char *ffs, const char *conf,
				  const char **out)
{
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		r = profile_exec_expand(list[i], ffs, conf, (char **)&out[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* An exec function's worker: the program instead of a plugin (wargv.h's
 * second form). */
static int supervisor_exec_argv_program(const struct config *cfg,
					const struct profile_function *f,
					const char *mount, char ***argv)
{
	struct wargv a = {
		.worker = cfg->worker,
		.exec = f->exec,
		.bind = f->bind,
		.no_aio_guard = !f->aio_guard,
		.instance = f->name,
		.dir = mount,
		.user = f->user,
		.group = f->group,
		.have_caps = true,
		.caps = f->caps,
		.n_args = f->n_args,
		.n_env = f->n_env,
	};
	const char *ffs = f->bind ? f->bind : mount;
	char conf[PATH_MAX];
	unsigned i;
	int r;

	supervisor_exec_config_path(cfg, f, conf, sizeof(conf));
	r = supervisor_exec_expand(f->args, f->n_args, ffs, conf, a.args);
	if (!r)
		r = supervisor_exec_expand(f->env, f->n_env, ffs, conf, a.env);
	if (!r)
		r = wargv_encode(&a, argv);
	for (i = 0; i < f->n_args; i++)
		free((char *)a.args[i]);
	for (i = 0; i < f->n_env; i++)
		free((char *)a.env[i]);
	return r;
}

int supervisor_exec_argv(const struct config *cfg, const struct profile_function *f,
			 const char *mount, bool root, char ***argv)
{
	struct wargv a = {
		.worker = cfg->worker,
		.instance = f->name,
		.dir = mount,
		.have_caps = true,
	};
	char *so = NULL, *kv[PROFILE_MAX_OPTIONS] = { 0 };
	unsigned i;
	int r = -ENOMEM;

	*argv = NULL;
	if (f->exec)
		return supervisor_exec_argv_program(cfg, f, mount, argv);
	if (asprintf(&so, "%s/%s.so", cfg->plugin_dir, f->plugin) < 0)
		return -ENOMEM;
	a.plugin = so;
	/* Who the worker becomes once it has set up (functions/runtime/sandbox.h). */
	a.user = root ? "root" : f->user;
	a.group = root ? NULL : f->group;
	a.caps = root ? supervisor_exec_all_caps() : f->caps;
	if (f->root_allowed)
		a.root = root ? WARGV_ROOT_ACTIVE : WARGV_ROOT_ALLOWED;
	for (i = 0; i < f->n_options; i++) {
		if (asprintf(&kv[i], "%s=%s", f->options[i].key,
			     f->options[i].value) < 0) {
			kv[i] = NULL;
			goto out;
		}
		a.opts[a.n_opts++] = kv[i];
	}
	r = wargv_encode(&a, argv);
out:
	for (i = 0; i < f->n_options; i++)
		free(kv[i]);
	free(so);
	return r;
}

int supervisor_exec_mount(const struct config *cfg, const char *name,
			  const char *at, uid_t uid, gid_t gid, char *err,
			  size_t size)
{
	char opts[64];
	struct stat st;
	int r;

	/* 0755 whatever the umask (the shipped unit's is 0077): the
	 * workers' users pass through it to their own instance. */
	r = dirs_make(cfg->ffs_dir, 0755, err, size);
	if (r < 0)
		return r;
	if (mkdir(at, 0755) < 0 && errno != EEXIST)
		return supervisor_exec_failed("cannot create", at, err, size);
	umount2(at, MNT_DETACH); /* a stale mount from a crash */
	/* The worker's user owns the instance's files (ep0 and the
	 * endpoints, 0600) and its root (0500): nobody else can open them. */
	snprintf(opts, sizeof(opts), "no_disconnect=1,uid=%u,gid=%u",
		 (unsigned)uid, (unsigned)gid);
	if (mount(name, at, "functionfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  opts) < 0)
		return supervisor_exec_failed("cannot mount functionfs on", at,
					      err, size);
	if (stat(at, &st) < 0)
		return -errno;
	return 0;
}

/* The instance goes once nothing holds its files: after the reap. */
void supervisor_exec_unmount(const char *name, const char *mount)
{
	if (umount2(mount, 0) < 0 && umount2(mount, MNT_DETACH) < 0)
		log_warn("%s: cannot unmount %s", name, mount);
	rmdir(mount);
}

/*
 * Functions of one plugin share the folder; it follows the user of the
 * last one started. Never follows a link planted in place of it. gadgetd
 * made run_dir at start; it is made again if it went away.
 */
int supervisor_exec_rundir(const struct config *cfg, const char *plugin,
			   uid_t uid, gid_t gid, char *err, size_t size)
{
	const char *run = cfg->run_dir;
	char dir[PATH_MAX];
	int fd, r = 0;

	snprintf(dir, sizeof(dir), "%s", run);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		goto fail;
	snprintf(dir, sizeof(dir), "%s/%s", run, plugin);
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		goto fail;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fchown(fd, uid, gid) < 0 || fchmod(fd, 0750) < 0)
		r = -errno;
	close(fd);
	if (!r)
		return 0;
	errno = -r;
fail:
	return supervisor_exec_failed("cannot prepare", dir, err, size);
}

/* Write text as name in the folder dfd (which its user owns: never
 * through a link planted there), the file uid's alone. */
static int supervisor_exec_write_at(int dfd, const char *name,
				    const char *text, uid_t uid, gid_t gid)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, r = 0;

	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0400);
	if (fd < 0)
		return -errno;
	if (fchown(fd, uid, gid) < 0)
		r = -errno;
	while (!r && len) {
		n = write(fd, text, len);
		if (n < 0) {
			r = -errno;
			break;
		}
		text += n;
		len -= n;
	}
	if (close(fd) < 0 && !r)
		r = -errno;
	return r;
}

int supervisor_exec_config(const struct config *cfg,
			   const struct profile_function *f, const char *mount,
			   uid_t uid, gid_t gid, char *err, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX], *text;
	int dfd, r;

	/* gadgetd's folder, not the program's: gadgetd has no
	 * CAP_DAC_OVERRIDE to write into one its user owns, and the
	 * program cannot swap the file it is given. */
	snprintf(dir, sizeof(dir), "%s/exec-%s", cfg->run_dir, f->name);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return supervisor_exec_failed("cannot create", dir, err, size);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fchown(dfd, 0, 0) < 0 || fchmod(dfd, 0755) < 0) {
		r = supervisor_exec_failed("cannot prepare", dir, err, size);
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	supervisor_exec_config_path(cfg, f, path, sizeof(path));
	if (!f->config) {
		r = unlinkat(dfd, "config", 0) < 0 && errno != ENOENT ? -errno : 0;
	} else {
		r = profile_exec_expand(f->config, f->bind ? f->bind : mount,
					NULL, &text);
		if (!r) {
			r = supervisor_exec_write_at(dfd, "config", text, uid, gid);
			free(text);
		}
	}
	close(dfd);
	if (r < 0)
		snprintf(err, size, "cannot write %s: %s", path, strerror(-r));
	return r;
}

int supervisor_exec_spawn(char **argv, pid_t *pid, int *sock)
{
	int sv[2];
	pid_t p;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (p == 0) {
		loop_child_reset_signals();
		if (dup2(sv[1], WORKER_FD) < 0)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "gadgetd: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	*pid = p;
	*sock = sv[0];
	return 0;
}

void supervisor_exec_clean_mounts(const struct config *cfg)
{
	char line[1024], dev[256], dir[PATH_MAX], type[64];
	size_t dl = strlen(cfg->ffs_dir);
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3)
			continue;
		if (strcmp(type, "functionfs") || strncmp(dir, cfg->ffs_dir, dl) ||
		    dir[dl] != '/')
			continue;
		log_info("unmounting stale FunctionFS instance %s", dir);
		umount2(dir, MNT_DETACH);
		rmdir(dir);
	}
	fclose(f);
}
