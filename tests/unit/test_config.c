/*
 * Unit tests for gadgetd/profile/config.c: defaults, paths relative to the file,
 * and every refused setting named with FILE:LINE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfgtext.h"
#include "config.h"

#ifndef PROFILES_DIR
#define PROFILES_DIR "profiles" /* make unit runs from the repository root */
#endif

static char err[4096];

static int parse(const char *text, struct config **c)
{
	return config_parse("/etc/gadgetd/gadgetd.conf", text, c, err, sizeof(err));
}

/* err holds a message with every key word given (NULL-terminated). */
static void assert_err(const char *first, ...)
{
	const char *kw = first;
	va_list ap;

	va_start(ap, first);
	for (; kw; kw = va_arg(ap, const char *))
		if (!strstr(err, kw))
			fail_msg("\"%s\" lacks \"%s\"", err, kw);
	va_end(ap);
}

/* gadgetd.conf goes through the same front end as a profile (cfgtext.c):
 * what libconfig would take but gadgetd must not is refused, with the
 * line. */
static void test_shared_front_end(void **state)
{
	struct config *c;
	char *big;

	assert_int_equal(parse("profile = \"a\";\n@include \"/etc/passwd\"\n", &c), -EINVAL);
	assert_null(c);
	assert_err("gadgetd.conf:2: ", "@include", "not allowed", NULL);
	/* libconfig keeps 32 bits of it: 4294967297 would read as 1 ms. */
	assert_int_equal(parse("profile = \"a\";\nready_timeout = 4294967297;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "integer 4294967297 is too large", NULL);
	big = malloc(CFGTEXT_MAX + 2);
	assert_non_null(big);
	memset(big, '#', CFGTEXT_MAX + 1);
	big[CFGTEXT_MAX + 1] = '\0';
	assert_int_equal(parse(big, &c), -EFBIG);
	free(big);
}

static void test_defaults(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"android\";\n", &c), 0);
	assert_string_equal(c->path, "/etc/gadgetd/gadgetd.conf");
	assert_string_equal(c->profile, "android");
	assert_string_equal(c->profile_dir, "/etc/gadgetd/profiles");
	assert_string_equal(c->udc, "auto");
	assert_string_equal(c->state_file, STATEDIR "/state");
	assert_null(c->group);
	assert_string_equal(c->gadget_name, "gadgetd");
	assert_string_equal(c->ffs_dir, RUNDIR "/gadgetd/ffs");
	assert_string_equal(c->plugin_dir, PLUGINDIR);
	assert_string_equal(c->worker, LIBEXECDIR "/gadgetd-worker");
	assert_int_equal(c->ready_timeout_ms, 5000);
	assert_int_equal(c->command_timeout_ms, 5000);
	assert_int_equal(c->restart_delay_ms, 200);
	assert_int_equal(c->heartbeat_interval_ms, 2000);
	assert_int_equal(c->heartbeat_timeout_ms, 6000);
	assert_int_equal(c->restart_limit, 5);
	assert_int_equal(c->restart_window_ms, 60000);
	config_free(c);
}

/* lock_follow: "none" (the default) or "logind"; anything else, a
 * number, a boolean, another case or an empty string, is refused with
 * the file, the line and the setting. */
static void test_lock_follow(void **state)
{
	static const char *const bad[] = {
		"lock_follow = true;", "lock_follow = 1;", "lock_follow = \"\";",
		"lock_follow = \"Logind\";", "lock_follow = \"logind \";",
		"lock_follow = \"yes\";", "lock_follow = [ \"logind\" ];",
		"lock_follow = { a = 1; };", "lock_follow = \"logind\\u0000\";",
	};
	char text[128];
	struct config *c;
	unsigned i;

	assert_int_equal(parse("profile = \"a\";\n", &c), 0);
	assert_false(c->lock_follow_logind);
	config_free(c);
	assert_int_equal(parse("profile = \"a\";\nlock_follow = \"logind\";\n", &c), 0);
	assert_true(c->lock_follow_logind);
	config_free(c);
	assert_int_equal(parse("lock_follow = \"none\";\nprofile = \"a\";\n", &c), 0);
	assert_false(c->lock_follow_logind);
	config_free(c);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "profile = \"a\";\n\n%s\n", bad[i]);
		c = (struct config *)1;
		if (parse(text, &c) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_null(c);
		if (strstr(bad[i], "\\u0000"))
			continue; /* libconfig's own error */
		assert_err("gadgetd.conf:3: lock_follow: expected \"none\" or \"logind\"", NULL);
	}
}

