/* gadgetd/profile/profile_exec.c: a function that runs an existing
 * FunctionFS program (exec, args, env, config, bind), its malformed
 * settings refused at their file:line, and the expansion of %f and %c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile.h"
#include "profile_exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[8192];
/* A regular file without any x bit, made by the group's setup. */
static char plain[64];

/* A profile whose line 6 is fn (the function "prog"). */
static char *with_fn(const char *fn)
{
	char *buf;

	assert_true(asprintf(&buf,
			     "gadget: {\n"                                      /* 1 */
			     "  vendor_id = 0x1d6b; product_id = 0x0104;\n"      /* 2 */
			     "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
			     "};\n"                                             /* 4 */
			     "functions: {\n"                                   /* 5 */
			     "%s\n"                                             /* 6 */
			     "};\n"                                             /* 7 */
			     "sets = ( { functions = [ \"prog\" ]; } );\n",     /* 8 */
			     fn) > 0);
	return buf;
}

static int parse_fn(const char *fn, struct profile **p)
{
	char *text = with_fn(fn);
	int r = profile_parse("t.conf", text, p, err, sizeof(err));

	free(text);
	return r;
}

/* fn is refused, with a message at line 6 holding want. */
static void refused(const char *fn, const char *want)
{
	struct profile *p = (struct profile *)1;

	if (parse_fn(fn, &p) != -EINVAL)
		fail_msg("accepted: %s", fn);
	assert_null(p);
	if (strncmp(err, "t.conf:6: ", 10) || !strstr(err, want))
		fail_msg("for %s\nwant \"t.conf:6: ...%s\" in:\n%s", fn, want, err);
}

static int setup(void **state)
{
	FILE *f;

	snprintf(plain, sizeof(plain), "/tmp/test_profile_exec.%d", (int)getpid());
	f = fopen(plain, "w");
	if (!f)
		return -1;
	fputs("not a program\n", f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	unlink(plain);
	return 0;
}

static void test_every_setting(void **state)
{
	const struct profile_function *f;
	struct profile *p;

	assert_int_equal(parse_fn("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; "
				  "args = [ \"-c\", \"exec x %f %c %%\", \"\" ]; "
				  "env = [ \"A_1=x=y\", \"LD_LIBRARY_PATH=/opt/lib\" ]; "
				  "config = \"path \\\"%f/ep0\\\"\\n\\tx\\n\"; "
				  "bind = \"/dev/usb-ffs/adb\"; user = \"root\"; "
				  "aio_guard = false; "
				  "capabilities = [ \"CAP_CHOWN\" ]; };", &p), 0);
	f = profile_function_find(p, "prog");
	assert_null(f->plugin);
	assert_string_equal(f->exec, "/bin/sh");
	assert_int_equal(f->n_args, 3);
	assert_string_equal(f->args[1], "exec x %f %c %%");
	assert_string_equal(f->args[2], "");
	assert_int_equal(f->n_env, 2);
	assert_string_equal(f->env[0], "A_1=x=y");
	assert_string_equal(f->config, "path \"%f/ep0\"\n\tx\n");
	assert_string_equal(f->bind, "/dev/usb-ffs/adb");
	assert_false(f->aio_guard);
	assert_string_equal(f->user, "root");
	assert_int_equal(f->caps, 1);
	profile_free(p);
}

/* exec alone: no arguments, no file, gadgetd's default user. */
static void test_minimal(void **state)
{
	const struct profile_function *f;
	struct profile *p;

	assert_int_equal(parse_fn("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; };", &p), 0);
	f = profile_function_find(p, "prog");
	assert_int_equal(f->n_args + f->n_env, 0);
	assert_null(f->config);
	assert_null(f->bind);
	assert_true(f->aio_guard); /* on unless the profile says false */
	assert_string_equal(f->user, "gadgetd-worker");
	assert_true(f->user_default);
	profile_free(p);
}

static void test_bad_exec(void **state)
{
	char fn[256];

	refused("  prog: { type = \"ffs\"; exec = \"/no/such/program\"; };",
		"functions.prog.exec: /no/such/program: No such file or directory");
	snprintf(fn, sizeof(fn), "  prog: { type = \"ffs\"; exec = \"%s\"; };", plain);
	refused(fn, "is not an executable file");
	refused("  prog: { type = \"ffs\"; exec = \"/tmp\"; };",
		"functions.prog.exec: /tmp is not an executable file");
	refused("  prog: { type = \"ffs\"; exec = \"bin/sh\"; };", "not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"/usr/../bin/sh\"; };", "not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"/bin//sh\"; };", "not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"/\"; };", "not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"\"; };", "not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = 5; };", "functions.prog.exec: expected a string");
	refused("  prog: { type = \"ffs\"; };", "needs plugin = \"NAME\" or exec = \"/path/program\"");
}

static void test_bad_lists(void **state)
{
	char *fn, big[2048];
	size_t n = 0;
	int i;

	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = \"-c\"; };",
		"functions.prog.args: expected a list of strings");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ 1 ]; };",
		"functions.prog.args: entry 1 is not a string");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = ( \"a\", 2 ); };",
		"functions.prog.args: entry 2 is not a string");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ \"%x\" ]; };",
		"functions.prog.args: \"%x\" is not %f");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ \"100%\" ]; };",
		"functions.prog.args: \"%\" is not %f");
	/* %c names the file of config: none without it. */
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ \"%c\" ]; };",
		"functions.prog.args: \"%c\" is not %f");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ \"a\\tb\" ]; };",
		"functions.prog.args: control character 0x09");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; env = [ \"NOVALUE\" ]; };",
		"functions.prog.env: \"NOVALUE\": expected NAME=VALUE");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; env = [ \"=v\" ]; };",
		"expected NAME=VALUE");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; env = [ \"1A=v\" ]; };",
		"expected NAME=VALUE");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; env = [ \"A-B=v\" ]; };",
		"expected NAME=VALUE");
	memset(big, 'a', 1025);
	big[1025] = '\0';
	assert_true(asprintf(&fn, "  prog: { type = \"ffs\"; exec = \"/bin/sh\"; args = [ \"%s\" ]; };",
			     big) > 0);
	refused(fn, "functions.prog.args: longer than 1024 bytes");
	free(fn);
	for (i = 0; i < PROFILE_EXEC_MAX_ARGS + 1; i++)
		n += snprintf(big + n, sizeof(big) - n, "%s\"a\"", i ? ", " : "");
	assert_true(asprintf(&fn, "  prog: { type = \"ffs\"; exec = \"/bin/sh\"; env = [ %s ]; };",
			     big) > 0);
	refused(fn, "functions.prog.env: more than 32 entries");
	free(fn);
}

