/* gadgetd/profile/dirs.c alone, in a temporary folder: modes whatever the umask,
 * existing folders left alone, errors that name the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dirs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];

static int setup(void **state)
{
	snprintf(base, sizeof(base), "/tmp/test_dirs.XXXXXX");
	assert_non_null(mkdtemp(base));
	/* As under systemd's UMask=0077. */
	umask(077);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static unsigned mode_of(const char *fmt, const char *sub)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), fmt, base, sub);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	return st.st_mode & 07777;
}

static void test_parents_and_leaf_modes(void **state)
{
	char path[256], err[512];

	snprintf(path, sizeof(path), "%s/var/lib/gadgetd", base);
	assert_int_equal(dirs_make(path, 0750, err, sizeof(err)), 0);
	assert_int_equal(mode_of("%s/%s", "var"), 0755);
	assert_int_equal(mode_of("%s/%s", "var/lib"), 0755);
	assert_int_equal(mode_of("%s/%s", "var/lib/gadgetd"), 0750);
	/* Again: nothing to do. */
	assert_int_equal(dirs_make(path, 0750, err, sizeof(err)), 0);
}

static void test_existing_left_alone(void **state)
{
	char path[256], err[512];

	snprintf(path, sizeof(path), "%s/shared", base);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 01777), 0);
	snprintf(path, sizeof(path), "%s/shared/gadgetd", base);
	assert_int_equal(dirs_make(path, 0755, err, sizeof(err)), 0);
	assert_int_equal(mode_of("%s/%s", "shared"), 01777);
	assert_int_equal(mode_of("%s/%s", "shared/gadgetd"), 0755);
}

static void test_file_in_the_way(void **state)
{
	char path[256], file[256], err[512], want[512];
	FILE *f;

	snprintf(file, sizeof(file), "%s/run", base);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	/* As the leaf, then as a parent. */
	assert_int_equal(dirs_make(file, 0755, err, sizeof(err)), -ENOTDIR);
	snprintf(want, sizeof(want), "cannot create %s: Not a directory", file);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/run/gadgetd", base);
	assert_int_equal(dirs_make(path, 0755, err, sizeof(err)), -ENOTDIR);
	assert_string_equal(err, want);
}

static void test_too_long(void **state)
{
	char path[5000], err[512];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(dirs_make(path, 0755, err, sizeof(err)), -ENAMETOOLONG);
	assert_int_equal(dirs_make("", 0755, err, sizeof(err)), -ENAMETOOLONG);
}

static void test_parent(void **state)
{
	char buf[64];

	dirs_parent("/var/lib/gadgetd/state", buf, sizeof(buf));
	assert_string_equal(buf, "/var/lib/gadgetd");
	dirs_parent("/state", buf, sizeof(buf));
	assert_string_equal(buf, "/");
	dirs_parent("state", buf, sizeof(buf));
	assert_string_equal(buf, ".");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parents_and_leaf_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_in_the_way, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_long, setup, teardown),
		cmocka_unit_test(test_parent),
	};

	return cmocka_run_group_tests_name("dirs", tests, NULL, NULL);
}
