/*
 * gadgetd/model/status.c: one status structure, two renderings. Every field is
 * filled with a value found nowhere else, and both the text and the JSON
 * must show each one, so that a field added to one renderer and not the
 * other fails here (the text once lacked "switches").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *render(const struct status *st, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	if (json)
		status_write_json(st, out);
	else
		status_write_text(st, out);
	fclose(out);
	return text;
}

static void assert_has(const char *text, const char *what, const char *field)
{
	if (!strstr(text, what))
		fail_msg("field %s: \"%s\" missing from:\n%s", field, what, text);
}

/* A field's value as the text and as the JSON show it. */
struct field {
	const char *name;
	char text[96], json[96];
};

static void check_fields(const struct status *st, const struct field *f,
			 unsigned n)
{
	char *text = render(st, false), *json = render(st, true);
	unsigned i;

	for (i = 0; i < n; i++) {
		assert_has(text, f[i].text, f[i].name);
		assert_has(json, f[i].json, f[i].name);
	}
	free(text);
	free(json);
}

static void when(time_t t, char *buf, size_t size)
{
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", localtime(&t));
}

static const struct status_plugin running = {
	.name = "fn-adb", .state = "enabled", .pid = 4242, .restarts = 17,
	.root_allowed = true, .root_request = "adb root", .root = "active",
	.last_exit = "exit-killed-by-9", .last_error = "err-bad-key",
	.n_kv = 2, .kv = { { "kv-key1", "kv-val1" }, { "kv-key2", "kv-val2" } },
};

static const struct status_plugin failed = {
	.name = "fn-mtp", .state = "failed", .pid = 0, .restarts = 5,
	.root = "refused", .last_exit = "", .last_error = "",
	.failed = true, .failed_why = "crashed-5-times",
};

static void fill(struct status *st)
{
	*st = (struct status){
		.profile = "prof-p", .set = "set-s", .switching = true, .queued = 3,
		.udc = "udc-u", .udc_state = "ustate-configured", .speed = "speed-super",
		.switches = 7341, .last_switch = 1700000000,
		.teardown_ms = 1111, .ready_ms = 2222, .bind_ms = 3333, .total_ms = 4444,
		.boot = "boot-restored", .failed_when = 1700000500,
		.failed = "failed-switch-to-x", .n_plugins = 2,
		.n_configs = 2, .configs = { "cfg-ncm,acm", "cfg-rndis" },
	};
	st->plugins[0] = running;
	st->plugins[1] = failed;
}

static void test_same_fields(void **state)
{
	struct status st;
	struct field f[] = {
		{ "profile", "profile: prof-p\n", "\"profile\":\"prof-p\"" },
		{ "set", "set: set-s\n", "\"set\":\"set-s\"" },
		{ "configs", "configurations: c.1 cfg-ncm,acm; c.2 cfg-rndis\n",
		  "\"configurations\":[\"cfg-ncm,acm\",\"cfg-rndis\"]" },
		{ "switching", "state: switching\n", "\"switching\":true" },
		{ "queued", "queued: 3 requests waiting their turn\n", "\"queued\":3" },
		{ "udc", "udc: udc-u\n", "\"udc\":\"udc-u\"" },
		{ "udc_state", "udc state: ustate-configured\n", "\"udc_state\":\"ustate-configured\"" },
		{ "speed", "speed: speed-super\n", "\"speed\":\"speed-super\"" },
		{ "switches", "switches: 7341\n", "\"switches\":7341" },
		{ "last_switch", "", "\"time\":1700000000" },
		{ "teardown_ms", "teardown 1111 ms", "\"teardown_ms\":1111" },
		{ "ready_ms", "functions ready 2222 ms", "\"ready_ms\":2222" },
		{ "bind_ms", "bound 3333 ms", "\"bind_ms\":3333" },
		{ "total_ms", "total 4444 ms", "\"total_ms\":4444" },
		{ "boot", "boot: boot-restored\n", "\"boot\":\"boot-restored\"" },
		{ "failed_when", "", "\"last_failure\":{\"time\":1700000500" },
		{ "failed", "failed-switch-to-x\n", "\"message\":\"failed-switch-to-x\"" },
		{ "plugin name", "  fn-adb: ", "\"name\":\"fn-adb\"" },
		{ "plugin state", ": enabled,", "\"state\":\"enabled\"" },
		{ "plugin pid", "pid 4242", "\"pid\":4242" },
		{ "plugin restarts", "restarts 17", "\"restarts\":17" },
		{ "plugin root", "adb root active", "\"root\":\"active\"" },
		{ "plugin last_exit", "last exit: exit-killed-by-9", "\"last_exit\":\"exit-killed-by-9\"" },
		{ "plugin last_error", "last error: err-bad-key\n", "\"last_error\":\"err-bad-key\"" },
		{ "plugin kv 1", "    kv-key1: kv-val1\n", "\"kv-key1\":\"kv-val1\"" },
		{ "plugin kv 2", "    kv-key2: kv-val2\n", "\"kv-key2\":\"kv-val2\"" },
		/* A failed plugin's text is its reason alone (gadgetctl(1)). */
		{ "failed plugin", "  fn-mtp: failed: crashed-5-times\n",
		  "\"name\":\"fn-mtp\",\"state\":\"failed\"" },
		{ "failed plugin why", "failed: crashed-5-times", "\"failed\":\"crashed-5-times\"" },
	};

	fill(&st);
	when(st.last_switch, f[9].text, sizeof(f[9].text));
	when(st.failed_when, f[15].text, sizeof(f[15].text));
	check_fields(&st, f, sizeof(f) / sizeof(f[0]));
}