static void test_bad_config_and_bind(void **state)
{
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; config = 1; };",
		"functions.prog.config: expected a string");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; config = \"%c\"; };",
		"functions.prog.config: \"%c\" is not %f");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; config = \"a\\x01\"; };",
		"functions.prog.config: control character 0x01");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; bind = \"dev/x\"; };",
		"functions.prog.bind: \"dev/x\" is not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; bind = \"/dev/../x\"; };",
		"not an absolute path");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; bind = [ \"/x\" ]; };",
		"functions.prog.bind: expected a string");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; aio_guard = \"no\"; };",
		"functions.prog.aio_guard: expected true or false");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; aio_guard = 0; };",
		"functions.prog.aio_guard: expected true or false");
}

/* A plugin's settings beside exec, and exec's without it. */
static void test_mixed(void **state)
{
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; plugin = \"adb\"; };",
		"functions.prog.plugin: not with exec");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; options: { auth = \"off\"; }; };",
		"functions.prog.options: not with exec");
	refused("  prog: { type = \"ffs\"; exec = \"/bin/sh\"; root = \"allowed\"; };",
		"functions.prog.root: not with exec");
	refused("  prog: { type = \"ffs\"; plugin = \"echo\"; args = [ \"x\" ]; };",
		"functions.prog.args: only with exec");
	refused("  prog: { type = \"ffs\"; plugin = \"echo\"; config = \"x\"; };",
		"functions.prog.config: only with exec");
	refused("  prog: { type = \"ffs\"; plugin = \"echo\"; aio_guard = false; };",
		"functions.prog.aio_guard: only with exec");
	refused("  prog: { type = \"acm\"; exec = \"/bin/sh\"; };",
		"unknown setting \"exec\" for type acm");
}

static void expands(const char *in, const char *conf, const char *want)
{
	char *out = NULL;

	assert_int_equal(profile_exec_expand(in, "/run/f", conf, &out), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_expand(void **state)
{
	char *out = (char *)1;

	expands("", "/c", "");
	expands("-conf %c", "/run/x/config", "-conf /run/x/config");
	expands("%f/ep0 %f/ep1%%", NULL, "/run/f/ep0 /run/f/ep1%");
	expands("%%c %%f", NULL, "%c %f");
	assert_int_equal(profile_exec_expand("%c", "/run/f", NULL, &out), -EINVAL);
	assert_int_equal(profile_exec_expand("%x", "/run/f", "/c", &out), -EINVAL);
	assert_int_equal(profile_exec_expand("a%", "/run/f", "/c", &out), -EINVAL);
	assert_ptr_equal(out, (char *)1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_setting),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_bad_exec),
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_bad_config_and_bind),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_expand),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
