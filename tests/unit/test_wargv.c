/* common/wargv.c: every field through encode and decode, and the argv a
 * worker must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wargv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int count(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

static void assert_same(const struct wargv *a, const struct wargv *b)
{
	unsigned i;

	assert_string_equal(a->worker, b->worker);
	if (a->plugin || b->plugin)
		assert_string_equal(a->plugin, b->plugin);
	if (a->exec || b->exec)
		assert_string_equal(a->exec, b->exec);
	if (a->bind || b->bind)
		assert_string_equal(a->bind, b->bind);
	assert_string_equal(a->instance, b->instance);
	assert_string_equal(a->dir, b->dir);
	if (a->user || b->user)
		assert_string_equal(a->user, b->user);
	if (a->group || b->group)
		assert_string_equal(a->group, b->group);
	assert_int_equal(a->have_caps, b->have_caps);
	assert_int_equal(a->caps, b->caps);
	assert_int_equal(a->root, b->root);
	assert_int_equal(a->verbose, b->verbose);
	assert_int_equal(a->locked, b->locked);
	assert_int_equal(a->no_aio_guard, b->no_aio_guard);
	assert_false(b->help);
	assert_int_equal(a->n_opts, b->n_opts);
	for (i = 0; i < a->n_opts; i++)
		assert_string_equal(a->opts[i], b->opts[i]);
	assert_int_equal(a->n_args, b->n_args);
	for (i = 0; i < a->n_args; i++)
		assert_string_equal(a->args[i], b->args[i]);
	assert_int_equal(a->n_env, b->n_env);
	for (i = 0; i < a->n_env; i++)
		assert_string_equal(a->env[i], b->env[i]);
}

/* a, encoded and decoded again. */
static void round_trip(const struct wargv *a)
{
	struct wargv b;
	char **argv, err[256];

	assert_int_equal(wargv_encode(a, &argv), 0);
	assert_int_equal(wargv_decode(count(argv), argv, &b, err, sizeof(err)), 0);
	assert_same(a, &b);
	wargv_argv_free(argv);
}

static void test_every_field(void **state)
{
	struct wargv a = {
		.worker = "/usr/libexec/gadgetd/gadgetd-worker",
		.plugin = "/usr/lib/gadgetd/adb.so",
		.instance = "adb",
		.dir = "/run/gadgetd/ffs/adb",
		.user = "gadgetd-adb",
		.group = "plugdev",
		.have_caps = true,
		.caps = 0x8000000000000401ull,
		.root = WARGV_ROOT_ACTIVE,
		.verbose = true,
		.locked = true,
		.n_opts = 3,
		/* '=' and '-' in a value, an empty value. */
		.opts = { "a=b=c", "shell=-v -o x", "empty=" },
	};

	round_trip(&a);
	a.root = WARGV_ROOT_ALLOWED;
	round_trip(&a);
	a.locked = false;
	round_trip(&a);
}

/* An existing program instead of a plugin: arguments that look like
 * flags, empty ones, variables with '=' in their value. */
static void test_exec_fields(void **state)
{
	struct wargv a = {
		.worker = "w", .exec = "/usr/bin/umtprd", .instance = "umtp",
		.dir = "/run/gadgetd/ffs/umtp", .user = "u", .have_caps = true,
		.bind = "/dev/usb-ffs/adb",
		.n_args = 4, .args = { "-conf", "-o", "", "a b" },
		.n_env = 2, .env = { "LD_LIBRARY_PATH=/x:/y", "E=a=b" },
	};

	round_trip(&a);
	a.no_aio_guard = true;
	round_trip(&a);
	a.bind = NULL;
	a.n_args = a.n_env = 0;
	round_trip(&a);
}

static void test_minimal(void **state)
{
	struct wargv a = {
		.worker = "w", .plugin = "p.so", .instance = "i", .dir = "/d",
	};

	round_trip(&a);
	a.have_caps = true; /* a zero mask is still a mask */
	round_trip(&a);
}

static void test_most_options(void **state)
{
	static char kv[WARGV_MAX_OPTS][32];
	struct wargv a = {
		.worker = "w", .plugin = "p.so", .instance = "i", .dir = "/d",
	};
	unsigned i;

	for (i = 0; i < WARGV_MAX_OPTS; i++) {
		snprintf(kv[i], sizeof(kv[i]), "key%u=value%u", i, i);
		a.opts[a.n_opts++] = kv[i];
	}
	round_trip(&a);
	/* Every flag at once still fits the argv. */
	a.user = "u", a.group = "g", a.have_caps = true, a.verbose = true;
	a.root = WARGV_ROOT_ACTIVE, a.locked = true;
	round_trip(&a);
}

/* What gadgetd has always sent, flag for flag. */
static void test_encoded_order(void **state)
{
	static const char *const want[] = {
		"w", "-P", "p.so", "-i", "adb", "-d", "/d", "-u", "u", "-g", "g",
		"-c", "3000", "-r", "allowed", "-o", "k=v", NULL,
	};
	struct wargv a = {
		.worker = "w", .plugin = "p.so", .instance = "adb", .dir = "/d",
		.user = "u", .group = "g", .have_caps = true, .caps = 0x3000,
		.root = WARGV_ROOT_ALLOWED, .n_opts = 1, .opts = { "k=v" },
	};
	char **argv;
	unsigned i;

	assert_int_equal(wargv_encode(&a, &argv), 0);
	for (i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[i]);
	wargv_argv_free(argv);
}

