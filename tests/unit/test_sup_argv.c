/*
 * The worker's command line (supervisor_exec.c, common/wargv.c) at the limits
 * a profile allows: PROFILE_MAX_OPTIONS options with long keys and
 * values of the longest length profile.c takes, plus -u. This binary,
 * run again as the worker, writes the argv it received to a file beside
 * its (faked) FunctionFS mount; the test compares it with what the
 * profile says, byte for byte. argv was once sized for 19 options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "loop.h"
#include "profile.h"
#include "run_until.h"
#include "supervisor.h"
#include "unit_self.h"
#include "wmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* profile.c refuses longer option values. */
#define VALUE_MAX 1024
#define KEY_LEN 200

/* The worker: argv, NUL-separated, into DIR/argv (DIR from -d), then
 * READY, then wait for gadgetd to go. */
static int worker_main(int argc, char **argv)
{
	struct wmsg_hdr h = { .type = WORKER_READY, .len = 0 };
	const char *dir = NULL;
	char path[4096], buf[64];
	int i, fd;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-d"))
			dir = argv[i + 1];
	if (!dir)
		return 2;
	snprintf(path, sizeof(path), "%s/argv", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 3;
	for (i = 0; i < argc; i++)
		if (write(fd, argv[i], strlen(argv[i]) + 1) < 0)
			return 4;
	close(fd);
	if (send(WORKER_FD, &h, sizeof(h), MSG_NOSIGNAL) < 0)
		return 5;
	while (recv(WORKER_FD, buf, sizeof(buf), 0) > 0)
		;
	return 0;
}

/* Option i: a key of KEY_LEN characters and a value of VALUE_MAX, both
 * unique to i, so that a lost, cut or swapped option shows. */
static void option(unsigned i, char *key, char *value)
{
	unsigned j;

	snprintf(key, KEY_LEN + 1, "k%02u_", i);
	for (j = strlen(key); j < KEY_LEN; j++)
		key[j] = 'a' + (i + j) % 26;
	key[KEY_LEN] = '\0';
	snprintf(value, VALUE_MAX + 1, "v%02u:", i);
	for (j = strlen(value); j < VALUE_MAX; j++)
		value[j] = 'A' + (i * 7 + j) % 26;
	value[VALUE_MAX] = '\0';
}

/* A profile whose function "w" has n options, one a line: option i is on
 * line 6 + i. */
static char *profile_text(unsigned n)
{
	size_t size = 4096 + n * (KEY_LEN + VALUE_MAX + 16), len = 0;
	char *buf = malloc(size), key[KEY_LEN + 1], value[VALUE_MAX + 1];
	unsigned i;

	assert_non_null(buf);
	len += snprintf(buf + len, size - len,
			"gadget: { vendor_id = 1; product_id = 2;\n"              /* 1 */
			"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
			"functions: {\n"                                          /* 3 */
			"  w: { type = \"ffs\"; plugin = \"p\"; user = \"root\";\n" /* 4 */
			"    options: {\n");                                      /* 5 */
	for (i = 0; i < n; i++) {
		option(i, key, value);
		len += snprintf(buf + len, size - len, "      %s = \"%s\";\n", key, value);
	}
	snprintf(buf + len, size - len, "    }; };\n};\nsets = ( { functions = [ \"w\" ]; } );\n");
	return buf;
}

struct result {
	bool done;
	int r;
	char text[256];
};

static struct supervisor *the_sup;

static void on_ready(int r, const char *text, void *data)
{
	struct result *res = data;

	res->done = true;
	res->r = r;
	snprintf(res->text, sizeof(res->text), "%s", text);
}

/* The argv the worker wrote, as an array of strings into buf. */
static int read_argv(const char *path, char *buf, size_t size, char **argv, int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len;
	char *p;

	assert_true(fd >= 0);
	len = read(fd, buf, size - 1);
	close(fd);
	assert_true(len > 0 && (size_t)len < size - 1);
	for (p = buf; p < buf + len && n < max; p += strlen(p) + 1)
		argv[n++] = p;
	return n;
}

static void test_max_options_reach_the_worker(void **state)
{
	char dir[] = "/tmp/test_sup_argv.XXXXXX", err[4096], mount[128], path[160];
	char key[KEY_LEN + 1], value[VALUE_MAX + 1], want[KEY_LEN + VALUE_MAX + 2];
	static char got[128 * 1024];
	char *argv[2 * PROFILE_MAX_OPTIONS + 32], *text;
	struct result ready = { 0 };
	struct config cfg = { 0 };
	struct profile *p;
	struct loop *l;
	unsigned i;
	int n, k;

	text = profile_text(PROFILE_MAX_OPTIONS);
	if (profile_parse("t.conf", text, &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	free(text);
	assert_int_equal(profile_ids_resolve(p, err, sizeof(err)), 0);
	assert_int_equal(p->functions[0].n_options, PROFILE_MAX_OPTIONS);
	/* The argv still names user root; the folder handed to the worker's
	 * user (fchown) is the test's own, so the test runs as anyone. */
	p->functions[0].uid = getuid();
	p->functions[0].gid = getgid();

	assert_non_null(mkdtemp(dir));
	cfg.ffs_dir = dir;
	cfg.run_dir = dir; /* the plugin's folder too, not the working directory */
	cfg.worker = unit_self();
	cfg.plugin_dir = "/nonexistent";
	cfg.restart_delay_ms = 60000;
	l = loop_new();
	the_sup = supervisor_new(l, &cfg, NULL, NULL, NULL);
	assert_int_equal(supervisor_start(the_sup, &p->functions[0]), 0);
	/* The worker is this test again, which takes seconds to start under
	 * qemu-user on a loaded machine: the ready timeout is the test's
	 * bound, not 5 s. */
	assert_int_equal(supervisor_wait_ready(the_sup, RUN_UNTIL_MS, on_ready, &ready),
			 0);
	RUN_UNTIL(l, ready.done);
	assert_true(ready.done);
	if (ready.r)
		fail_msg("worker not ready: %s", ready.text);

	snprintf(mount, sizeof(mount), "%s/w", dir);
	snprintf(path, sizeof(path), "%s/argv", mount);
	n = read_argv(path, got, sizeof(got), argv, sizeof(argv) / sizeof(*argv));
	/* worker -P SO -i NAME -d MOUNT -u USER -c CAPS, then -o KEY=VALUE
	 * for every option, in the profile's order. */
	assert_int_equal(n, 11 + 2 * PROFILE_MAX_OPTIONS);
	assert_string_equal(argv[1], "-P");
	assert_string_equal(argv[2], "/nonexistent/p.so");
	assert_string_equal(argv[3], "-i");
	assert_string_equal(argv[4], "w");
	assert_string_equal(argv[5], "-d");
	assert_string_equal(argv[6], mount);
	assert_string_equal(argv[7], "-u");
	assert_string_equal(argv[8], "root");
	assert_string_equal(argv[9], "-c");
	assert_string_equal(argv[10], "0");
	for (i = 0, k = 11; i < PROFILE_MAX_OPTIONS; i++, k += 2) {
		option(i, key, value);
		snprintf(want, sizeof(want), "%s=%s", key, value);
		assert_string_equal(argv[k], "-o");
		assert_string_equal(argv[k + 1], want);
	}

	supervisor_free(the_sup);
	loop_free(l);
	profile_free(p);
	unlink(path);
	rmdir(mount);
	rmdir(dir);
}

/* One option more is refused where it stands: file, line, field. */
static void test_one_option_too_many(void **state)
{
	char *text = profile_text(PROFILE_MAX_OPTIONS + 1), err[8192], want[64], key[KEY_LEN + 1];
	char value[VALUE_MAX + 1];
	struct profile *p;

	assert_int_equal(profile_parse("t.conf", text, &p, err, sizeof(err)), -EINVAL);
	assert_null(p);
	option(PROFILE_MAX_OPTIONS, key, value);
	snprintf(want, sizeof(want), "t.conf:%d: functions.w", 6 + PROFILE_MAX_OPTIONS);
	if (strncmp(err, want, strlen(want)) || !strstr(err, "more than 32 options"))
		fail_msg("message \"%s\", expected \"%s...: more than 32 options\"", err, want);
	free(text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_options_reach_the_worker),
		cmocka_unit_test(test_one_option_too_many),
	};

	if (argc > 1 && !strcmp(argv[1], "-P"))
		return worker_main(argc, argv);
	return cmocka_run_group_tests_name("sup_argv", tests, NULL, NULL);
}
