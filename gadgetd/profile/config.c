/*
 * config: gadgetd.conf, read with libconfig; every problem is reported as
 * "FILE:LINE: message" naming the setting.
 */
#include "config.h"
#include "cfgtext.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Relative paths are taken relative to the directory of the file. */
static char *config_path(const char *file, const char *value)
{
	const char *slash = strrchr(file, '/');
	char *out;

	if (value[0] == '/' || !slash)
		return strdup(value);
	if (asprintf(&out, "%.*s/%s", (int)(slash - file), file, value) < 0)
		return NULL;
	return out;
}

/* Profile names end up in a path: no "/", no dots, no upper case (so that
 * one file never goes by two names on a case-folding file system). */
bool config_profile_name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");

	return n > 0 && n < CONFIG_PROFILE_NAME_MAX && !s[n];
}

enum config_kind {
	CONFIG_KEY_STRING,
	CONFIG_KEY_NAME,
	CONFIG_KEY_PATH,
	CONFIG_KEY_MS,
	CONFIG_KEY_COUNT,   /* 1..CONFIG_RESTART_LIMIT_MAX */
	CONFIG_KEY_FOLLOW,  /* "none" or "logind": a bool */
};

/* A setting and where it lands in struct config. */
struct config_key {
	const char *key;
	enum config_kind kind;
	size_t off;
};

#define CONFIG_KEY(k, kind, field) { #k, kind, offsetof(struct config, field) }

static const struct config_key config_keys[] = {
	CONFIG_KEY(profile, CONFIG_KEY_STRING, profile),
	CONFIG_KEY(profile_dir, CONFIG_KEY_PATH, profile_dir),
	CONFIG_KEY(udc, CONFIG_KEY_NAME, udc),
	CONFIG_KEY(state_file, CONFIG_KEY_PATH, state_file),
	CONFIG_KEY(group, CONFIG_KEY_NAME, group),
	CONFIG_KEY(admin_group, CONFIG_KEY_NAME, admin_group),
	CONFIG_KEY(gadget_name, CONFIG_KEY_NAME, gadget_name),
	CONFIG_KEY(ffs_dir, CONFIG_KEY_PATH, ffs_dir),
	CONFIG_KEY(plugin_dir, CONFIG_KEY_PATH, plugin_dir),
	CONFIG_KEY(worker, CONFIG_KEY_PATH, worker),
	CONFIG_KEY(ready_timeout, CONFIG_KEY_MS, ready_timeout_ms),
	CONFIG_KEY(command_timeout, CONFIG_KEY_MS, command_timeout_ms),
	CONFIG_KEY(restart_delay, CONFIG_KEY_MS, restart_delay_ms),
	CONFIG_KEY(heartbeat_interval, CONFIG_KEY_MS, heartbeat_interval_ms),
	CONFIG_KEY(heartbeat_timeout, CONFIG_KEY_MS, heartbeat_timeout_ms),
	CONFIG_KEY(restart_limit, CONFIG_KEY_COUNT, restart_limit),
	CONFIG_KEY(restart_window, CONFIG_KEY_MS, restart_window_ms),
	CONFIG_KEY(switch_queue, CONFIG_KEY_COUNT, switch_queue),
	CONFIG_KEY(switch_queue_timeout, CONFIG_KEY_MS, switch_queue_timeout_ms),
	CONFIG_KEY(lock_follow, CONFIG_KEY_FOLLOW, lock_follow_logind),
};

/*
 * udc, group, admin_group and gadget_name end up as one component of a path (sysfs,
 * ConfigFS) or a group name: no "/", no "." or "..", nothing a shell or
 * the kernel would read differently.
 */
static bool config_component_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789_.-");

	return n > 0 && n < 64 && !s[n] && s[0] != '-' && strcmp(s, ".") &&
	       strcmp(s, "..");
}

static bool config_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* The text of a string setting, or NULL after writing why it is refused. */
static const char *config_string(const struct config_key *k, config_setting_t *s,
				 const char *file, char *err, size_t size)
{
	const char *v = config_setting_get_string(s);
	int line = config_setting_source_line(s);

	if (!v) {
		snprintf(err, size, "%s:%d: %s: expected a string", file, line, k->key);
		return NULL;
	}
	if (!*v || !config_printable(v) || strlen(v) > PATH_MAX - 64) {
		snprintf(err, size, "%s:%d: %s: expected 1..%d printable ASCII characters",
			 file, line, k->key, PATH_MAX - 64);
		return NULL;
	}
	if (k->kind == CONFIG_KEY_NAME && !config_component_ok(v)) {
		snprintf(err, size, "%s:%d: %s: \"%s\" is not a name (A-Z, a-z, 0-9, _, . and -; not . or ..)",
			 file, line, k->key, v);
		return NULL;
	}
	return v;
}

