/* gadgetd/model/event.c alone: order of delivery, unsubscribing from a
 * callback, nested emits refused, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "event.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct test_event_rec {
	char seen[512];
	struct event_sub *self, *other;
	bool emit_nested;
};

static void test_event_record(const struct event *ev, void *data)
{
	struct test_event_rec *r = data;
	size_t n = strlen(r->seen);

	snprintf(r->seen + n, sizeof(r->seen) - n, "%s(%s,%s,%d);",
		 event_name(ev), ev->function ? ev->function : "-",
		 ev->detail, ev->code);
	if (r->emit_nested)
		event_emit(EVENT_STATE, NULL, "nested", 0);
	if (r->other) {
		event_unsubscribe(r->other);
		r->other = NULL;
	}
}

static void test_event_order(void **state)
{
	struct test_event_rec a = { 0 }, b = { 0 };
	struct event_sub *sa = event_subscribe(test_event_record, &a);
	struct event_sub *sb = event_subscribe(test_event_record, &b);

	assert_non_null(sa);
	assert_non_null(sb);
	event_emit(EVENT_SWITCH_BEGUN, NULL, "mtp,adb", 0);
	event_emit(EVENT_SWITCH_DONE, NULL, NULL, -5);
	event_emit(EVENT_PLUGIN_RESTARTED, "adb", "", 2);
	assert_string_equal(a.seen, "switch-begun(-,mtp,adb,0);switch-done(-,,-5);"
			    "plugin-restarted(adb,,2);");
	assert_string_equal(b.seen, a.seen);
	event_unsubscribe(sa);
	event_emit(EVENT_HOST, NULL, "configured", 0);
	assert_string_equal(b.seen, "switch-begun(-,mtp,adb,0);switch-done(-,,-5);"
			    "plugin-restarted(adb,,2);host(-,configured,0);");
	event_unsubscribe(sb);
	event_unsubscribe(NULL);
}

/* A listener that drops the next one during delivery: the next one hears
 * nothing more, and nothing is freed under the loop (ASan). */
static void test_event_unsubscribe_during(void **state)
{
	struct test_event_rec a = { 0 }, b = { 0 };
	struct event_sub *sa = event_subscribe(test_event_record, &a);
	struct event_sub *sb = event_subscribe(test_event_record, &b);

	a.other = sb;
	event_emit_plugin("adb-key", "adb", "SHA256:x");
	assert_string_equal(a.seen, "adb-key(adb,SHA256:x,0);");
	assert_string_equal(b.seen, "");
	event_emit_plugin("adb-key", "adb", "y");
	assert_string_equal(b.seen, "");
	event_unsubscribe(sa);
}

/* A listener unsubscribing itself, and one emitting from its callback:
 * the nested event is dropped, the outer delivery goes on. */
static void test_event_nested(void **state)
{
	struct test_event_rec a = { .emit_nested = true }, b = { 0 };
	struct event_sub *sa = event_subscribe(test_event_record, &a);
	struct event_sub *sb = event_subscribe(test_event_record, &b);

	b.other = sb;
	event_emit(EVENT_PLUGIN_FAILED, "mtp", "crashed", 5);
	assert_string_equal(a.seen, "plugin-failed(mtp,crashed,5);");
	assert_string_equal(b.seen, "plugin-failed(mtp,crashed,5);");
	a.emit_nested = false;
	event_emit(EVENT_STATE, NULL, "x", 0);
	assert_string_equal(a.seen, "plugin-failed(mtp,crashed,5);state(-,x,0);");
	assert_string_equal(b.seen, "plugin-failed(mtp,crashed,5);");
	event_unsubscribe(sa);
}

static void test_event_names(void **state)
{
	assert_string_equal(event_kind_name(EVENT_HOST), "host");
	assert_string_equal(event_kind_name(EVENT_SWITCH_BEGUN), "switch-begun");
	assert_string_equal(event_kind_name(EVENT_SWITCH_DONE), "switch-done");
	assert_string_equal(event_kind_name(EVENT_PLUGIN_RESTARTED), "plugin-restarted");
	assert_string_equal(event_kind_name(EVENT_PLUGIN_FAILED), "plugin-failed");
	assert_string_equal(event_kind_name(EVENT_PLUGIN), "plugin");
	assert_string_equal(event_kind_name(EVENT_STATE), "state");
	assert_string_equal(event_kind_name((enum event_kind)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_order),
		cmocka_unit_test(test_event_unsubscribe_during),
		cmocka_unit_test(test_event_nested),
		cmocka_unit_test(test_event_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
