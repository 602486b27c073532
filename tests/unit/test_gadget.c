/* The switch transaction (gadget.c) against faked ConfigFS and workers. */
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

static const char test_profile[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;\n"
	"  strings: { lang = 0x409; manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
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
	"  { functions = [ \"acm\", \"adb\" ]; product_id = 0x0107; },\n"
	"  { functions = [ \"mtp\", \"adb\" ]; product_id = 0x0108; }\n"
	");\n"
	"default = \"acm,ecm\";\n";

struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct gadget *g;
	char msg[4096];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128];
	FILE *fp;

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_gadget.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(test_profile, fp);
	fclose(fp);
	f->cfg.profile = "t";
	f->cfg.profile_dir = f->dir;
	f->cfg.udc = "auto";
	f->cfg.state_file = "/nonexistent/state";
	f->cfg.gadget_name = "g";
	f->cfg.ffs_dir = "/nonexistent";
	f->cfg.ready_timeout_ms = 100;
	fake_reset();
	f->loop = loop_new();
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	assert_int_equal(gadget_start(f->g, f->msg, sizeof(f->msg)), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	gadget_free(f->g);
	loop_free(f->loop);
	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void status_set(struct fixture *f, char *buf, size_t size)
{
	char *text = NULL, *p;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	gadget_status(f->g, out, false);
	fclose(out);
	p = strstr(text, "\nset: ");
	assert_non_null(p);
	snprintf(buf, size, "%.*s", (int)strcspn(p + 6, "\n"), p + 6);
	free(text);
}

static void test_start_applies_default(void **state)
{
	struct fixture *f = *state;
	char set[64];

	/* setup() ran gadget_start: the default set from nothing. */
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
	assert_string_equal(fake_state_set, "acm,ecm");
}

static void test_switch_replaces_functions(void **state)
{
	struct fixture *f = *state;
	char set[64];

	fake_clear_calls();
	assert_int_equal(gadget_switch(f->g, NULL, "ncm", f->msg, sizeof(f->msg)), 0);
	assert_string_equal(fake_calls,
			    "unbind() unlink_all() remove(acm) remove(ecm) "
			    "identity(0106) add(ncm) link(ncm) bind(dummy_udc.0) ");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
	assert_non_null(strstr(f->msg, "switched to ncm"));
}

static void test_switch_keeps_common_function(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(gadget_switch(f->g, NULL, "acm,adb", f->msg, sizeof(f->msg)), 0);
	fake_clear_calls();
	assert_int_equal(gadget_switch(f->g, NULL, "adb,mtp", f->msg, sizeof(f->msg)), 0);
	/* adb stays (its worker keeps running), acm goes, mtp comes. */
	assert_string_equal(fake_calls,
			    "unbind() unlink_all() remove(acm) identity(0108) "
			    "add(mtp) start(mtp) link(mtp) link(adb) bind(dummy_udc.0) ");
}

static void test_unknown_function_touches_nothing(void **state)
{
	struct fixture *f = *state;
	char set[64];

	fake_clear_calls();
	assert_int_equal(gadget_switch(f->g, NULL, "nosuch", f->msg, sizeof(f->msg)),
			 -ENOENT);
	assert_non_null(strstr(f->msg, "nosuch"));
	assert_string_equal(fake_calls, "");
	assert_int_equal(gadget_switch(f->g, NULL, "acm,ncm", f->msg, sizeof(f->msg)),
			 -EPERM);
	assert_string_equal(fake_calls, "");
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
}

static void test_plugin_not_ready_rolls_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	snprintf(fake_not_ready, sizeof(fake_not_ready), "mtp");
	fake_clear_calls();
	assert_int_equal(gadget_switch(f->g, NULL, "mtp,adb", f->msg, sizeof(f->msg)),
			 -ETIMEDOUT);
	assert_non_null(strstr(f->msg, "function mtp: plugin not ready"));
	assert_non_null(strstr(f->msg, "rolled back to acm,ecm"));
	/* The failed attempt's plugins are stopped and the old set is back. */
	assert_non_null(strstr(fake_calls, "stop(mtp)"));
	assert_non_null(strstr(fake_calls, "stop(adb)"));
	assert_non_null(strstr(fake_calls, "identity(0105) add(acm) add(ecm) link(acm) link(ecm) bind(dummy_udc.0) "));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "acm,ecm");
	assert_string_equal(fake_state_set, "acm,ecm");
}

static void test_link_failure_rolls_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(gadget_switch(f->g, NULL, "ncm", f->msg, sizeof(f->msg)), 0);
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(acm)");
	assert_true(gadget_switch(f->g, NULL, "acm,adb", f->msg, sizeof(f->msg)) < 0);
	assert_non_null(strstr(f->msg, "function acm: cannot link"));
	assert_non_null(strstr(f->msg, "rolled back to ncm"));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

static void test_failed_rollback_turns_gadget_off(void **state)
{
	struct fixture *f = *state;
	char set[64];

	/* Both the new set and the old one need a link that fails. */
	fake_clear_calls();
	snprintf(fake_fail_at, sizeof(fake_fail_at), "link(acm)");
	assert_true(gadget_switch(f->g, NULL, "acm,adb", f->msg, sizeof(f->msg)) < 0);
	assert_non_null(strstr(f->msg, "rollback to acm,ecm failed"));
	assert_non_null(strstr(f->msg, "the gadget is off"));
	assert_non_null(strstr(fake_calls, "destroy()"));
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "off");
}

static void test_off_and_back(void **state)
{
	struct fixture *f = *state;
	char set[64];

	assert_int_equal(gadget_off(f->g, f->msg, sizeof(f->msg)), 0);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "off");
	assert_string_equal(fake_state_set, "");
	assert_int_equal(gadget_switch(f->g, NULL, "ncm", f->msg, sizeof(f->msg)), 0);
	status_set(f, set, sizeof(set));
	assert_string_equal(set, "ncm");
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* A UDC appears while the gadget is unbound, and the kernel refuses the
 * first binds as busy (its gadget device is not on the bus yet): gadgetd
 * tries again from a timer until the bind holds. */
static void test_udc_bind_retried_while_busy(void **state)
{
	struct fixture *f = *state;
	int i;

	assert_non_null(fake_udc_fn);
	fake_udc_fn(fake_udc_data); /* bound already: nothing to do */
	fake_clear_calls();
	fake_udc_fn(fake_udc_data);
	assert_string_equal(fake_calls, "");

	fake_lose_binding();
	fake_bind_busy = 2;
	fake_udc_fn(fake_udc_data);
	assert_false(fake_is_bound());
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 1);
	for (i = 0; i < 20 && !fake_is_bound(); i++)
		loop_dispatch(f->loop, 100);
	assert_true(fake_is_bound());
	assert_int_equal(count(fake_calls, "bind(dummy_udc.0)"), 3);
}

static void test_unknown_profile(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(gadget_switch(f->g, "nosuch", NULL, f->msg, sizeof(f->msg)),
			 -ENOENT);
	assert_non_null(strstr(f->msg, "nosuch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_applies_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_replaces_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_keeps_common_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_function_touches_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_not_ready_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_failure_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_rollback_turns_gadget_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_and_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udc_bind_retried_while_busy, setup, teardown),
	};

	return cmocka_run_group_tests_name("gadget", tests, NULL, NULL);
}
