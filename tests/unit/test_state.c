/*
 * gadgetd/gadget/state.c: every malformed state file is refused whole, with a
 * message naming the file, the line and the field; a save is durable in
 * the right order (file fsync, rename, directory fsync), seen through
 * wrapped fsync() and rename(), and a failure at any step leaves the old
 * file and no temporary behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
int __wrap_fsync(int fd);
int __wrap_rename(const char *from, const char *to);

static char calls[8192];
/* The nth fsync() (1-based) or rename() fails with EIO; 0: none. */
static int fail_fsync, fail_rename, n_fsync, n_rename;

static void record(const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, fmt, a, b);
}

int __wrap_fsync(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t l;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, path, sizeof(path) - 1);
	path[l < 0 ? 0 : l] = '\0';
	record("fsync(%.200s%s) ", path, "");
	if (++n_fsync == fail_fsync) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to)
{
	record("rename(%s,%s) ", from, to);
	if (++n_rename == fail_rename) {
		errno = EIO;
		return -1;
	}
	return __real_rename(from, to);
}

struct fixture {
	char dir[64];
	char path[128];
	char tmp[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_state.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/state", f->dir);
	snprintf(f->tmp, sizeof(f->tmp), "%s/.state.tmp", f->dir);
	calls[0] = '\0';
	fail_fsync = fail_rename = n_fsync = n_rename = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char sub[160];

	unlink(f->path);
	unlink(f->tmp);
	snprintf(sub, sizeof(sub), "%s/sub/state", f->dir);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/sub", f->dir);
	rmdir(sub);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void put(const struct fixture *f, const char *text, size_t len)
{
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static struct state mkstate(const char *profile, const char *set, const char *conf)
{
	struct state st = { 0 };

	snprintf(st.profile, sizeof(st.profile), "%s", profile);
	snprintf(st.set, sizeof(st.set), "%s", set);
	snprintf(st.conf_profile, sizeof(st.conf_profile), "%s", conf);
	return st;
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct state st = mkstate("lab", "mtp,adb", "android"), got;
	char err[512], sub[160];

	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), -ENOENT);
	/* Missing directories are created. */
	snprintf(sub, sizeof(sub), "%s/sub/state", f->dir);
	assert_int_equal(state_save(sub, &st), 0);
	assert_int_equal(state_load(sub, &got, err, sizeof(err)), 0);
	assert_string_equal(got.profile, "lab");
	assert_string_equal(got.set, "mtp,adb");
	assert_string_equal(got.conf_profile, "android");
	/* Off is an empty set. */
	st = mkstate("lab", "", "lab");
	assert_int_equal(state_save(f->path, &st), 0);
	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), 0);
	assert_string_equal(got.set, "");
	/* A file from before conf_profile, lines in any order. */
	put(f, "set=acm\nprofile=lab\n", 20);
	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), 0);
	assert_string_equal(got.profile, "lab");
	assert_string_equal(got.set, "acm");
	assert_string_equal(got.conf_profile, "");
}

/* The longest set a profile can have: 16 names of 31 characters. */
static void test_longest_set(void **state)
{
	struct fixture *f = *state;
	struct state st = mkstate("lab", "", "lab"), got;
	char err[512];
	size_t n = 0;
	int i;

	for (i = 0; i < 16; i++)
		n += snprintf(st.set + n, sizeof(st.set) - n, "%s%031d", i ? "," : "", i);
	assert_int_equal(strlen(st.set), STATE_SET_MAX - 1);
	assert_int_equal(state_save(f->path, &st), 0);
	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), 0);
	assert_string_equal(got.set, st.set);
}

struct bad {
	const char *text;
	size_t len;      /* 0: strlen(text) */
	const char *where;
	const char *why;
};

static void expect_refused(const struct fixture *f, const char *text, size_t len,
			   const char *where, const char *why)
{
	struct state got;
	char err[512], want[256];

	put(f, text, len);
	memset(&got, 'x', sizeof(got));
	if (state_load(f->path, &got, err, sizeof(err)) != -EINVAL)
		fail_msg("state \"%.60s\" accepted", text);
	snprintf(want, sizeof(want), "%s%s", f->path, where);
	if (strncmp(err, want, strlen(want)) || !strstr(err, why))
		fail_msg("state \"%.60s\": message \"%s\", expected \"%s ...%s\"", text,
			 err, want, why);
	/* Nothing half-read comes back. */
	assert_string_equal(got.profile, "");
	assert_string_equal(got.set, "");
	assert_string_equal(got.conf_profile, "");
}

