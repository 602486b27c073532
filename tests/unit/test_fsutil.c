/*
 * common/fsutil.c in a temporary folder: mkdir -p with modes whatever the
 * umask, malformed paths, something else than a folder in the way, links
 * refused when asked, where a failure stopped, a folder made in one its
 * user owns by root without CAP_DAC_OVERRIDE; the atomic write leaves the
 * old file or the new one and never its temporary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char base[64];

static const struct fsutil_mkdir plain = {
	.mode = 0750,
	.parent_mode = 0755,
	.uid = (uid_t)-1,
	.gid = (gid_t)-1,
};

static int setup(void **state)
{
	snprintf(base, sizeof(base), "/tmp/test_fsutil.XXXXXX");
	assert_non_null(mkdtemp(base));
	umask(077);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", base, base);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static char *at(const char *sub)
{
	static char path[4][PATH_MAX];
	static int n;
	char *p = path[n++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", base, sub);
	return p;
}

/* The mode of base/sub, which must be a folder. */
static unsigned dir_mode(const char *sub)
{
	struct stat st;

	assert_int_equal(lstat(at(sub), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	return st.st_mode & 07777;
}

static void touch(const char *sub)
{
	int fd = open(at(sub), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	close(fd);
}

static void test_mkdir_modes(void **state)
{
	struct fsutil_mkdir_result res;
	int fd;

	fd = fsutil_mkdir_p(at("a/b//c/"), &plain, &res);
	assert_true(fd >= 0);
	close(fd);
	assert_true(res.made);
	/* 077 umask or not: parents 0755, the last one 0750. */
	assert_int_equal(dir_mode("a"), 0755);
	assert_int_equal(dir_mode("a/b"), 0755);
	assert_int_equal(dir_mode("a/b/c"), 0750);
	/* Again: nothing made, an existing folder's mode is left alone. */
	assert_int_equal(chmod(at("a/b/c"), 0700), 0);
	fd = fsutil_mkdir_p(at("a/b/c"), &plain, &res);
	assert_true(fd >= 0);
	close(fd);
	assert_false(res.made);
	assert_int_equal(dir_mode("a/b/c"), 0700);
}

static void test_mkdir_parents_only(void **state)
{
	struct fsutil_mkdir o = plain;
	struct stat st;
	int fd;

	o.flags = FSUTIL_MKDIR_PARENTS;
	fd = fsutil_mkdir_p(at("p/q/file"), &o, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(dir_mode("p/q"), 0750);
	assert_int_equal(lstat(at("p/q/file"), &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_mkdir_malformed(void **state)
{
	struct fsutil_mkdir o = plain;
	char longp[PATH_MAX + 16];

	assert_int_equal(fsutil_mkdir_p("", &o, NULL), -EINVAL);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	assert_int_equal(fsutil_mkdir_p(longp, &o, NULL), -ENAMETOOLONG);
	o.flags = FSUTIL_MKDIR_NO_DOTS;
	assert_int_equal(fsutil_mkdir_p(at("d/../e"), &o, NULL), -EINVAL);
	assert_int_equal(fsutil_mkdir_p(at("d/./e"), &o, NULL), -EINVAL);
	/* Refused before anything is made. */
	assert_int_equal(access(at("d"), F_OK), -1);
}

static void test_mkdir_not_a_folder(void **state)
{
	struct fsutil_mkdir_result res;
	char *want;

	touch("f");
	assert_int_equal(fsutil_mkdir_p(at("f/g/h"), &plain, &res), -ENOTDIR);
	/* Where it stopped: at f. */
	want = at("f");
	assert_int_equal(res.len, strlen(want));
	assert_int_equal(res.step, FSUTIL_MKDIR_OPEN);
	assert_int_equal(fsutil_mkdir_p(at("f"), &plain, &res), -ENOTDIR);
}

static void test_mkdir_links(void **state)
{
	struct fsutil_mkdir_result res;
	struct fsutil_mkdir o = plain;
	int fd;

	assert_int_equal(mkdir(at("real"), 0700), 0);
	assert_int_equal(symlink(at("real"), at("link")), 0);
	/* Followed by default, like mkdir -p. */
	fd = fsutil_mkdir_p(at("link/x"), &o, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(dir_mode("real/x"), 0750);
	/* Refused anywhere on the way when asked, naming the link. */
	o.flags = FSUTIL_MKDIR_NOFOLLOW;
	assert_int_equal(fsutil_mkdir_p(at("link/y"), &o, &res), -ELOOP);
	assert_int_equal(res.len, strlen(at("link")));
	assert_int_equal(access(at("real/y"), F_OK), -1);
	assert_int_equal(fsutil_mkdir_p(at("link"), &o, &res), -ELOOP);
}

static void test_mkdir_no_create(void **state)
{
	struct fsutil_mkdir o = plain;
	int fd;

	o.flags = FSUTIL_MKDIR_NO_CREATE;
	assert_int_equal(fsutil_mkdir_p(at("n/m"), &o, NULL), -ENOENT);
	assert_int_equal(access(at("n"), F_OK), -1);
	fd = fsutil_mkdir_p(base, &o, NULL);
	assert_true(fd >= 0);
	close(fd);
}

/* A folder we may not write: EACCES, naming the folder it could not make.
 * Run as nobody when we are root, who writes anywhere. */
static void test_mkdir_permissions(void **state)
{
	struct fsutil_mkdir_result res;
	int status, r;
	pid_t pid;

	assert_int_equal(mkdir(at("ro"), 0555), 0);
	assert_int_equal(chmod(at("ro"), 0555), 0); /* past the umask */
	assert_int_equal(chmod(base, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(100);
		r = fsutil_mkdir_p(at("ro/sub/x"), &plain, &res);
		_exit(r == -EACCES && res.len == strlen(at("ro/sub")) &&
			      res.step == FSUTIL_MKDIR_OPEN
		      ? 0
		      : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(at("ro/sub"), F_OK), -1);
}

/* In a child: no CAP_DAC_OVERRIDE, as under gadgetd's unit (its
 * bounding set lacks it). */
static int drop_dac_override(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	/* From the permitted set too: setfsuid() back to 0 raises the
	 * file capabilities the permitted set holds. */
	d[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	d[0].permitted &= ~(1u << CAP_DAC_OVERRIDE);
	return syscall(SYS_capset, &h, d) < 0 ? -1 : 0;
}

/* mkdir -p as root without CAP_DAC_OVERRIDE: a folder the target user
 * owns gets its new folder made as that user; one another user owns
 * stays closed. */
static void test_mkdir_in_users_folder(void **state)
{
	const struct fsutil_mkdir o = {
		.mode = 0750,
		.parent_mode = 0755,
		.uid = 65534,
		.gid = 65534,
	};
	struct fsutil_mkdir_result res;
	struct stat st;
	int status, fd;
	pid_t pid;

	if (geteuid() != 0)
		skip(); /* setfsuid() and chown need root */
	assert_int_equal(chmod(base, 0755), 0);
	assert_int_equal(mkdir(at("own"), 0750), 0);
	assert_int_equal(chown(at("own"), 65534, 65534), 0);
	assert_int_equal(mkdir(at("other"), 0750), 0);
	assert_int_equal(chown(at("other"), 65533, 65533), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (drop_dac_override() < 0)
			_exit(100);
		/* Without the override even root cannot write them. */
		if (mkdir(at("own/probe"), 0700) == 0 || errno != EACCES)
			_exit(101);
		fd = fsutil_mkdir_p(at("own/x"), &o, &res);
		if (fd < 0 || !res.made)
			_exit(102);
		close(fd);
		fd = fsutil_mkdir_p(at("other/x"), &o, &res);
		_exit(fd == -EACCES ? 0 : 103);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stat(at("own/x"), &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(access(at("other/x"), F_OK), -1);
}

static void read_back(const char *sub, const char *want)
{
	char buf[64];
	int fd = open(at(sub), O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(buf, want, n);
}

static void test_write_atomic(void **state)
{
	struct stat st;

	assert_int_equal(fsutil_write_atomic(at("state"), "one\n", 4, 0644), 0);
	read_back("state", "one\n");
	assert_int_equal(stat(at("state"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* 0644 less the umask */
	assert_int_equal(fsutil_write_atomic(at("state"), "two\n", 4, 0644), 0);
	read_back("state", "two\n");
	/* No temporary is left behind. */
	assert_int_equal(access(at(".state.tmp"), F_OK), -1);
}

static void test_write_atomic_failures(void **state)
{
	assert_int_equal(fsutil_write_atomic(at("keep"), "old", 3, 0644), 0);
	/* A link where the temporary goes is not followed. */
	assert_int_equal(symlink(at("elsewhere"), at(".keep.tmp")), 0);
	assert_int_equal(fsutil_write_atomic(at("keep"), "new", 3, 0644),
			 -ELOOP);
	assert_int_equal(access(at("elsewhere"), F_OK), -1);
	read_back("keep", "old");
	assert_int_equal(unlink(at(".keep.tmp")), 0);
	/* A folder in the way of the rename: the old one stays, the
	 * temporary goes. */
	assert_int_equal(mkdir(at("dir"), 0700), 0);
	assert_int_equal(fsutil_write_atomic(at("dir"), "x", 1, 0644), -EISDIR);
	assert_int_equal(access(at(".dir.tmp"), F_OK), -1);
	assert_int_equal(fsutil_write_atomic(at("nofolder/x"), "x", 1, 0644),
			 -ENOENT);
	assert_int_equal(fsutil_write_atomic(at("trailing/"), "x", 1, 0644),
			 -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_parents_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_not_a_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_no_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_in_users_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_failures, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
