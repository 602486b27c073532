/* functions/runtime/loader.c: a plugin is loaded only when it was built for this
 * worker's PLUGIN_ABI_VERSION; the refusal names the .so and both
 * versions. The plugins are tests/unit/fake_abi_plugin.c, built next to
 * this test as fake_abi_{ok,other,none}.so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loader.h"
#include "log.h"
#include "unit_self.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[PATH_MAX];
static char logged[1024];

static void tap(enum log_level level, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

static const char *so(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void test_same_version_loads(void **state)
{
	const struct plugin_ops *ops;
	void *dl;

	assert_int_equal(loader_open(so("fake_abi_ok.so"), &dl, &ops), 0);
	assert_non_null(dl);
	assert_string_equal(ops->name, "fake");
	assert_int_equal(ops->abi_version, PLUGIN_ABI_VERSION);
	dlclose(dl);
}

static void test_other_version_refused(void **state)
{
	const struct plugin_ops *ops;
	char want[64];
	void *dl;

	logged[0] = '\0';
	assert_int_equal(loader_open(so("fake_abi_other.so"), &dl, &ops), -EPROTO);
	assert_null(dl);
	assert_null(ops);
	assert_non_null(strstr(logged, so("fake_abi_other.so")));
	snprintf(want, sizeof(want), "ABI version %u,", PLUGIN_ABI_VERSION + 1);
	assert_non_null(strstr(logged, want));
	snprintf(want, sizeof(want), "version %u only", PLUGIN_ABI_VERSION);
	assert_non_null(strstr(logged, want));
}

static void test_check_abi(void **state)
{
	const struct plugin_ops old = { .abi_version = 0, .name = "old" };
	const struct plugin_ops cur = { .abi_version = PLUGIN_ABI_VERSION };

	assert_int_equal(loader_check_abi("old.so", &old), -EPROTO);
	assert_non_null(strstr(logged, "old.so: plugin ABI version 0,"));
	assert_int_equal(loader_check_abi("cur.so", &cur), 0);
}

static void test_no_ops_or_no_file(void **state)
{
	const struct plugin_ops *ops;
	void *dl;

	assert_int_equal(loader_open(so("fake_abi_none.so"), &dl, &ops), -ENOENT);
	assert_null(dl);
	assert_non_null(strstr(logged, "has no symbol gadgetd_plugin"));
	assert_int_equal(loader_open(so("fake_abi_absent.so"), &dl, &ops), -ENOENT);
	assert_null(dl);
}

/* The fake plugins are built beside this test (unit_self_dir). */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_version_loads),
		cmocka_unit_test(test_other_version_refused),
		cmocka_unit_test(test_check_abi),
		cmocka_unit_test(test_no_ops_or_no_file),
	};

	if (unit_self_dir(argc, argv, dir, sizeof(dir)) < 0)
		return 1;
	log_set_tap(tap);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
