/* common/json.c: strings in `gadgetctl status --json`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What json_str() writes for s, in a static buffer. */
static const char *quoted(const char *s)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	json_str(f, s);
	fclose(f);
	return buf;
}

static void test_plain(void **state)
{
	assert_string_equal(quoted(""), "\"\"");
	assert_string_equal(quoted("adb ready"), "\"adb ready\"");
	/* UTF-8 passes as it is. */
	assert_string_equal(quoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	assert_string_equal(quoted(NULL), "null");
}

static void test_quotes_and_backslashes(void **state)
{
	assert_string_equal(quoted("say \"hi\""), "\"say \\\"hi\\\"\"");
	assert_string_equal(quoted("C:\\x"), "\"C:\\\\x\"");
	assert_string_equal(quoted("\\\""), "\"\\\\\\\"\"");
}

static void test_control_characters(void **state)
{
	char all[33];
	const char *q;
	int i;

	assert_string_equal(quoted("a\nb\tc\rd\be\ff"),
			    "\"a\\nb\\tc\\rd\\be\\ff\"");
	assert_string_equal(quoted("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
	assert_string_equal(quoted("\x1b[31m"), "\"\\u001b[31m\"");
	/* No raw control character survives, whichever it is. */
	for (i = 1; i < 32; i++)
		all[i - 1] = i;
	all[31] = 0x7f;
	all[32] = '\0';
	q = quoted(all);
	for (; *q; q++)
		assert_true((unsigned char)*q >= 0x20 && *q != 0x7f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_quotes_and_backslashes),
		cmocka_unit_test(test_control_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
