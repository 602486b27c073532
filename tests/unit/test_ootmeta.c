/* gadgetd/profile/ootmeta.c: a plugin gadgetd does not ship is described
 * by a program (here a script standing in for gadgetd-worker --describe,
 * told what to do by a file), parsed, cached while its .so is the same
 * file, and refused with a reason when the program fails, hangs, prints
 * too much or prints what is not a declaration. The profile checker and
 * the control socket's access rules then use the declaration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"
#include "ootmeta.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/test_ootmeta.XXXXXX";
static char worker[256];

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* How many times the describe program ran, and resets the count. */
static int runs(void)
{
	char path[512], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/runs", dir);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			n++;
		fclose(f);
	}
	unlink(path);
	return n;
}

static int setup(void **state)
{
	char script[2048];

	assert_non_null(mkdtemp(dir));
	snprintf(worker, sizeof(worker), "%s/worker", dir);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "d=%s\n"
		 "echo \"$1 $2\" >> $d/runs\n"
		 "case $(cat $d/mode) in\n"
		 "good) printf 'gadgetd-plugin-meta\\t1\\nname\\tfake\\nuser\\tfakeuser\\tfake\\n"
		 "option\\trepeat\\tint\\t0\\t1\\t8\\t0\\tHow often\\t1\\n"
		 "command\\thello\\tread\\t\\tSay hello\\ncommand\\treset\\tadmin\\t\\tReset\\nend\\n' ;;\n"
		 "fail) echo 'noise'; echo \"$2: plugin ABI version 3, but this gadgetd-worker loads version 2 only\" >&2; exit 1 ;;\n"
		 "hang) exec sleep 30 ;;\n"
		 "bad) printf 'gadgetd-plugin-meta\\t9\\n' ;;\n"
		 "big) head -c 70000 /dev/zero | tr '\\\\0' x ;;\n"
		 "other) printf 'gadgetd-plugin-meta\\t1\\nname\\tother\\nend\\n' ;;\n"
		 "esac\n", dir);
	put("worker", script);
	assert_int_equal(chmod(worker, 0755), 0);
	put("fake.so", "one");
	put("mode", "good\n");
	/* The default deadline: a shell's start under qemu-user took more
	 * than 300 ms (check-cross, 2026-12-07); only "hang" gets that. */
	ootmeta_setup(worker, dir, 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	ootmeta_clear();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void test_described_and_cached(void **state)
{
	const struct plugin_meta *m;
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000, 0 } };
	char why[512], path[512];

	runs();
	assert_null(ootmeta_find("fake"));
	m = ootmeta_load("fake", why, sizeof(why));
	assert_non_null(m);
	assert_int_equal(runs(), 1);
	assert_string_equal(m->name, "fake");
	assert_string_equal(m->options[0].name, "repeat");
	assert_int_equal(m->options[0].max, 8);
	assert_ptr_equal(ootmeta_find("fake"), m);
	/* The same file: not described again. */
	assert_ptr_equal(ootmeta_load("fake", why, sizeof(why)), m);
	assert_int_equal(runs(), 0);
	/* Another mtime (a new build installed): described again. */
	snprintf(path, sizeof(path), "%s/fake.so", dir);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_non_null(ootmeta_load("fake", why, sizeof(why)));
	assert_int_equal(runs(), 1);
	/* Another size. */
	put("fake.so", "a longer build");
	assert_non_null(ootmeta_load("fake", why, sizeof(why)));
	assert_int_equal(runs(), 1);
	/* A built-in is never described. */
	assert_non_null(ootmeta_find("echo"));
	assert_int_equal(runs(), 0);
}

static void refused(const char *mode, const char *want)
{
	char why[512], m[32];

	snprintf(m, sizeof(m), "%s\n", mode);
	put("mode", m);
	put("fake.so", mode); /* a new file each time */
	assert_null(ootmeta_load("fake", why, sizeof(why)));
	if (!strstr(why, want))
		fail_msg("%s: \"%s\" does not say \"%s\"", mode, why, want);
	assert_non_null(strstr(why, "/fake.so"));
}