static void config_defaults(struct config *c, const char *file)
{
	c->profile_dir = config_path(file, "profiles");
	c->udc = strdup("auto");
	c->state_file = strdup(STATEDIR "/state");
	c->gadget_name = strdup("gadgetd");
	c->ffs_dir = strdup(RUNDIR "/gadgetd/ffs");
	c->plugin_dir = strdup(PLUGINDIR);
	c->worker = strdup(LIBEXECDIR "/gadgetd-worker");
	c->ready_timeout_ms = 5000;
	c->command_timeout_ms = 5000;
	c->restart_delay_ms = 200;
	c->run_dir = strdup(RUNDIR "/gadgetd");
	/* Three missed pings; a transfer never stops a worker's loop for
	 * that long (epio's I/O is asynchronous). */
	c->heartbeat_interval_ms = 2000;
	c->heartbeat_timeout_ms = 6000;
	c->restart_limit = 5;
	c->restart_window_ms = 60000;
	c->switch_queue = 8;
	c->switch_queue_timeout_ms = 60000;
}

static int config_set(struct config *c, const struct config_key *k,
		      config_setting_t *s, const char *file, char *err, size_t size)
{
	const char *str;
	char **sp;
	long long v;

	if (k->kind == CONFIG_KEY_MS) {
		if (config_setting_type(s) != CONFIG_TYPE_INT ||
		    (v = config_setting_get_int64(s)) < 1 || v > 600000) {
			snprintf(err, size, "%s:%d: %s: expected milliseconds (1..600000)",
				 file, config_setting_source_line(s), k->key);
			return -EINVAL;
		}
		*(unsigned *)((char *)c + k->off) = (unsigned)v; /* range checked */
		return 0;
	}
	if (k->kind == CONFIG_KEY_COUNT) {
		if (config_setting_type(s) != CONFIG_TYPE_INT ||
		    (v = config_setting_get_int64(s)) < 1 || v > CONFIG_RESTART_LIMIT_MAX) {
			snprintf(err, size, "%s:%d: %s: expected a count (1..%d)", file,
				 config_setting_source_line(s), k->key,
				 CONFIG_RESTART_LIMIT_MAX);
			return -EINVAL;
		}
		*(unsigned *)((char *)c + k->off) = (unsigned)v; /* range checked */
		return 0;
	}
	if (k->kind == CONFIG_KEY_FOLLOW) {
		str = config_setting_get_string(s);
		if (!str || (strcmp(str, "none") && strcmp(str, "logind"))) {
			snprintf(err, size, "%s:%d: %s: expected \"none\" or \"logind\"",
				 file, config_setting_source_line(s), k->key);
			return -EINVAL;
		}
		*(bool *)((char *)c + k->off) = !strcmp(str, "logind");
		return 0;
	}
	str = config_string(k, s, file, err, size);
	if (!str)
		return -EINVAL;
	sp = (char **)((char *)c + k->off);
	free(*sp);
	*sp = k->kind == CONFIG_KEY_PATH ? config_path(file, str) : strdup(str);
	return *sp ? 0 : -ENOMEM;
}

static int config_build(config_t *cfg, const char *file, struct config *c,
			char *err, size_t size)
{
	config_setting_t *root = config_root_setting(cfg);
	size_t len = 0;
	int i, r = 0;
	unsigned k;

	for (i = 0; i < config_setting_length(root); i++) {
		config_setting_t *s = config_setting_get_elem(root, i);
		for (k = 0; k < sizeof(config_keys) / sizeof(*config_keys); k++)
			if (!strcmp(config_keys[k].key, config_setting_name(s)))
				break;
		if (k == sizeof(config_keys) / sizeof(*config_keys)) {
			len += snprintf(err + len, len < size ? size - len : 0,
					"%s%s:%d: unknown setting \"%s\"", len ? "\n" : "",
					file, config_setting_source_line(s),
					config_setting_name(s));
			r = -EINVAL;
			continue;
		}
		if (config_set(c, &config_keys[k], s, file, err + (len < size ? len : size),
			       len < size ? size - len : 0) < 0) {
			r = -EINVAL;
			/* Once err is full, err + size is past its end. */
			if (len < size)
				len += strlen(err + len);
		}
	}
	/* A timeout shorter than the interval would kill a worker between
	 * two pings it answered. */
	if (!r && c->heartbeat_timeout_ms < c->heartbeat_interval_ms) {
		config_setting_t *t = config_lookup(cfg, "heartbeat_timeout");

		if (!t)
			t = config_lookup(cfg, "heartbeat_interval");
		snprintf(err, size, "%s:%d: heartbeat_timeout: %u ms is shorter than "
			 "heartbeat_interval (%u ms)", file, config_setting_source_line(t),
			 c->heartbeat_timeout_ms, c->heartbeat_interval_ms);
		return -EINVAL;
	}
	if (!r && !c->profile) {
		snprintf(err, size, "%s:1: profile is missing (e.g. profile = \"android\";)", file);
		return -EINVAL;
	}
	if (!r && !config_profile_name_ok(c->profile)) {
		snprintf(err, size, "%s:%d: profile: \"%s\" is not a profile name (1..%d of a-z, 0-9, _ and -)",
			 file, config_setting_source_line(config_lookup(cfg, "profile")),
			 c->profile, CONFIG_PROFILE_NAME_MAX - 1);
		return -EINVAL;
	}
	return r;
}

