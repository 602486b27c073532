/*
 * state: a small file of KEY=VALUE lines. It is ours, but a damaged disk
 * or a stray edit can leave anything in it, and its names end up in paths
 * and switch requests: every line is checked, and anything unexpected
 * makes the whole file void rather than half-read.
 */
#include "state.h"
#include "fsutil.h"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum state_key {
	STATE_PROFILE,
	STATE_SET,
	STATE_CONF_PROFILE,
	STATE_N_KEYS,
};

static const char *const state_keys[STATE_N_KEYS] = {
	[STATE_PROFILE] = "profile",
	[STATE_SET] = "set",
	[STATE_CONF_PROFILE] = "conf_profile",
};

static int state_read(const char *path, char *buf, size_t *len, char *err,
		      size_t err_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st = { 0 };
	ssize_t got = 1;
	int r = 0;

	*len = 0;
	if (fd < 0) {
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		snprintf(err, err_size, "%s: not a regular file; ignored", path);
		close(fd);
		return r;
	}
	while (*len <= STATE_FILE_MAX && got > 0) {
		got = read(fd, buf + *len, STATE_FILE_MAX + 1 - *len);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got > 0)
			*len += got;
	}
	if (got < 0) {
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
	} else if (*len > STATE_FILE_MAX) {
		snprintf(err, err_size, "%s: larger than %d bytes; not a state file",
			 path, STATE_FILE_MAX);
		r = -EINVAL;
	}
	close(fd);
	return r;
}

/* A set is function names (a-z, 0-9, _) joined by commas; "" is off. */
static bool state_set_ok(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_,") == strlen(s);
}

/* One "KEY=VALUE" line (without its newline) into st; seen tracks keys. */
static int state_line(const char *path, unsigned n, char *line, struct state *st,
		      bool seen[STATE_N_KEYS], char *err, size_t err_size)
{
	static const size_t sizes[STATE_N_KEYS] = {
		[STATE_PROFILE] = sizeof(st->profile),
		[STATE_SET] = sizeof(st->set),
		[STATE_CONF_PROFILE] = sizeof(st->conf_profile),
	};
	char *dst[STATE_N_KEYS] = {
		[STATE_PROFILE] = st->profile,
		[STATE_SET] = st->set,
		[STATE_CONF_PROFILE] = st->conf_profile,
	};
	char *eq = strchr(line, '=');
	enum state_key k;

	if (!eq) {
		snprintf(err, err_size, "%s:%u: not a KEY=VALUE line", path, n);
		return -EINVAL;
	}
	*eq = '\0';
	for (k = 0; k < STATE_N_KEYS && strcmp(line, state_keys[k]); k++)
		;
	if (k == STATE_N_KEYS) {
		snprintf(err, err_size, "%s:%u: unknown key \"%.32s\"", path, n, line);
		return -EINVAL;
	}
	if (seen[k]) {
		snprintf(err, err_size, "%s:%u: %s: given twice", path, n, line);
		return -EINVAL;
	}
	seen[k] = true;
	if (strlen(eq + 1) >= sizes[k]) {
		snprintf(err, err_size, "%s:%u: %s: longer than %zu bytes", path, n,
			 line, sizes[k] - 1);
		return -EINVAL;
	}
	if (k == STATE_SET ? !state_set_ok(eq + 1) : !config_profile_name_ok(eq + 1)) {
		snprintf(err, err_size, "%s:%u: %s: not a %s name", path, n, line,
			 k == STATE_SET ? "set" : "profile");
		return -EINVAL;
	}
	memcpy(dst[k], eq + 1, strlen(eq + 1) + 1);
	return 0;
}

static int state_parse(const char *path, char *buf, size_t len, struct state *st,
		       char *err, size_t err_size)
{
	bool seen[STATE_N_KEYS] = { false };
	char *line = buf, *nl;
	unsigned n = 0;
	int r;

	nl = memchr(buf, '\0', len);
	if (nl) {
		for (line = buf, n = 1; line < nl; line++)
			n += *line == '\n';
		snprintf(err, err_size, "%s:%u: a NUL byte", path, n);
		return -EINVAL;
	}
	if (!len) {
		snprintf(err, err_size, "%s:1: empty", path);
		return -EINVAL;
	}
	buf[len] = '\0';
	while (*line) {
		n++;
		nl = strchr(line, '\n');
		if (!nl) {
			snprintf(err, err_size, "%s:%u: no newline at the end (cut short?)",
				 path, n);
			return -EINVAL;
		}
		*nl = '\0';
		r = state_line(path, n, line, st, seen, err, err_size);
		if (r < 0)
			return r;
		line = nl + 1;
	}
	if (!seen[STATE_PROFILE] || !seen[STATE_SET]) {
		snprintf(err, err_size, "%s:%u: %s= is missing", path, n + 1,
			 seen[STATE_PROFILE] ? "set" : "profile");
		return -EINVAL;
	}
	return 0;
}

int state_load(const char *path, struct state *st, char *err, size_t err_size)
{
	char buf[STATE_FILE_MAX + 2];
	size_t len;
	int r;

	memset(st, 0, sizeof(*st));
	if (err_size)
		err[0] = '\0';
	r = state_read(path, buf, &len, err, err_size);
	if (!r)
		r = state_parse(path, buf, len, st, err, err_size);
	if (r < 0)
		memset(st, 0, sizeof(*st));
	return r;
}

int state_save(const char *path, const struct state *st)
{
	const struct fsutil_mkdir dirs = {
		.flags = FSUTIL_MKDIR_PARENTS,
		.mode = 0755,
		.parent_mode = 0755,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	char text[STATE_FILE_MAX];
	int len, r;

	len = snprintf(text, sizeof(text), "profile=%s\nset=%s\n", st->profile, st->set);
	if (st->conf_profile[0])
		len += snprintf(text + len, sizeof(text) - len, "conf_profile=%s\n",
				st->conf_profile);
	r = fsutil_mkdir_p(path, &dirs, NULL);
	if (r < 0)
		return r;
	close(r);
	return fsutil_write_atomic(path, text, len, 0644);
}

/* The marker's path in run_dir; -ENAMETOOLONG when it does not fit. */
static int state_lock_path(const char *run_dir, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/locked", run_dir);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool state_lock_load(const char *run_dir)
{
	char path[PATH_MAX];
	struct stat st;

	/* Whatever stands there, or a path too long to look: locked. */
	if (state_lock_path(run_dir, path, sizeof(path)) < 0)
		return true;
	return lstat(path, &st) == 0 || errno != ENOENT;
}

int state_lock_save(const char *run_dir, bool locked)
{
	char path[PATH_MAX];
	int r = state_lock_path(run_dir, path, sizeof(path));

	if (r < 0)
		return r;
	if (locked)
		return fsutil_write_atomic(path, "1\n", 2, 0644);
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}