/* Nothing loaded, off, unbound, never switched: both say so. */
static void test_empty(void **state)
{
	struct status st = {
		.udc_state = "unbound", .speed = "-", .boot = "", .failed = "",
	};
	const struct field f[] = {
		{ "profile", "profile: -\n", "\"profile\":\"\"" },
		{ "set", "set: off\n", "\"set\":\"\"" },
		{ "configs", "", "\"configurations\":[]" },
		{ "switching", "state: idle\n", "\"switching\":false" },
		{ "queued", "", "\"queued\":0" },
		{ "udc", "udc: -\n", "\"udc\":\"\"" },
		{ "udc_state", "udc state: unbound\n", "\"udc_state\":\"unbound\"" },
		{ "last_switch", "last switch: never", "\"time\":0," },
		{ "boot", "boot: starting\n", "\"boot\":\"\"" },
		{ "plugins", "plugins:\n", "\"plugins\":[]" },
	};
	char *text = render(&st, false);

	check_fields(&st, f, sizeof(f) / sizeof(f[0]));
	assert_null(strstr(text, "last failure"));
	assert_null(strstr(text, "configurations"));
	assert_null(strstr(text, "queued"));
	free(text);
}

/* Strings from sysfs, plugins and profiles reach JSON escaped. */
static void test_json_escapes(void **state)
{
	struct status st;
	char *json;

	fill(&st);
	st.boot = "a\"b\n";
	st.plugins[0].kv[0][1] = "\x1b[2J";
	json = render(&st, true);
	assert_has(json, "\"boot\":\"a\\\"b\\n\"", "boot");
	assert_null(strstr(json, "\x1b"));
	free(json);
}

static char *render_event(const struct ctl_event *ev, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	status_write_event(ev, out, json);
	fclose(out);
	return text;
}

/* gadgetctl monitor's lines: the time in ms, the kind, the function and
 * detail when there are some ("off" for a switch to nothing), the code
 * as restarts for a plugin's, and no control character from a plugin's
 * words in the text; JSON has every field, escaped. */
static void test_event_lines(void **state)
{
	struct ctl_event off = { .time_ms = 86400123, .kind = "switch-done",
				 .function = "", .detail = "" };
	struct ctl_event crash = { .time_ms = 5, .kind = "plugin-restarted",
				   .function = "mtp", .detail = "", .code = 3 };
	struct ctl_event key = { .time_ms = 0, .kind = "adb-key", .function = "adb",
				 .detail = "aa\x1b[2J\nbb", .code = -5 };
	char *t;

	setenv("TZ", "UTC", 1);
	tzset();
	t = render_event(&off, false);
	assert_string_equal(t, "1970-01-02 00:00:00.123 switch-done off\n");
	free(t);
	t = render_event(&crash, false);
	assert_string_equal(t, "1970-01-01 00:00:00.005 plugin-restarted mtp (restarts 3)\n");
	free(t);
	t = render_event(&key, false);
	assert_string_equal(t, "1970-01-01 00:00:00.000 adb-key adb aa?[2J?bb (code -5)\n");
	free(t);
	t = render_event(&key, true);
	assert_string_equal(t, "{\"time_ms\":0,\"event\":\"adb-key\",\"function\":\"adb\","
			       "\"detail\":\"aa\\u001b[2J\\nbb\",\"code\":-5}\n");
	free(t);
	t = render_event(&off, true);
	assert_string_equal(t, "{\"time_ms\":86400123,\"event\":\"switch-done\","
			       "\"function\":null,\"detail\":\"\",\"code\":0}\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_fields),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_event_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
