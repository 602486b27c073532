/*
 * gadgetd/front/request.c: a control socket request decoded into its typed
 * form, malformed ones marked (not refused: access is decided first),
 * and which requests change the gadget or wait their turn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctl.h"
#include "request.h"

static struct request decode(uint16_t type, int argc, ...)
{
	static char *argv[8];
	struct request r;
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	request_from_ctl(type, argc, argv, &r);
	return r;
}

static void test_switch(void **state)
{
	struct request r = decode(CTL_SWITCH, 1, "mtp,adb");

	assert_int_equal(r.op, REQUEST_SWITCH);
	assert_null(r.profile);
	assert_string_equal(r.set, "mtp,adb");
	assert_string_equal(r.bad, "");
	r = decode(CTL_SWITCH, 3, "--profile", "dev", "adb");
	assert_string_equal(r.profile, "dev");
	assert_string_equal(r.set, "adb");
	assert_string_equal(r.bad, "");
	r = decode(CTL_SWITCH, 2, "--profile", "dev");
	assert_string_equal(r.profile, "dev");
	assert_null(r.set);
	assert_string_equal(r.bad, "");
	r = decode(CTL_SWITCH, 2, "a", "b");
	assert_string_equal(r.bad, "switch takes one set");
	r = decode(CTL_SWITCH, 0);
	assert_string_equal(r.bad, "switch needs a set or --profile NAME");
	/* "--profile" alone is a set's name, as the socket always took it. */
	r = decode(CTL_SWITCH, 1, "--profile");
	assert_null(r.profile);
	assert_string_equal(r.set, "--profile");
}

static void test_others(void **state)
{
	struct request r = decode(CTL_FUNCTION, 3, "adb", "allow", "aa:bb");

	assert_int_equal(r.op, REQUEST_COMMAND);
	assert_string_equal(r.function, "adb");
	assert_string_equal(r.command, "allow");
	assert_int_equal(r.argc, 3);
	r = decode(CTL_FUNCTION, 1, "adb");
	assert_string_equal(r.function, "adb");
	assert_null(r.command);
	r = decode(CTL_STATUS, 1, "json");
	assert_true(r.json);
	r = decode(CTL_STATUS, 0);
	assert_false(r.json);
	r = decode(CTL_LIST, 1, "sets");
	assert_string_equal(r.what, "sets");
	r = decode(CTL_LIST, 2, "sets", "x");
	assert_string_equal(r.bad, "list takes sets, profiles or functions");
	r = decode(CTL_STORAGE, 2, "eject", "disk");
	assert_int_equal(r.op, REQUEST_STORAGE);
	assert_int_equal(r.argc, 2);
	/* The storage words are parsed here, once (storage.h). */
	assert_string_equal(r.bad, "");
	assert_int_equal(r.storage.op, STORAGE_EJECT);
	assert_string_equal(r.storage.function, "disk");
	r = decode(CTL_STORAGE, 1, "insert");
	assert_int_equal(r.storage.op, STORAGE_INSERT);
	assert_non_null(strstr(r.bad, "storage insert: which image?"));
	r = decode(CTL_STORAGE, 1, "bogus");
	assert_int_equal(r.storage.op, STORAGE_NONE);
	assert_non_null(strstr(r.bad, "storage: unknown command \"bogus\""));
	r = decode(999, 0);
	assert_int_equal(r.op, REQUEST_UNKNOWN);
	assert_int_equal(r.type, 999);
	r = decode(CTL_LOCK, 0);
	assert_int_equal(r.op, REQUEST_LOCK);
	assert_true(r.lock);
	assert_string_equal(r.bad, "");
	r = decode(CTL_UNLOCK, 0);
	assert_int_equal(r.op, REQUEST_LOCK);
	assert_false(r.lock);
	r = decode(CTL_UNLOCK, 1, "now");
	assert_string_equal(r.bad, "unlock takes no arguments");
	r = decode(CTL_LOCK, 2, "a", "b");
	assert_string_equal(r.bad, "lock takes no arguments");
}

/* Reads pass a switch in progress; a switch, reload and off wait their
 * turn; everything else that changes something is refused as busy, but
 * a lock or unlock, which must take effect at once. */
static void test_changes_and_waits(void **state)
{
	static const struct {
		uint16_t type;
		bool changes, waits;
	} want[] = {
		{ CTL_SWITCH, true, true },   { CTL_RELOAD, true, true },
		{ CTL_OFF, true, true },      { CTL_FUNCTION, true, false },
		{ CTL_STORAGE, true, false }, { CTL_STATUS, false, false },
		{ CTL_LIST, false, false },   { CTL_MONITOR, false, false },
		{ CTL_WAIT, false, false },   { 999, true, false },
		{ CTL_LOCK, false, false },   { CTL_UNLOCK, false, false },
	};
	unsigned i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct request r = decode(want[i].type, 0);

		assert_int_equal(request_changes(&r), want[i].changes);
		assert_int_equal(request_waits(&r), want[i].waits);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_changes_and_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
