/*
 * gadget_boot_start() (gadget.c) against faked ConfigFS, workers and state
 * file: only the profile it starts on is loaded; a saved set that fails
 * falls back to the default set and then to off, a saved profile that
 * fails to the configured one; status tells each step; the state file
 * keeps what the user chose until the user chooses again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "fake_gadget_deps.h"
#include "gadget.h"
#include "loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The configured profile. */
static const char profile_t[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: {\n"
	"  acm: { type = \"acm\"; };\n"
	"  ecm: { type = \"ecm\"; };\n"
	"  ncm: { type = \"ncm\"; };\n"
	"  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; };\n"
	"  mtp: { type = \"ffs\"; plugin = \"mtp\"; user = \"root\"; };\n"
	"};\n"
	"sets = (\n"
	"  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },\n"
	"  { functions = [ \"ncm\" ]; product_id = 0x0106; },\n"
	"  { functions = [ \"mtp\", \"adb\" ]; product_id = 0x0108; }\n"
	");\n"
	"default = \"acm,ecm\";\n";

/* Another good profile. */
static const char profile_u[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: { ncm: { type = \"ncm\"; }; acm: { type = \"acm\"; }; };\n"
	"sets = ( { functions = [ \"ncm\" ]; product_id = 0x0111; },\n"
	"  { functions = [ \"acm\" ]; product_id = 0x0112; } );\n"
	"default = \"acm\";\n";

/* One whose default set has a worker. */
static const char profile_w[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: { adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; }; };\n"
	"sets = ( { functions = [ \"adb\" ]; product_id = 0x0113; } );\n"
	"default = \"adb\";\n";

/* A broken one: line 5 names a function type that does not exist. */
static const char profile_bad[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: { x: { type = \"nosuchtype\"; }; };\n"
	"sets = ( { functions = [ \"x\" ]; } );\n";

struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct gadget *g;
	char msg[4096];
	char status[8192];
};

static int finish(struct fixture *f, int r, struct fake_result *res)
{
	if (r != -EINPROGRESS)
		return r;
	assert_false(res->done);
	fake_wait_done(f->loop, res);
	snprintf(f->msg, sizeof(f->msg), "%s", res->msg);
	return res->r;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	fake_profile_dir(f->dir, sizeof(f->dir), "test_boot");
	fake_profile_put(f->dir, "t", profile_t);
	fake_profile_put(f->dir, "u", profile_u);
	fake_config(&f->cfg, f->dir);
	fake_reset();
	f->loop = loop_new();
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	static const char *const names[] = { "t", "u", "bad", "w" };
	char path[128];
	unsigned i;

	gadget_free(f->g);
	loop_free(f->loop);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s.conf", f->dir, names[i]);
		unlink(path);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static int start(struct fixture *f)
{
	struct fake_result res = { 0 };

	return finish(f, gadget_boot_start(f->g, f->msg, sizeof(f->msg), fake_on_done, &res), &res);
}

static void saved(const char *profile, const char *set, const char *conf)
{
	snprintf(fake_state_file.profile, sizeof(fake_state_file.profile), "%s", profile);
	snprintf(fake_state_file.set, sizeof(fake_state_file.set), "%s", set);
	snprintf(fake_state_file.conf_profile, sizeof(fake_state_file.conf_profile),
		 "%s", conf);
}

/* The value of a "key: value" line of status. */
static const char *status(struct fixture *f, const char *key)
{
	char *text = NULL, *p, want[64];
	size_t len;
	FILE *out = open_memstream(&text, &len);

	gadget_status(f->g, out, false);
	fclose(out);
	snprintf(want, sizeof(want), "\n%s: ", key);
	p = strstr(text, want);
	if (!p && !strncmp(text, want + 1, strlen(want + 1)))
		p = text - 1;
	assert_non_null(p);
	p += strlen(want);
	snprintf(f->status, sizeof(f->status), "%.*s", (int)strcspn(p, "\n"), p);
	free(text);
	return f->status;
}

static void assert_boot(struct fixture *f, const char *want)
{
	const char *got = status(f, "boot");

	if (strcmp(got, want))
		fail_msg("boot: \"%s\"\n  expected \"%s\"", got, want);
}

static void test_no_state_default(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	assert_boot(f, "default set acm,ecm (profile t)");
	/* What the user now has: recorded, with the configured profile. */
	assert_int_equal(fake_state_saves, 1);
	assert_string_equal(fake_state_file.set, "acm,ecm");
	assert_string_equal(fake_state_file.conf_profile, "t");
}

static void test_restores_saved(void **state)
{
	struct fixture *f = *state;

	saved("t", "mtp,adb", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "mtp,adb");
	assert_boot(f, "restored mtp,adb (profile t)");
}

/* The profile in the state file is the one gadgetd starts on, even when
 * gadgetd.conf's profile is another (switch --profile survives a restart). */
static void test_restores_saved_profile(void **state)
{
	struct fixture *f = *state;

	saved("u", "ncm", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "profile"), "u");
	assert_string_equal(status(f, "set"), "ncm");
	assert_boot(f, "restored ncm (profile u)");
}

static void test_saved_set_fails_default_comes_up(void **state)
{
	struct fixture *f = *state;

	saved("t", "mtp,adb", "t");
	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	assert_boot(f, "saved set mtp,adb: function mtp: plugin not ready after 100 ms; "
		       "trying it once more; failed again: function mtp: plugin not ready "
		       "after 100 ms; fell back to default acm,ecm (profile t)");
	/* The caller (the log) hears the whole story. */
	assert_non_null(strstr(f->msg, "saved set mtp,adb: function mtp"));
	assert_non_null(strstr(f->msg, "failed again"));
	/* The state file still names what the user chose: the next start
	 * tries it again. */
	assert_int_equal(fake_state_saves, 0);
	assert_string_equal(fake_state_file.set, "mtp,adb");
}

/* A worker not ready in time at the first try (a board still busy
 * starting up): the same set is tried once more and comes up; the story
 * says so, and the state file is not rewritten. */
static void test_saved_set_slow_tried_again(void **state)
{
	struct fixture *f = *state;

	saved("t", "mtp,adb", "t");
	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	fake_not_ready_times = 1;
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "mtp,adb");
	assert_boot(f, "saved set mtp,adb: function mtp: plugin not ready after 100 ms; "
		       "trying it once more; restored mtp,adb (profile t)");
	assert_non_null(strstr(f->msg, "trying it once more"));
	assert_true(fake_is_bound());
	assert_string_equal(fake_state_file.set, "mtp,adb");
}

/* The same for the default set, when there is no state. */
static void test_default_slow_tried_again(void **state)
{
	struct fixture *f = *state;

	fake_profile_put(f->dir, "w", profile_w);
	f->cfg.profile = "w";
	snprintf(fake_not_ready, sizeof(fake_not_ready), "adb");
	fake_not_ready_times = 1;
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "adb");
	assert_boot(f, "default adb: function adb: plugin not ready after 100 ms; "
		       "trying it once more; default set adb (profile w)");
	assert_true(fake_is_bound());
}

/* Other failures are not tried again: a broken link fails at once. */
static void test_other_failure_not_tried_again(void **state)
{
	struct fixture *f = *state;

	saved("t", "mtp,adb", "t");
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(adb)");
	assert_int_equal(start(f), 0);
	assert_null(strstr(status(f, "boot"), "once more"));
	assert_string_equal(status(f, "set"), "acm,ecm");
}

/* After a fallback, a reload re-applies the fallback without recording
 * it; a set the user chooses is recorded. */
static void test_fallback_kept_until_user_chooses(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };

	saved("t", "mtp,adb", "t");
	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	assert_int_equal(start(f), 0);
	assert_int_equal(finish(f, gadget_reload(f->g, f->msg, sizeof(f->msg), fake_on_done,
						 &res), &res), 0);
	assert_int_equal(fake_state_saves, 0);
	memset(&res, 0, sizeof(res));
	assert_int_equal(finish(f, gadget_switch(f->g, NULL, "ncm", f->msg, sizeof(f->msg),
						 fake_on_done, &res), &res), 0);
	assert_int_equal(fake_state_saves, 1);
	assert_string_equal(fake_state_file.set, "ncm");
	/* The story of the start stays in status. */
	assert_non_null(strstr(status(f, "boot"), "saved set mtp,adb: function mtp"));
}

static void test_saved_set_unknown(void **state)
{
	struct fixture *f = *state;

	saved("t", "hid", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	assert_boot(f, "saved set hid failed: unknown function \"hid\" (profile t has no "
		       "such function); fell back to default acm,ecm (profile t)");
	assert_int_equal(fake_state_saves, 0);
}

static void test_saved_and_default_fail_off(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len;
	FILE *out;

	saved("t", "mtp,adb", "t");
	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(ecm)");
	assert_int_equal(start(f), -EIO);
	assert_string_equal(status(f, "set"), "off");
	assert_string_equal(status(f, "state"), "idle");
	assert_boot(f, "saved set mtp,adb: function mtp: plugin not ready after 100 ms; "
		       "trying it once more; failed again: function mtp: plugin not ready "
		       "after 100 ms; default acm,ecm failed: function ecm: cannot link it into "
		       "the configuration: Input/output error; the gadget is off");
	assert_false(fake_is_bound());
	assert_int_equal(fake_state_saves, 0);
	/* gadgetd still answers, and a later switch works. */
	fake_fail_at[0] = '\0';
	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg), NULL, NULL), 0);
	assert_string_equal(fake_state_file.set, "");
	/* JSON carries the same story, its quotes escaped. */
	out = open_memstream(&text, &len);
	gadget_status(f->g, out, true);
	fclose(out);
	assert_non_null(strstr(text, "\"boot\":\"saved set mtp,adb: function mtp"));
	assert_non_null(strstr(text, "the gadget is off\",\"plugins\":["));
	free(text);
}

/* The saved set is the default: nothing else to fall back to. */
static void test_saved_default_fails_off(void **state)
{
	struct fixture *f = *state;

	saved("t", "acm,ecm", "t");
	snprintf(fake_fail_at, sizeof(fake_fail_at), "add(acm)");
	assert_true(start(f) < 0);
	assert_string_equal(status(f, "set"), "off");
	assert_boot(f, "saved set acm,ecm failed: function acm: cannot create acm function "
		       "in ConfigFS: Input/output error; it is the default; the gadget is off");
}

static void test_no_state_default_fails_off(void **state)
{
	struct fixture *f = *state;

	snprintf(fake_fail_at, sizeof(fake_fail_at), "add(acm)");
	assert_true(start(f) < 0);
	assert_string_equal(status(f, "set"), "off");
	assert_boot(f, "default acm,ecm failed: function acm: cannot create acm function "
		       "in ConfigFS: Input/output error; the gadget is off");
}

static void test_saved_profile_broken(void **state)
{
	struct fixture *f = *state;
	char want[512];

	fake_profile_put(f->dir, "bad", profile_bad);
	saved("bad", "x", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "profile"), "t");
	assert_string_equal(status(f, "set"), "acm,ecm");
	snprintf(want, sizeof(want), "saved profile bad failed: %s/bad.conf:5: ", f->dir);
	assert_non_null(strstr(status(f, "boot"), want));
	assert_non_null(strstr(f->status, "; fell back to profile t; default set acm,ecm (profile t)"));
	/* The next start tries the saved profile again. */
	assert_int_equal(fake_state_saves, 0);
}

static void test_saved_profile_missing(void **state)
{
	struct fixture *f = *state;
	char want[512];

	saved("gone", "acm", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	snprintf(want, sizeof(want), "saved profile gone failed: %s/gone.conf: No such file "
		 "or directory; fell back to profile t; default set acm,ecm (profile t)",
		 f->dir);
	assert_boot(f, want);
}

/* gadgetd.conf names another profile than when the state was saved: the
 * operator's edit wins, and the state follows it. */
static void test_conf_profile_changed(void **state)
{
	struct fixture *f = *state;

	saved("u", "ncm", "old");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "profile"), "t");
	assert_string_equal(status(f, "set"), "acm,ecm");
	assert_boot(f, "gadgetd.conf names profile t, not old as when the state was saved: "
		       "state ignored; default set acm,ecm (profile t)");
	assert_int_equal(fake_state_saves, 1);
	assert_string_equal(fake_state_file.profile, "t");
}

