/*
 * Unit tests for gadgetd/gadget/plan.c: a live function is kept across a switch
 * only when its definition is the same, and who its worker runs as is
 * part of the definition, so that a worker restarted as root by adb root
 * never outlives a switch to a profile that refuses root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"
#include "profile.h"

static char err[4096];

static struct profile *load(const char *adb_line)
{
	char text[2048];
	struct profile *p;

	snprintf(text, sizeof(text),
		 "gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
		 "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		 "functions: {\n%s\n};\n"
		 "sets = ( { functions = [ \"adb\" ]; product_id = 0x0106; } );\n"
		 "default = \"adb\";\n", adb_line);
	if (profile_parse("t.conf", text, &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return p;
}

/* Live adb as made from `from`; what a switch to `to` does with it. */
static unsigned removed(const char *from, const char *to)
{
	struct profile *a = load(from), *b = load(to);
	struct plan_live live = { 0 };
	struct plan plan;
	unsigned n;

	live.fn.type = profile_function_find(a, "adb")->type;
	snprintf(live.fn.name, sizeof(live.fn.name), "adb");
	plan_signature(profile_function_find(a, "adb"), live.sig, sizeof(live.sig));
	plan_compute(&live, 1, b, 0, &plan);
	n = plan.n_remove;
	assert_int_equal(plan.n_create, n); /* removed, then made again */
	profile_free(a);
	profile_free(b);
	return n;
}

#define ADB "  adb: { type = \"ffs\"; plugin = \"adb\"; "

static void test_same_definition_is_kept(void **state)
{
	assert_int_equal(removed(ADB "};", ADB "};"), 0);
	assert_int_equal(removed(ADB "root = \"allowed\"; };", ADB "root = \"allowed\"; };"), 0);
}

static void test_who_it_runs_as_is_the_definition(void **state)
{
	assert_int_equal(removed(ADB "root = \"allowed\"; };", ADB "};"), 1);
	assert_int_equal(removed(ADB "root = \"allowed\"; };", ADB "root = \"refused\"; };"), 1);
	assert_int_equal(removed(ADB "user = \"root\"; };", ADB "};"), 1);
	assert_int_equal(removed(ADB "group = \"x\"; };", ADB "};"), 1);
	assert_int_equal(removed(ADB "capabilities = [ \"CAP_SYS_BOOT\" ]; };", ADB "};"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_definition_is_kept),
		cmocka_unit_test(test_who_it_runs_as_is_the_definition),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