int config_parse(const char *path, const char *text, struct config **out,
		 char *err, size_t err_size)
{
	struct config *c = calloc(1, sizeof(*c));
	config_t cfg;
	int r;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	if (err_size)
		err[0] = '\0';
	c->path = strdup(path);
	config_defaults(c, path);
	config_init(&cfg);
	r = cfgtext_parse(&cfg, path, text, err, err_size);
	if (!r)
		r = config_build(&cfg, path, c, err, err_size);
	config_destroy(&cfg);
	if (r < 0) {
		config_free(c);
		return r;
	}
	*out = c;
	return 0;
}

int config_load(const char *path, struct config **out, char *err,
		size_t err_size)
{
	char *text = NULL;
	int r;

	*out = NULL;
	r = cfgtext_load(path, &text, err, err_size);
	if (r < 0)
		return r;
	r = config_parse(path, text, out, err, err_size);
	free(text);
	return r;
}

void config_free(struct config *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->profile);
	free(c->profile_dir);
	free(c->udc);
	free(c->state_file);
	free(c->group);
	free(c->admin_group);
	free(c->gadget_name);
	free(c->ffs_dir);
	free(c->plugin_dir);
	free(c->worker);
	free(c->run_dir);
	free(c);
}

void config_profile_path(const struct config *c, const char *name, char *buf,
			 size_t size)
{
	snprintf(buf, size, "%s/%s.conf", c->profile_dir, name);
}

/* The file behind fd must be something only root (or we) could have put
 * there: a regular file, not writable by group or others. */
static int config_profile_check(int fd, const char *path, char *err, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int r = -errno;
		snprintf(err, size, "%s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, size, "%s: not a regular file; refused", path);
		return -EINVAL;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		snprintf(err, size, "%s: owned by uid %u with mode %04o; a profile must "
			 "be owned by root and writable by nobody else", path,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int config_profile_read(const struct config *c, const char *name, char **text,
			char *path, size_t path_size, char *err, size_t err_size)
{
	char file[CONFIG_PROFILE_NAME_MAX + 8];
	int dfd, fd, r;

	*text = NULL;
	if (path_size)
		path[0] = '\0';
	if (!config_profile_name_ok(name)) {
		snprintf(err, err_size, "\"%.*s\" is not a profile name (1..%d of a-z, 0-9, _ and -)",
			 CONFIG_PROFILE_NAME_MAX, name, CONFIG_PROFILE_NAME_MAX - 1);
		return -EINVAL;
	}
	config_profile_path(c, name, path, path_size);
	snprintf(file, sizeof(file), "%s.conf", name);
	dfd = open(c->profile_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		snprintf(err, err_size, "profile_dir %s: %s", c->profile_dir, strerror(errno));
		return r;
	}
	/* The name is one component, so O_NOFOLLOW covers every link on the
	 * way; O_NONBLOCK keeps a planted FIFO from stalling the daemon. */
	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	r = fd < 0 ? -errno : 0;
	close(dfd);
	if (r == -ELOOP) {
		snprintf(err, err_size, "%s: a symbolic link; profiles are not read through links",
			 path);
		return r;
	}
	if (r < 0) {
		snprintf(err, err_size, "%s: %s", path, strerror(-r));
		return r;
	}
	r = config_profile_check(fd, path, err, err_size);
	if (!r)
		r = cfgtext_read_fd(fd, path, text, err, err_size);
	close(fd);
	return r;
}

static int config_conf_filter(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return l > 5 && !strcmp(de->d_name + l - 5, ".conf");
}

int config_profile_scan(const struct config *c, config_profile_fn fn, void *data)
{
	char name[CONFIG_PROFILE_NAME_MAX];
	struct dirent **names;
	struct stat st;
	int i, n = scandir(c->profile_dir, &names, config_conf_filter, alphasort);
	int dfd;

	if (n < 0)
		return -errno;
	dfd = open(c->profile_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < n; i++) {
		const char *file = names[i]->d_name;
		size_t l = strlen(file) - 5;
		struct config_profile_entry e = { .file = file };

		if (l < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)l, file);
			e.name = config_profile_name_ok(name) ? name : NULL;
		}
		e.regular = dfd >= 0 && fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode);
		fn(&e, data);
		free(names[i]);
	}
	free(names);
	if (dfd >= 0)
		close(dfd);
	return n;
}