/* A state file from before conf_profile, for another profile: ignored,
 * as it was then. */
static void test_old_state_other_profile(void **state)
{
	struct fixture *f = *state;

	saved("u", "ncm", "");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "profile"), "t");
	assert_boot(f, "default set acm,ecm (profile t)");
}

static void test_malformed_state(void **state)
{
	struct fixture *f = *state;

	fake_state_load_r = -EINVAL;
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	assert_boot(f, "state file ignored (/nonexistent/state:1: fake); default set "
		       "acm,ecm (profile t)");
	/* The garbage is replaced by what is live. */
	assert_int_equal(fake_state_saves, 1);
}

static void test_off_before_restart(void **state)
{
	struct fixture *f = *state;

	saved("t", "", "t");
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "off");
	assert_boot(f, "off before the restart (profile t): staying off");
	assert_false(fake_is_bound());
}

/* The configured profile is broken and there is nothing else: gadgetd
 * stays up, off, says why, and can still be told to use another. */
static void test_configured_profile_broken(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };
	char want[512];

	fake_profile_put(f->dir, "bad", profile_bad);
	f->cfg.profile = "bad";
	assert_int_equal(start(f), -EINVAL);
	assert_string_equal(status(f, "profile"), "-");
	assert_string_equal(status(f, "set"), "off");
	snprintf(want, sizeof(want), "profile bad failed: %s/bad.conf:5: ", f->dir);
	assert_non_null(strstr(status(f, "boot"), want));
	assert_non_null(strstr(f->status, "; the gadget is off"));
	assert_non_null(strstr(f->msg, want));
	assert_int_equal(finish(f, gadget_switch(f->g, "u", NULL, f->msg, sizeof(f->msg),
						 fake_on_done, &res), &res), 0);
	assert_string_equal(status(f, "profile"), "u");
}