static void test_encode_refuses(void **state)
{
	struct wargv a = {
		.worker = "w", .plugin = "p.so", .instance = "i", .dir = "/d",
		.n_opts = 1, .opts = { "novalue" },
	};
	char **argv = (char **)&a;

	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	assert_null(argv);
	a.opts[0] = "=v";
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	a.n_opts = 0;
	a.dir = NULL;
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	/* Both forms at once, neither, or a flag of the other. */
	a.dir = "/d";
	a.exec = "/bin/prog";
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	a.plugin = NULL;
	a.n_env = 1;
	a.env[0] = "NOVALUE";
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	a.env[0] = "K=V";
	a.root = WARGV_ROOT_ALLOWED;
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
	a.root = WARGV_ROOT_NONE;
	assert_int_equal(wargv_encode(&a, &argv), 0);
	wargv_argv_free(argv);
	a.exec = NULL;
	assert_int_equal(wargv_encode(&a, &argv), -EINVAL);
}

/* argv (NULL-terminated) is refused, and err says why with want. */
static void refused(const char *want, char *const *argv)
{
	struct wargv b;
	char err[256];
	int argc = 0;

	while (argv[argc])
		argc++;
	assert_int_equal(wargv_decode(argc, argv, &b, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("\"%s\" does not say \"%s\"", err, want);
}

#define REFUSED(want, ...) refused(want, (char *[]){ "w", __VA_ARGS__, NULL })
#define REQ "-P", "p.so", "-i", "i", "-d", "/d"

static void test_decode_refuses(void **state)
{
	REFUSED("required", "-P", "p.so", "-i", "i");
	REFUSED("required", "-v");
	REFUSED("needs a value", REQ, "-u");
	REFUSED("given twice", REQ, "-i", "j");
	REFUSED("given twice", REQ, "-c", "1", "-c", "2");
	REFUSED("unknown flag", REQ, "-z", "1");
	REFUSED("one of -P and -x", REQ, "-x", "/bin/p");
	REFUSED("one of -P and -x", "-i", "i", "-d", "/d");
	REFUSED("go with -x only", REQ, "-a", "arg");
	REFUSED("go with -x only", REQ, "-m", "/dev/usb-ffs/adb");
	REFUSED("go with -x only", REQ, "-G");
	REFUSED("go with -P only", "-x", "/p", "-i", "i", "-d", "/d", "-o", "k=v");
	REFUSED("go with -P only", "-x", "/p", "-i", "i", "-d", "/d", "-r", "allowed");
	REFUSED("bad or too many -e", "-x", "/p", "-i", "i", "-d", "/d", "-e", "NOVALUE");
	REFUSED("given twice", "-x", "/p", "-x", "/q", "-i", "i", "-d", "/d");
	REFUSED("unexpected argument", REQ, "stray");
	REFUSED("unexpected argument", REQ, "-Pp.so");
	REFUSED("unexpected argument", REQ, "-lv");
	REFUSED("unknown flag", REQ, "-L");
	REFUSED("hex capability mask", REQ, "-c", "xyz");
	REFUSED("hex capability mask", REQ, "-c", "-1");
	REFUSED("hex capability mask", REQ, "-c", " 1");
	REFUSED("hex capability mask", REQ, "-c", "");
	REFUSED("hex capability mask", REQ, "-c", "10000000000000000");
	REFUSED("allowed or active", REQ, "-r", "yes");
	REFUSED("bad or too many options", REQ, "-o", "novalue");
	REFUSED("bad or too many options", REQ, "-o", "=v");
}

static void test_decode_too_many_options(void **state)
{
	char *argv[1 + 6 + 2 * (WARGV_MAX_OPTS + 1) + 1] = { "w", REQ };
	struct wargv b;
	char err[256];
	int n = 7, i;

	for (i = 0; i <= WARGV_MAX_OPTS; i++) {
		argv[n++] = "-o";
		argv[n++] = "k=v";
	}
	assert_int_equal(wargv_decode(n - 2, argv, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_opts, WARGV_MAX_OPTS);
	assert_int_equal(wargv_decode(n, argv, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too many"));
}

static void test_decode_help(void **state)
{
	char *argv[] = { "w", "--help", "-x", NULL };
	struct wargv b;
	char err[64];

	assert_int_equal(wargv_decode(3, argv, &b, err, sizeof(err)), 0);
	assert_true(b.help);
	argv[1] = "-h";
	assert_int_equal(wargv_decode(3, argv, &b, err, sizeof(err)), 0);
	assert_true(b.help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_exec_fields),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_most_options),
		cmocka_unit_test(test_encoded_order),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_decode_too_many_options),
		cmocka_unit_test(test_decode_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
