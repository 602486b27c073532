/* ootmeta: out-of-tree plugins' declarations, described by the worker
 * (see ootmeta.h). */
#include "ootmeta.h"

#include "metatext.h"
#include "monotime.h"
#include "plugin_list.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ootmeta_entry {
	char *name;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	struct metatext *text;
};

static struct ootmeta_entry ootmeta_cache[OOTMETA_MAX];
static char *ootmeta_worker, *ootmeta_dir;
static unsigned ootmeta_timeout = OOTMETA_TIMEOUT_MS;

void ootmeta_clear(void)
{
	unsigned i;

	for (i = 0; i < OOTMETA_MAX; i++) {
		free(ootmeta_cache[i].name);
		metatext_free(ootmeta_cache[i].text);
		memset(&ootmeta_cache[i], 0, sizeof(ootmeta_cache[i]));
	}
	free(ootmeta_worker);
	free(ootmeta_dir);
	ootmeta_worker = ootmeta_dir = NULL;
	ootmeta_timeout = OOTMETA_TIMEOUT_MS;
}

void ootmeta_setup(const char *worker, const char *plugin_dir, unsigned timeout_ms)
{
	free(ootmeta_worker);
	free(ootmeta_dir);
	ootmeta_worker = worker ? strdup(worker) : NULL;
	ootmeta_dir = plugin_dir ? strdup(plugin_dir) : NULL;
	ootmeta_timeout = timeout_ms ? timeout_ms : OOTMETA_TIMEOUT_MS;
}

int ootmeta_enabled(void)
{
	return ootmeta_worker && ootmeta_dir;
}

static struct ootmeta_entry *ootmeta_entry(const char *name)
{
	unsigned i;

	for (i = 0; name && i < OOTMETA_MAX; i++)
		if (ootmeta_cache[i].name && !strcmp(ootmeta_cache[i].name, name))
			return &ootmeta_cache[i];
	return NULL;
}

const struct plugin_meta *ootmeta_find(const char *name)
{
	const struct plugin_meta *m = plugin_list_find(name);
	struct ootmeta_entry *c;

	if (m)
		return m;
	c = ootmeta_entry(name);
	return c ? metatext_meta(c->text) : NULL;
}

/* The last non-empty line of what the describe printed on stderr, its
 * bytes made printable: it comes from a plugin's process. */
static void ootmeta_last_line(const char *err, size_t n, char *buf, size_t size)
{
	size_t end = n, start, i, o = 0;

	while (end && (err[end - 1] == '\n' || err[end - 1] == '\r'))
		end--;
	for (start = end; start && err[start - 1] != '\n'; start--)
		;
	for (i = start; i < end && o + 1 < size; i++)
		buf[o++] = isprint((unsigned char)err[i]) ? err[i] : '?';
	if (size)
		buf[o] = '\0';
}

struct ootmeta_run {
	char out[METATEXT_MAX_TEXT + 1];
	size_t n_out;
	char err[1024];
	size_t n_err;
	int status;
};

/* Read both pipes until both close or the deadline; -ETIMEDOUT, -EFBIG
 * (more than the format's bound) or 0. */
static int ootmeta_drain(int out, int err, struct ootmeta_run *r)
{
	int64_t deadline = (int64_t)monotime_ms() + ootmeta_timeout;
	struct pollfd p[2] = { { .fd = out, .events = POLLIN }, { .fd = err, .events = POLLIN } };
	char junk[512];
	ssize_t k;

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int64_t left = deadline - (int64_t)monotime_ms();
		int i;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(p, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if (i == 0)
				k = read(p[0].fd, r->out + r->n_out, sizeof(r->out) - r->n_out);
			else if (r->n_err < sizeof(r->err))
				k = read(p[1].fd, r->err + r->n_err, sizeof(r->err) - r->n_err);
			else
				k = read(p[1].fd, junk, sizeof(junk)); /* keep the first 1 KiB */
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (i == 0) {
				r->n_out += k;
				if (r->n_out > METATEXT_MAX_TEXT)
					return -EFBIG;
			} else if (r->n_err < sizeof(r->err)) {
				r->n_err += k;
			}
		}
	}
	return 0;
}