static void test_all_settings(void **state)
{
	static const char text[] =
		"profile = \"lab-2_x\";\n"
		"profile_dir = \"/opt/p\";\n"
		"udc = \"dummy_udc.0\";\n"
		"state_file = \"state\";\n"
		"group = \"plugdev\";\n"
		"gadget_name = \"g1\";\n"
		"ffs_dir = \"../ffs\";\n"
		"plugin_dir = \"/usr/lib/x\";\n"
		"worker = \"bin/w\";\n"
		"ready_timeout = 100;\n"
		"command_timeout = 30000;\n"
		"restart_delay = 3000;\n"
		"heartbeat_interval = 500;\n"
		"heartbeat_timeout = 500;\n"
		"restart_limit = 64;\n"
		"restart_window = 10000;\n";
	struct config *c;
	char path[256];

	assert_int_equal(parse(text, &c), 0);
	assert_string_equal(c->profile, "lab-2_x");
	assert_string_equal(c->profile_dir, "/opt/p");
	assert_string_equal(c->udc, "dummy_udc.0");
	/* relative paths are taken from the file's directory */
	assert_string_equal(c->state_file, "/etc/gadgetd/state");
	assert_string_equal(c->ffs_dir, "/etc/gadgetd/../ffs");
	assert_string_equal(c->worker, "/etc/gadgetd/bin/w");
	assert_string_equal(c->plugin_dir, "/usr/lib/x");
	assert_string_equal(c->group, "plugdev");
	assert_string_equal(c->gadget_name, "g1");
	assert_int_equal(c->ready_timeout_ms, 100);
	assert_int_equal(c->command_timeout_ms, 30000);
	assert_int_equal(c->restart_delay_ms, 3000);
	assert_int_equal(c->heartbeat_interval_ms, 500);
	assert_int_equal(c->heartbeat_timeout_ms, 500);
	assert_int_equal(c->restart_limit, 64);
	assert_int_equal(c->restart_window_ms, 10000);
	config_profile_path(c, "android", path, sizeof(path));
	assert_string_equal(path, "/opt/p/android.conf");
	config_free(c);
}

static void test_missing_profile(void **state)
{
	struct config *c = (struct config *)1;

	assert_int_equal(parse("udc = \"auto\";\n", &c), -EINVAL);
	assert_null(c);
	assert_err("/etc/gadgetd/gadgetd.conf:1: ", "profile is missing", NULL);
}

