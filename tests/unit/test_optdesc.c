/* The option parsers every reader shares (common/optdesc.h): the integer
 * parser of gadgetd's checks (gadgetd/profile/optcheck.c) and of the
 * plugins, and the typed readers under the plugins' getters
 * (common/plugin_meta.h, plugin_option_bool() and plugin_option_int()). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plugin_meta.h"

#include <errno.h>
#include <string.h>

static const struct optdesc small = { .name = "n", .type = OPTDESC_INT,
				      .min = -5, .max = 64 };

static void expect_int(const char *text, long long want)
{
	long long v = 12345;

	if (optdesc_int(&small, text, &v) != 0)
		fail_msg("\"%s\" was refused", text);
	assert_int_equal(v, want);
}

static void expect_refused(const char *text, int rc)
{
	long long v = 12345;

	if (optdesc_int(&small, text, &v) != rc)
		fail_msg("\"%s\": not %d", text, rc);
	if (rc == -EINVAL)
		assert_int_equal(v, 12345);
}

static void test_int_bases(void **state)
{
	expect_int("0", 0);
	expect_int("42", 42);
	expect_int("-5", -5);
	/* strtoll's base 0, as a profile's "0x10" always was. */
	expect_int("0x10", 16);
	expect_int("0X3f", 63);
	expect_int("-0x5", -5);
	expect_int("010", 8);
	expect_int("007", 7);
}

static void test_int_bounds(void **state)
{
	long long v = 0;

	expect_int("64", 64);
	expect_int("-5", -5);
	expect_refused("65", -ERANGE);
	expect_refused("-6", -ERANGE);
	expect_refused("0x41", -ERANGE);
	/* Out of range, the value still comes back, for the message. */
	assert_int_equal(optdesc_int(&small, "1000", &v), -ERANGE);
	assert_int_equal(v, 1000);
	assert_int_equal(optdesc_int_range(&small, 64), 0);
	assert_int_equal(optdesc_int_range(&small, 65), -ERANGE);
	assert_int_equal(optdesc_int_range(&small, -6), -ERANGE);
}

static void test_int_junk(void **state)
{
	static const char *const junk[] = {
		"", "-", "+1", " 1", "1 ", "1x", "0x", "1.5", "1e3", "10s",
		"08", "--1", "- 1", "0x1g", "99999999999999999999",
		"-99999999999999999999", "\xd9\xa1",
	};
	long long v = 7;

	for (size_t i = 0; i < sizeof(junk) / sizeof(*junk); i++)
		expect_refused(junk[i], -EINVAL);
	assert_int_equal(optdesc_int(&small, NULL, &v), -EINVAL);
	assert_int_equal(v, 7);
}

/* A declaration for the typed readers. */
static const struct optdesc test_options[] = {
	{ .name = "flag", .type = OPTDESC_BOOL, .def = "true" },
	{ .name = "bare", .type = OPTDESC_BOOL },
	{ .name = "len", .type = OPTDESC_INT, .min = 1, .max = 64, .def = "8" },
	{ .name = "portN", .type = OPTDESC_INT, .count = 2, .min = 0,
	  .max = 65535 },
	{ .name = "word", .type = OPTDESC_STRING, .def = "12" },
	{ 0 }
};
static const struct plugin_meta test_meta = { .name = "t",
					      .options = test_options };

static void test_option_bool(void **state)
{
	char why[128];
	bool b = false;

	/* Absent: the declared default. */
	assert_int_equal(plugin_meta_option_bool(&test_meta, NULL, "flag", &b,
						 why, sizeof(why)), 0);
	assert_true(b);
	/* Given, in any of the words. */
	assert_int_equal(plugin_meta_option_bool(&test_meta, "off", "flag", &b,
						 why, sizeof(why)), 0);
	assert_false(b);
	assert_int_equal(plugin_meta_option_bool(&test_meta, "yes", "bare", &b,
						 why, sizeof(why)), 0);
	assert_true(b);
	/* Neither given nor declared with a default. */
	b = false;
	assert_int_equal(plugin_meta_option_bool(&test_meta, NULL, "bare", &b,
						 why, sizeof(why)), -ENOENT);
	assert_false(b);
	assert_string_equal(why, "");
	/* A bad value, named with its option; *out untouched. */
	assert_int_equal(plugin_meta_option_bool(&test_meta, "maybe", "flag", &b,
						 why, sizeof(why)), -EINVAL);
	assert_false(b);
	assert_string_equal(why, "option flag: \"maybe\" is not true or false");
	assert_int_equal(plugin_meta_option_bool(&test_meta, "", "flag", &b,
						 why, sizeof(why)), -EINVAL);
	/* No declaration at all: only a given value. */
	assert_int_equal(plugin_meta_option_bool(NULL, "1", "x", &b, why,
						 sizeof(why)), 0);
	assert_true(b);
}

static void test_option_int(void **state)
{
	char why[128];
	long long v = 0;

	assert_int_equal(plugin_meta_option_int(&test_meta, NULL, "len", &v, why,
						sizeof(why)), 0);
	assert_int_equal(v, 8);
	assert_int_equal(plugin_meta_option_int(&test_meta, "64", "len", &v, why,
						sizeof(why)), 0);
	assert_int_equal(v, 64);
	assert_int_equal(plugin_meta_option_int(&test_meta, "0x10", "len", &v, why,
						sizeof(why)), 0);
	assert_int_equal(v, 16);
	/* A numbered option takes its declaration's range. */
	assert_int_equal(plugin_meta_option_int(&test_meta, "5555", "port1", &v,
						why, sizeof(why)), 0);
	assert_int_equal(v, 5555);
	v = 3;
	assert_int_equal(plugin_meta_option_int(&test_meta, NULL, "port0", &v,
						why, sizeof(why)), -ENOENT);
	assert_int_equal(v, 3);
	assert_string_equal(why, "");
	/* Junk and out of range alike: named, with the range. */
	assert_int_equal(plugin_meta_option_int(&test_meta, "8 bytes", "len", &v,
						why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "option len: \"8 bytes\" is not an integer in 1..64");
	assert_int_equal(plugin_meta_option_int(&test_meta, "65", "len", &v, why,
						sizeof(why)), -EINVAL);
	assert_string_equal(why, "option len: \"65\" is not an integer in 1..64");
	assert_int_equal(plugin_meta_option_int(&test_meta, "70000", "port0", &v,
						why, sizeof(why)), -EINVAL);
	assert_int_equal(v, 3);
	/* Only a declared integer: the range comes from the declaration. */
	assert_int_equal(plugin_meta_option_int(&test_meta, NULL, "word", &v, why,
						sizeof(why)), -EINVAL);
	assert_string_equal(why, "option word is not declared an integer");
	assert_int_equal(plugin_meta_option_int(&test_meta, "1", "port2", &v, why,
						sizeof(why)), -EINVAL);
	assert_int_equal(plugin_meta_option_int(NULL, "1", "len", &v, why,
						sizeof(why)), -EINVAL);
	assert_int_equal(v, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_bases),
		cmocka_unit_test(test_int_bounds),
		cmocka_unit_test(test_int_junk),
		cmocka_unit_test(test_option_bool),
		cmocka_unit_test(test_option_int),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