/* Run the worker's describe of so; 0 with r filled, or -errno. */
static int ootmeta_describe(const char *so, struct ootmeta_run *r)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, d, rc;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		rc = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto fail;
	}
	if (pid == 0) {
		char *argv[] = { ootmeta_worker, "--describe", (char *)so, NULL };
		sigset_t none;

		/* gadgetd's loop blocks the signals it reads from a
		 * signalfd; nothing of gadgetd's but the pipes goes along. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		d = open("/dev/null", O_RDONLY);
		if (d < 0 || dup2(d, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		syscall(SYS_close_range, 3, ~0u, 0);
		execv(ootmeta_worker, argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	rc = ootmeta_drain(out[0], err[0], r);
	close(out[0]);
	close(err[0]);
	if (rc < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &r->status, 0) < 0)
		if (errno != EINTR)
			return rc < 0 ? rc : -errno;
	return rc;
fail:
	for (d = 0; d < 2; d++) {
		if (out[d] >= 0)
			close(out[d]);
		if (err[d] >= 0)
			close(err[d]);
	}
	return rc;
}

/* A slot for name: its own, a free one, else the first. */
static struct ootmeta_entry *ootmeta_slot(const char *name)
{
	struct ootmeta_entry *c = ootmeta_entry(name);
	unsigned i;

	for (i = 0; !c && i < OOTMETA_MAX; i++)
		if (!ootmeta_cache[i].name)
			c = &ootmeta_cache[i];
	if (!c)
		c = &ootmeta_cache[0];
	free(c->name);
	metatext_free(c->text);
	memset(c, 0, sizeof(*c));
	return c;
}

const struct plugin_meta *ootmeta_load(const char *name, char *why, size_t size)
{
	struct ootmeta_entry *c = ootmeta_entry(name);
	struct ootmeta_run *r = NULL;
	struct metatext *t = NULL;
	char so[4096], line[256], msg[256];
	struct stat st;
	int rc;

	if (!ootmeta_enabled()) {
		snprintf(why, size, "out-of-tree plugins are not described here");
		return NULL;
	}
	if (!name || !name[0] || strchr(name, '/') || name[0] == '.') {
		snprintf(why, size, "\"%s\" is not a plugin name", name ? name : "");
		return NULL;
	}
	snprintf(so, sizeof(so), "%s/%s.so", ootmeta_dir, name);
	if (stat(so, &st) < 0) {
		rc = errno;
		snprintf(why, size, "%s: %s", so, strerror(rc));
		if (c)
			ootmeta_slot(name)->name = NULL;
		errno = rc == ENOENT ? ENOENT : EINVAL;
		return NULL;
	}
	if (c && c->dev == st.st_dev && c->ino == st.st_ino && c->size == st.st_size &&
	    c->mtime.tv_sec == st.st_mtim.tv_sec && c->mtime.tv_nsec == st.st_mtim.tv_nsec)
		return metatext_meta(c->text);
	if (!(r = calloc(1, sizeof(*r)))) {
		snprintf(why, size, "%s: out of memory", so);
		return NULL;
	}
	rc = ootmeta_describe(so, r);
	ootmeta_last_line(r->err, r->n_err, line, sizeof(line));
	if (rc == -ETIMEDOUT)
		snprintf(why, size, "%s: %s --describe timed out after %u ms", so,
			 ootmeta_worker, ootmeta_timeout);
	else if (rc == -EFBIG)
		snprintf(why, size, "%s: %s --describe printed more than %d bytes", so,
			 ootmeta_worker, METATEXT_MAX_TEXT);
	else if (rc < 0)
		snprintf(why, size, "%s: cannot run %s --describe: %s", so, ootmeta_worker,
			 strerror(-rc));
	else if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
		snprintf(why, size, "%s: %s --describe %s %d%s%s", so, ootmeta_worker,
			 WIFEXITED(r->status) ? "exited with status" : "was killed by signal",
			 WIFEXITED(r->status) ? WEXITSTATUS(r->status) : WTERMSIG(r->status),
			 line[0] ? ": " : "", line);
	else if (metatext_parse(r->out, r->n_out, &t, msg, sizeof(msg)) < 0)
		snprintf(why, size, "%s: its declaration: %s", so, msg);
	else if (!metatext_meta(t)->name || strcmp(metatext_meta(t)->name, name))
		snprintf(why, size, "%s: it declares itself as \"%s\"", so,
			 metatext_meta(t)->name ? metatext_meta(t)->name : "");
	else
		rc = 1;
	free(r);
	if (rc != 1) {
		/* Nothing stale stays: its commands are closed until it is
		 * described again. */
		if (c)
			ootmeta_slot(name)->name = NULL;
		metatext_free(t);
		errno = EINVAL;
		return NULL;
	}
	c = ootmeta_slot(name);
	if (!(c->name = strdup(name))) {
		metatext_free(t);
		snprintf(why, size, "%s: out of memory", so);
		return NULL;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->mtime = st.st_mtim;
	c->size = st.st_size;
	c->text = t;
	return metatext_meta(t);
}