static void test_malformed(void **state)
{
	static const struct bad bad[] = {
		{ "", 0, ":1: ", "empty" },
		{ "profile=lab\n", 0, ":2: ", "set= is missing" },
		{ "set=acm\n", 0, ":2: ", "profile= is missing" },
		{ "profile=lab\nset=acm", 0, ":2: ", "no newline at the end" },
		{ "profile=lab\nprofile=lab\nset=acm\n", 0, ":2: ", "profile: given twice" },
		{ "profile=lab\nset=acm\nset=ecm\n", 0, ":3: ", "set: given twice" },
		{ "garbage\n", 0, ":1: ", "not a KEY=VALUE line" },
		{ "\nprofile=lab\nset=acm\n", 0, ":1: ", "not a KEY=VALUE line" },
		{ "profile=lab\nset=acm\nfoo=bar\n", 0, ":3: ", "unknown key \"foo\"" },
		{ "profile=lab\nset=a\0cm\n", 22, ":2: ", "a NUL byte" },
		{ "profile=../../tmp/x\nset=acm\n", 0, ":1: ", "profile: not a profile name" },
		{ "profile=Lab\nset=acm\n", 0, ":1: ", "profile: not a profile name" },
		{ "profile=\nset=acm\n", 0, ":1: ", "profile: not a profile name" },
		{ "profile=a/b\nset=acm\n", 0, ":1: ", "profile: not a profile name" },
		{ "profile=lab\r\nset=acm\r\n", 0, ":1: ", "profile: not a profile name" },
		{ "profile=lab\nset=acm\r\n", 0, ":2: ", "set: not a set name" },
		{ "profile=lab\nset=ACM\n", 0, ":2: ", "set: not a set name" },
		{ "profile=lab\nset=acm;rm -rf /\n", 0, ":2: ", "set: not a set name" },
		{ "profile=lab\nset=\x1b[2J\n", 0, ":2: ", "set: not a set name" },
		{ "profile=lab\nset=acm\nconf_profile=a/b\n", 0, ":3: ", "conf_profile: not a profile name" },
		{ "profile=lab\nset=acm\nconf_profile=\n", 0, ":3: ", "conf_profile: not a profile name" },
		{ "=lab\nset=acm\n", 0, ":1: ", "unknown key \"\"" },
		{ "profile = lab\nset=acm\n", 0, ":1: ", "unknown key" },
	};
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		expect_refused(f, bad[i].text, bad[i].len ? bad[i].len : strlen(bad[i].text),
			       bad[i].where, bad[i].why);
}

/* Lines longer than fgets()'s old 512-byte buffer: refused, never split
 * into a second line that would be read as one of the keys. */
static void test_long_lines(void **state)
{
	struct fixture *f = *state;
	char text[STATE_FILE_MAX + 64];
	size_t n;

	/* "set=" and 507 letters fill 511 bytes; the rest of the line was read
	 * as a line of its own and replaced the profile. */
	n = snprintf(text, sizeof(text), "profile=lab\nset=%0507dprofile=evil\n", 0);
	expect_refused(f, text, n, ":2: ", "set: longer than 511 bytes");
	n = snprintf(text, sizeof(text), "profile=%064d\nset=acm\n", 0);
	expect_refused(f, text, n, ":1: ", "profile: longer than 63 bytes");
	n = snprintf(text, sizeof(text), "profile=lab\nset=acm\nconf_profile=%064d\n", 0);
	expect_refused(f, text, n, ":3: ", "conf_profile: longer than 63 bytes");
	/* A key without end. */
	memset(text, 'p', 3000);
	memcpy(text + 3000, "=x\n", 3);
	expect_refused(f, text, 3003, ":1: ", "unknown key");
}

/* Larger than any state gadgetd writes: refused before it is parsed. */
static void test_oversized(void **state)
{
	struct fixture *f = *state;
	char text[STATE_FILE_MAX + 2];
	int n;

	n = snprintf(text, sizeof(text), "profile=lab\nset=acm\n");
	memset(text + n, '\n', sizeof(text) - n);
	expect_refused(f, text, STATE_FILE_MAX + 1, "", "larger than 4096 bytes");
	/* Exactly the limit is read, and then judged line by line. */
	expect_refused(f, text, STATE_FILE_MAX, ":3: ", "not a KEY=VALUE line");
}