static void test_refusals(void **state)
{
	char why[512];

	refused("fail", "--describe exited with status 1: ");
	refused("fail", "fake.so: plugin ABI version 3, but this gadgetd-worker loads version 2 only");
	ootmeta_setup(worker, dir, 300);
	refused("hang", "--describe timed out after 300 ms");
	ootmeta_setup(worker, dir, 0);
	refused("bad", "its declaration: line 1");
	refused("big", "printed more than 65536 bytes");
	refused("other", "it declares itself as \"other\"");
	/* A refusal leaves nothing cached. */
	assert_null(ootmeta_find("fake"));
	assert_null(ootmeta_load("missing", why, sizeof(why)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(why, "missing.so: No such file or directory"));
	put("mode", "fail\n");
	put("fake.so", "errno");
	assert_null(ootmeta_load("fake", why, sizeof(why)));
	assert_int_equal(errno, EINVAL);
	put("mode", "good\n");
	assert_non_null(ootmeta_load("fake", why, sizeof(why)));
}

static const char *profile_with(const char *options)
{
	static char text[1024];

	snprintf(text, sizeof(text),
		 "gadget: { vendor_id = 0x1d6b; product_id = 0x0104; strings: { lang = 0x409;\n"
		 "  manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		 "functions: {\n"
		 "  f: { type = \"ffs\"; plugin = \"fake\";\n"
		 "       options: { %s }; };\n"
		 "};\n"
		 "sets = ( { functions = [ \"f\" ]; } );\n", options);
	return text;
}

static void test_profile_checks_options(void **state)
{
	struct profile *p = NULL;
	char err[2048], text[1024];

	put("mode", "good\n");
	put("fake.so", "profile");
	if (profile_parse("t.conf", profile_with("repeat = 3;"), &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(p->functions[0].user, "fakeuser");
	profile_free(p);
	p = NULL;
	assert_true(profile_parse("t.conf", profile_with("repeat = 99;"), &p, err,
				  sizeof(err)) < 0);
	if (!strstr(err, "t.conf:5:") || !strstr(err, "repeat") || !strstr(err, "1..8"))
		fail_msg("%s", err);
	assert_true(profile_parse("t.conf", profile_with("nope = 1;"), &p, err,
				  sizeof(err)) < 0);
	if (!strstr(err, "unknown option \"nope\"") || !strstr(err, "takes repeat"))
		fail_msg("%s", err);
	/* Its describe failing: the profile names the plugin line. */
	put("mode", "fail\n");
	put("fake.so", "profile, broken");
	assert_true(profile_parse("t.conf", profile_with(""), &p, err, sizeof(err)) < 0);
	if (!strstr(err, "t.conf:4:") || !strstr(err, "functions.f.plugin") ||
	    !strstr(err, "plugin ABI version 3"))
		fail_msg("%s", err);
	/* No such .so: nothing to describe, the options kept as written
	 * (the worker fails to start at the switch, as before). */
	snprintf(text, sizeof(text), "%s", profile_with("anything = 99;"));
	memcpy(strstr(text, "\"fake\""), "\"miss\"", 6);
	if (profile_parse("t.conf", text, &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(p->functions[0].plugin, "miss");
	profile_free(p);
}

static void test_access_follows_declaration(void **state)
{
	char why[512];

	put("mode", "good\n");
	put("fake.so", "access");
	assert_non_null(ootmeta_load("fake", why, sizeof(why)));
	assert_int_equal(access_command_kind("fake", "hello"), ACCESS_COMMAND_READ);
	assert_int_equal(access_command_kind("fake", "reset"), ACCESS_COMMAND_ADMIN);
	assert_int_equal(access_command_kind("fake", "undeclared"), ACCESS_COMMAND_ADMIN);
	assert_int_equal(access_command_kind("unknown", "hello"), ACCESS_COMMAND_ADMIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_described_and_cached),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_profile_checks_options),
		cmocka_unit_test(test_access_follows_declaration),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