/* A broken profile that is not used does not matter at start; list names
 * it with the reason. */
static void test_list_marks_broken(void **state)
{
	struct fixture *f = *state;
	char *text = NULL, want[512];
	size_t len;
	FILE *out;

	fake_profile_put(f->dir, "bad", profile_bad);
	assert_int_equal(start(f), 0);
	assert_string_equal(status(f, "set"), "acm,ecm");
	out = open_memstream(&text, &len);
	gadget_list(f->g, out);
	fclose(out);
	snprintf(want, sizeof(want), "profiles in %s: bad t u\n", f->dir);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "\nbroken profile bad: %s/bad.conf:5: ", f->dir);
	assert_non_null(strstr(text, want));
	assert_null(strstr(text, "broken profile t"));
	assert_null(strstr(text, "broken profile u"));
	free(text);
}

/* gadgetd stops while the start-up waits for a plugin: the caller hears
 * it once, and no fallback starts on the way out. */
static void test_free_during_boot(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };

	saved("t", "mtp,adb", "t");
	fake_hold_ready = true;
	assert_int_equal(gadget_boot_start(f->g, f->msg, sizeof(f->msg), fake_on_done, &res),
			 -EINPROGRESS);
	loop_dispatch(f->loop, 0);
	assert_true(fake_waiting_ready());
	fake_clear_calls();
	gadget_free(f->g);
	f->g = NULL;
	assert_true(res.done);
	assert_int_equal(res.r, -ECANCELED);
	assert_null(strstr(fake_calls, "identity("));
	assert_int_equal(fake_state_saves, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_state_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restores_saved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restores_saved_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_set_fails_default_comes_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_set_slow_tried_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_slow_tried_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_failure_not_tried_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_kept_until_user_chooses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_set_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_and_default_fail_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_default_fails_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_state_default_fails_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_profile_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_profile_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_profile_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_state_other_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_before_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configured_profile_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_marks_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_during_boot, setup, teardown),
	};

	return cmocka_run_group_tests_name("boot", tests, NULL, NULL);
}