/* A FIFO or a directory where the state file should be: refused, never
 * waited on. */
static void test_not_a_file(void **state)
{
	struct fixture *f = *state;
	struct state got;
	char err[512];

	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(f->path);
	assert_int_equal(mkdir(f->path, 0700), 0);
	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	rmdir(f->path);
}

/* The file's data, then the rename, then the directory entry. */
static void test_save_sequence(void **state)
{
	struct fixture *f = *state;
	struct state st = mkstate("lab", "acm", "lab");
	char want[1024];

	assert_int_equal(state_save(f->path, &st), 0);
	snprintf(want, sizeof(want), "fsync(%s) rename(%s,%s) fsync(%s) ", f->tmp,
		 f->tmp, f->path, f->dir);
	assert_string_equal(calls, want);
	assert_int_equal(access(f->tmp, F_OK), -1);
}

static void assert_file(const struct fixture *f, const char *set)
{
	struct state got;
	char err[512];

	assert_int_equal(state_load(f->path, &got, err, sizeof(err)), 0);
	assert_string_equal(got.set, set);
	/* No temporary is left behind. */
	assert_int_equal(access(f->tmp, F_OK), -1);
}

static void test_save_failures(void **state)
{
	struct fixture *f = *state;
	struct state old = mkstate("lab", "acm", "lab"), st = mkstate("lab", "ecm", "lab");

	assert_int_equal(state_save(f->path, &old), 0);
	/* The new data cannot be made durable: the old file stays. */
	n_fsync = n_rename = 0;
	fail_fsync = 1;
	assert_int_equal(state_save(f->path, &st), -EIO);
	assert_file(f, "acm");
	/* The rename fails: the old file stays. */
	n_fsync = n_rename = 0;
	fail_fsync = 0;
	fail_rename = 1;
	assert_int_equal(state_save(f->path, &st), -EIO);
	assert_file(f, "acm");
	/* The directory cannot be synced: the new file is in place, and the
	 * caller hears that it may not survive a power cut. */
	n_fsync = n_rename = 0;
	fail_rename = 0;
	fail_fsync = 2;
	assert_int_equal(state_save(f->path, &st), -EIO);
	assert_file(f, "ecm");
}

/*
 * The lock marker: none is unlocked; a save makes it, a save of false
 * takes it away; whatever stands at its path (a folder, a dangling link)
 * is locked, and so is a runtime folder that cannot be looked into; a
 * failed save says why and leaves the state as it was.
 */
static void test_lock_marker(void **state)
{
	struct fixture *f = *state;
	char marker[160], missing[160], longdir[PATH_MAX + 8];

	snprintf(marker, sizeof(marker), "%s/locked", f->dir);
	assert_false(state_lock_load(f->dir));
	assert_int_equal(state_lock_save(f->dir, true), 0);
	assert_true(state_lock_load(f->dir));
	assert_int_equal(access(marker, F_OK), 0);
	assert_int_equal(state_lock_save(f->dir, true), 0);
	assert_int_equal(state_lock_save(f->dir, false), 0);
	assert_false(state_lock_load(f->dir));
	assert_int_equal(state_lock_save(f->dir, false), 0);
	/* A folder at the marker's path: locked, and it cannot be removed
	 * as a marker, so unlock fails rather than pretend. */
	assert_int_equal(mkdir(marker, 0700), 0);
	assert_true(state_lock_load(f->dir));
	assert_true(state_lock_save(f->dir, false) < 0);
	assert_int_equal(rmdir(marker), 0);
	assert_int_equal(symlink("/nonexistent/x", marker), 0);
	assert_true(state_lock_load(f->dir));
	assert_int_equal(unlink(marker), 0);
	/* A runtime folder that is a file: ENOTDIR, not ENOENT: locked. */
	assert_int_equal(state_lock_save(f->dir, true), 0);
	snprintf(missing, sizeof(missing), "%s/locked", f->dir);
	assert_true(state_lock_load(missing));
	assert_int_equal(state_lock_save(f->dir, false), 0);
	/* A path too long to name: locked, and no save. */
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	assert_true(state_lock_load(longdir));
	assert_int_equal(state_lock_save(longdir, true), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_longest_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_sequence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_marker, setup, teardown),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