static void test_bad_profile_name(void **state)
{
	struct config *c;

	assert_int_equal(parse("\nprofile = \"../etc/x\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "profile", "\"../etc/x\"", "not a profile name", NULL);
	assert_int_equal(parse("profile = \"\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:1: ", "profile", NULL);
	/* Upper case and dots are not in [a-z0-9_-]. */
	assert_int_equal(parse("profile = \"Android\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:1: ", "profile", "\"Android\"", "a-z, 0-9, _ and -", NULL);
	assert_int_equal(parse("profile = \"lab.old\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:1: ", "\"lab.old\"", NULL);
}

static void test_profile_name_rules(void **state)
{
	char name[CONFIG_PROFILE_NAME_MAX + 1];

	assert_true(config_profile_name_ok("android"));
	assert_true(config_profile_name_ok("lab-2_x"));
	assert_true(config_profile_name_ok("0"));
	assert_false(config_profile_name_ok(""));
	assert_false(config_profile_name_ok("A"));
	assert_false(config_profile_name_ok("../x"));
	assert_false(config_profile_name_ok(".."));
	assert_false(config_profile_name_ok("a/b"));
	assert_false(config_profile_name_ok("a b"));
	assert_false(config_profile_name_ok("a\n"));
	assert_false(config_profile_name_ok("caf\xc3\xa9"));
	memset(name, 'a', CONFIG_PROFILE_NAME_MAX - 1);
	name[CONFIG_PROFILE_NAME_MAX - 1] = '\0';
	assert_true(config_profile_name_ok(name));
	name[CONFIG_PROFILE_NAME_MAX - 1] = 'a';
	name[CONFIG_PROFILE_NAME_MAX] = '\0';
	assert_false(config_profile_name_ok(name));
}

static void test_admin_group(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nadmin_group = \"gadgetadm\";\n", &c), 0);
	assert_string_equal(c->admin_group, "gadgetadm");
	assert_null(c->group);
	config_free(c);
	assert_int_equal(parse("profile = \"a\";\n", &c), 0);
	assert_null(c->admin_group);
	config_free(c);
	assert_int_equal(parse("profile = \"a\";\n\nadmin_group = 0;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:3: ", "admin_group", "expected a string", NULL);
	assert_int_equal(parse("profile = \"a\";\nadmin_group = \"\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "admin_group", NULL);
	assert_int_equal(parse("profile = \"a\";\nadmin_group = \"../wheel\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "admin_group", "\"../wheel\"", "not a name", NULL);
	assert_int_equal(parse("profile = \"a\";\nadmin_group = \"a b\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "admin_group", NULL);
	assert_int_equal(parse("profile = \"a\";\nadmin_group = [\"x\"];\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "admin_group", NULL);
	assert_int_equal(parse("profile = \"a\";\nadmin_group = \"-x\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "admin_group", NULL);
}

/* A temporary profile_dir for config_profile_read(). */
struct pdir {
	char dir[64];
	struct config *cfg;
};

static void pdir_new(struct pdir *d)
{
	char text[128];

	snprintf(d->dir, sizeof(d->dir), "/tmp/test_config_p.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	snprintf(text, sizeof(text), "profile = \"a\";\nprofile_dir = \"%s\";\n", d->dir);
	assert_int_equal(parse(text, &d->cfg), 0);
}

static void pdir_put(struct pdir *d, const char *file, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", d->dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void pdir_free(struct pdir *d)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->dir);
	assert_int_equal(system(cmd), 0);
	config_free(d->cfg);
}

static void test_profile_read(void **state)
{
	struct pdir d;
	char path[256], *text;

	pdir_new(&d);
	pdir_put(&d, "lab.conf", "gadget: {};\n", 0644);
	assert_int_equal(config_profile_read(d.cfg, "lab", &text, path, sizeof(path),
					     err, sizeof(err)), 0);
	assert_string_equal(text, "gadget: {};\n");
	assert_non_null(strstr(path, "/lab.conf"));
	free(text);
	assert_int_equal(config_profile_read(d.cfg, "nosuch", &text, path, sizeof(path),
					     err, sizeof(err)), -ENOENT);
	assert_null(text);
	assert_err("nosuch.conf", "No such file", NULL);
	pdir_free(&d);
}

static void test_profile_read_bad_names(void **state)
{
	static const char *const bad[] = { "../x", "../../tmp/x", "A", "", "lab.conf",
					   "/etc/passwd", "a/../lab", "lab\n" };
	char path[256], *text, name[CONFIG_PROFILE_NAME_MAX + 2];
	struct pdir d;
	size_t i;

	pdir_new(&d);
	pdir_put(&d, "lab.conf", "gadget: {};\n", 0644);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		text = (char *)1;
		assert_int_equal(config_profile_read(d.cfg, bad[i], &text, path, sizeof(path),
						     err, sizeof(err)), -EINVAL);
		assert_null(text);
		assert_err("is not a profile name", "a-z, 0-9, _ and -", NULL);
	}
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(config_profile_read(d.cfg, name, &text, path, sizeof(path),
					     err, sizeof(err)), -EINVAL);
	pdir_free(&d);
}

struct scan_seen {
	char text[512];
	size_t len;
};

static void scan_note(const struct config_profile_entry *e, void *data)
{
	struct scan_seen *s = data;

	s->len += snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s=%s%s ",
			   e->file, e->name ? e->name : "(bad)", e->regular ? "" : "!");
}

/* The one scan of profile_dir: *.conf only, sorted, with bad names and
 * links passed on as such. */
static void test_profile_scan(void **state)
{
	struct scan_seen seen = { .len = 0 };
	char path[256];
	struct pdir d;

	pdir_new(&d);
	pdir_put(&d, "b.conf", "x\n", 0644);
	pdir_put(&d, "a.conf", "x\n", 0644);
	pdir_put(&d, "Up.conf", "x\n", 0644);
	pdir_put(&d, "notes.txt", "x\n", 0644);
	pdir_put(&d, ".conf", "x\n", 0644);
	snprintf(path, sizeof(path), "%s/link.conf", d.dir);
	assert_int_equal(symlink("a.conf", path), 0);
	assert_int_equal(config_profile_scan(d.cfg, scan_note, &seen), 4);
	assert_string_equal(seen.text, "Up.conf=(bad) a.conf=a b.conf=b link.conf=link! ");
	free(d.cfg->profile_dir);
	d.cfg->profile_dir = strdup("/nonexistent/gadgetd");
	assert_int_equal(config_profile_scan(d.cfg, scan_note, &seen), -ENOENT);
	pdir_free(&d);
}

static void test_profile_read_refuses_links_and_odd_files(void **state)
{
	char path[256], target[256], *text;
	struct pdir d;

	pdir_new(&d);
	pdir_put(&d, "real.conf", "gadget: {};\n", 0644);
	/* A link to a profile beside it is refused like one to /tmp. */
	snprintf(path, sizeof(path), "%s/link.conf", d.dir);
	assert_int_equal(symlink("real.conf", path), 0);
	assert_int_equal(config_profile_read(d.cfg, "link", &text, path, sizeof(path),
					     err, sizeof(err)), -ELOOP);
	assert_null(text);
	assert_err("link.conf", "symbolic link", NULL);
	snprintf(path, sizeof(path), "%s/dangling.conf", d.dir);
	assert_int_equal(symlink("/nonexistent/x.conf", path), 0);
	assert_int_equal(config_profile_read(d.cfg, "dangling", &text, path, sizeof(path),
					     err, sizeof(err)), -ELOOP);
	/* A FIFO would block the daemon: refused without opening for long. */
	snprintf(path, sizeof(path), "%s/fifo.conf", d.dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(config_profile_read(d.cfg, "fifo", &text, path, sizeof(path),
					     err, sizeof(err)), -EINVAL);
	assert_err("fifo.conf", "not a regular file", NULL);
	snprintf(target, sizeof(target), "%s/dir.conf", d.dir);
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(config_profile_read(d.cfg, "dir", &text, path, sizeof(path),
					     err, sizeof(err)), -EINVAL);
	/* Writable by others: anyone could have changed it. */
	pdir_put(&d, "open.conf", "gadget: {};\n", 0666);
	assert_int_equal(config_profile_read(d.cfg, "open", &text, path, sizeof(path),
					     err, sizeof(err)), -EPERM);
	assert_err("open.conf", "mode 0666", "writable by nobody else", NULL);
	pdir_put(&d, "grp.conf", "gadget: {};\n", 0664);
	assert_int_equal(config_profile_read(d.cfg, "grp", &text, path, sizeof(path),
					     err, sizeof(err)), -EPERM);
	pdir_free(&d);
}

static void test_profile_read_size_and_nul(void **state)
{
	char path[256], *text, *big;
	struct pdir d;
	FILE *f;

	pdir_new(&d);
	pdir_put(&d, "nul.conf", "", 0644);
	snprintf(path, sizeof(path), "%s/nul.conf", d.dir);
	f = fopen(path, "w");
	fwrite("a = 1;\0b = 2;\n", 1, 15, f);
	fclose(f);
	assert_int_equal(config_profile_read(d.cfg, "nul", &text, path, sizeof(path),
					     err, sizeof(err)), -EINVAL);
	assert_err("nul.conf:1: ", "NUL byte", NULL);
	big = malloc(CFGTEXT_MAX + 2);
	memset(big, '#', CFGTEXT_MAX + 1);
	big[CFGTEXT_MAX + 1] = '\0';
	pdir_put(&d, "big.conf", big, 0644);
	assert_int_equal(config_profile_read(d.cfg, "big", &text, path, sizeof(path),
					     err, sizeof(err)), -EFBIG);
	assert_err("big.conf:1: ", "64 KiB", NULL);
	big[CFGTEXT_MAX] = '\0';
	pdir_put(&d, "max.conf", big, 0644);
	assert_int_equal(config_profile_read(d.cfg, "max", &text, path, sizeof(path),
					     err, sizeof(err)), 0);
	assert_int_equal(strlen(text), CFGTEXT_MAX);
	free(text);
	free(big);
	pdir_free(&d);
}

static void test_unknown_setting(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nudcc = \"x\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "unknown setting \"udcc\"", NULL);
}

static void test_bad_timeouts(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nready_timeout = 0;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "ready_timeout", "1..600000", NULL);
	assert_int_equal(parse("profile = \"a\";\n\nready_timeout = \"5\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:3: ", "ready_timeout", NULL);
	assert_int_equal(parse("profile = \"a\";\nready_timeout = 600001;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "ready_timeout", NULL);
	/* bind_timeout was documented but never used: gone, and named. */
	assert_int_equal(parse("profile = \"a\";\nbind_timeout = 5000;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "unknown setting \"bind_timeout\"", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_delay = 0;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_delay", "1..600000", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_delay = 2.5;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_delay", NULL);
}

/* The heartbeat and crash-loop settings: ranges, types, and a timeout
 * shorter than the interval, each named with its line. */
static void test_bad_heartbeat(void **state)
{
	struct config *c = (struct config *)1;

	assert_int_equal(parse("profile = \"a\";\nheartbeat_interval = 0;\n", &c), -EINVAL);
	assert_null(c);
	assert_err("gadgetd.conf:2: ", "heartbeat_interval", "1..600000", NULL);
	assert_int_equal(parse("profile = \"a\";\nheartbeat_timeout = \"6\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "heartbeat_timeout", NULL);
	assert_int_equal(parse("profile = \"a\";\n\nheartbeat_timeout = 1000;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:3: ", "heartbeat_timeout", "shorter than",
		   "heartbeat_interval (2000 ms)", NULL);
	assert_int_equal(parse("profile = \"a\";\nheartbeat_interval = 9000;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "heartbeat_timeout: 6000 ms", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_limit = 0;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_limit", "1..64", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_limit = 65;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_limit", "1..64", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_limit = 2.0;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_limit", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_window = -5;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "restart_window", "1..600000", NULL);
	assert_int_equal(parse("profile = \"a\";\nrestart_limit = 1;\nrestart_window = 1;\n",
			       &c), 0);
	assert_int_equal(c->restart_limit, 1);
	config_free(c);
}

static void test_wrong_types(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nudc = 1;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "udc", "expected a string", NULL);
	assert_int_equal(parse("profile = 5;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:1: ", "profile", "expected a string", NULL);
}

/* These become one path component in ConfigFS or sysfs. */
static void test_names_are_one_component(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\ngadget_name = \"../evil\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "gadget_name", "\"../evil\"", NULL);
	assert_int_equal(parse("profile = \"a\";\ngadget_name = \"..\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "gadget_name", NULL);
	assert_int_equal(parse("profile = \"a\";\nudc = \"a/b\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "udc", NULL);
	assert_int_equal(parse("profile = \"a\";\ngroup = \"-x\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "group", NULL);
}

static void test_empty_and_unprintable(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nffs_dir = \"\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "ffs_dir", "printable", NULL);
	assert_int_equal(parse("profile = \"a\";\nworker = \"/x\\ty\";\n", &c), -EINVAL);
	assert_err("gadgetd.conf:2: ", "worker", "printable", NULL);
}

static void test_syntax_error(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\n\nudc = ;\n", &c), -EINVAL);
	assert_err("gadgetd.conf:3: ", "syntax error", NULL);
}

static void test_every_problem_is_reported(void **state)
{
	struct config *c;

	assert_int_equal(parse("profile = \"a\";\nfoo = 1;\nready_timeout = -1;\nbar = 2;\n",
			       &c), -EINVAL);
	assert_err("gadgetd.conf:2: unknown setting \"foo\"", "gadgetd.conf:3: ready_timeout",
		   "gadgetd.conf:4: unknown setting \"bar\"", NULL);
}

static void test_small_error_buffer(void **state)
{
	struct config *c;
	char small[12];

	assert_int_equal(config_parse("/x/y.conf", "foo = 1;\nbar = 2;\n", &c, small,
				      sizeof(small)), -EINVAL);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX";
	static const char text[] = "profile = \"lab\";\nprofile_dir = \"p\";\n";
	struct config *c;
	char want[64];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(config_load(path, &c, err, sizeof(err)), 0);
	assert_string_equal(c->profile, "lab");
	assert_string_equal(c->profile_dir, "/tmp/p");
	snprintf(want, sizeof(want), "%s", path);
	assert_string_equal(c->path, want);
	config_free(c);
	unlink(path);
	assert_int_equal(config_load(path, &c, err, sizeof(err)), -ENOENT);
	assert_err(path, "No such file", NULL);
}

static void test_shipped_config(void **state)
{
	struct config *c;

	if (config_load(PROFILES_DIR "/gadgetd.conf", &c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(c->profile, "android");
	assert_string_equal(c->udc, "auto");
	assert_string_equal(c->group, "plugdev");
	assert_string_equal(c->state_file, "/var/lib/gadgetd/state");
	assert_string_equal(c->profile_dir, PROFILES_DIR "/profiles");
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_settings),
		cmocka_unit_test(test_lock_follow),
		cmocka_unit_test(test_missing_profile),
		cmocka_unit_test(test_bad_profile_name),
		cmocka_unit_test(test_profile_name_rules),
		cmocka_unit_test(test_admin_group),
		cmocka_unit_test(test_profile_read),
		cmocka_unit_test(test_profile_read_bad_names),
		cmocka_unit_test(test_profile_scan),
		cmocka_unit_test(test_profile_read_refuses_links_and_odd_files),
		cmocka_unit_test(test_profile_read_size_and_nul),
		cmocka_unit_test(test_unknown_setting),
		cmocka_unit_test(test_shared_front_end),
		cmocka_unit_test(test_bad_timeouts),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_names_are_one_component),
		cmocka_unit_test(test_empty_and_unprintable),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_every_problem_is_reported),
		cmocka_unit_test(test_small_error_buffer),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_bad_heartbeat),
		cmocka_unit_test(test_shipped_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
