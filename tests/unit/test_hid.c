/*
 * test_hid: the HID plugin's pure parts. Key codes are checked against
 * what the layouts print on real keyboards (US, German QWERTZ, French
 * AZERTY, British), so a wrong walk of XKB's tables shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hid/hid_cmd.h"
#include "hid/hid_desc.h"
#include "hid/hid_keymap.h"

static struct hid_keymap *km;

static int group_setup(void **state)
{
	char why[256];

	km = hid_keymap_new("us,de,fr,gb", why, sizeof(why));
	if (!km)
		print_error("%s\n", why);
	return km ? 0 : -1;
}

static int group_teardown(void **state)
{
	hid_keymap_free(km);
	return 0;
}

static void want_char(const char *layout, uint32_t cp, uint8_t usage, uint8_t mods)
{
	uint8_t u = 0, m = 0;

	assert_int_equal(hid_keymap_char(km, layout, cp, &u, &m), 0);
	assert_int_equal(u, usage);
	assert_int_equal(m, mods);
}

static void test_keymap_layouts(void **state)
{
	uint8_t u, m;

	want_char("us", 'a', 0x04, 0);
	want_char("us", 'H', 0x0b, HID_KEYMAP_LSHIFT);
	want_char("us", '@', 0x1f, HID_KEYMAP_LSHIFT);
	want_char("us", '<', 0x36, HID_KEYMAP_LSHIFT); /* not the ISO key */
	want_char("us", '\n', 0x28, 0);
	want_char("de", 'z', 0x1c, 0);                  /* QWERTZ */
	want_char("de", 'Y', 0x1d, HID_KEYMAP_LSHIFT);
	want_char("de", '@', 0x14, HID_KEYMAP_RALT);    /* AltGr+Q */
	want_char("de", '<', 0x64, 0);                  /* the ISO key */
	want_char("de", 0xfc, 0x2f, 0);                 /* u umlaut */
	want_char("fr", 'a', 0x14, 0);                  /* AZERTY */
	want_char("fr", '1', 0x1e, HID_KEYMAP_LSHIFT);
	want_char("uk", '"', 0x1f, HID_KEYMAP_LSHIFT);  /* "uk" is gb */
	want_char("gb", '#', 0x31, 0);
	assert_int_equal(hid_keymap_char(km, "de", '^', &u, &m), -ENOENT); /* dead key */
	assert_int_equal(hid_keymap_char(km, "it", 'a', &u, &m), -ESRCH);
}

static void test_keymap_names(void **state)
{
	uint8_t u;

	assert_int_equal(hid_keymap_key(km, "ctrl", &u), 0);
	assert_int_equal(u, 0xe0);
	assert_int_equal(hid_keymap_key(km, "del", &u), 0);
	assert_int_equal(u, 0x4c);
	assert_int_equal(hid_keymap_key(km, "F12", &u), 0);
	assert_int_equal(u, 0x45);
	assert_int_equal(hid_keymap_key(km, "return", &u), 0);
	assert_int_equal(u, 0x28);
	assert_int_equal(hid_keymap_key(km, "nosuchkey", &u), -ENOENT);
	assert_int_equal(hid_keymap_evdev(0x04), 30);
	assert_int_equal(hid_keymap_usage(30), 0x04);
	assert_int_equal(hid_keymap_usage(0), 0);
}

static void test_keymap_bad_layout(void **state)
{
	char why[256] = "";

	assert_null(hid_keymap_new("us,xx", why, sizeof(why)));
	assert_string_equal(why, "layout xx: XKB has no such layout (or variant)");
	assert_null(hid_keymap_new("de(", why, sizeof(why)));
	assert_non_null(strstr(why, "not LAYOUT or LAYOUT(VARIANT)"));
}

static void test_desc_keys(void **state)
{
	struct hid_desc_keys k = { 0 };
	uint8_t out[HID_DESC_REPORT_MAX];
	unsigned i;

	hid_desc_keys_set(&k, 0xe1, true);
	hid_desc_keys_set(&k, 0x04, true);
	assert_int_equal(hid_desc_keys_report(&k, false, false, out), 8);
	assert_int_equal(out[0], 0x02);
	assert_int_equal(out[2], 0x04);
	for (i = 0; i < 6; i++)
		hid_desc_keys_set(&k, (uint8_t)(0x05 + i), true);
	assert_int_equal(hid_desc_keys_report(&k, false, false, out), 8);
	assert_int_equal(out[2], 0x01);                  /* rollover error */
	assert_int_equal(out[7], 0x01);
	assert_int_equal(hid_desc_keys_report(&k, true, false, out), 18);
	assert_int_equal(out[1], 0x7f);                  /* usages 4..10 */
	assert_int_equal(hid_desc_keys_report(&k, true, true, out), 8); /* boot */
	hid_desc_keys_set(&k, 0x04, false);
	hid_desc_keys_set(&k, 0xe1, false);
	assert_int_equal(k.n, 6);
	assert_int_equal(k.mods, 0);
}

static void test_desc_class(void **state)
{
	uint8_t c[HID_DESC_CLASS_LEN];
	size_t len;
	const uint8_t *d = hid_desc_report(HID_DESC_KEYBOARD, false, &len);

	hid_desc_class(c, len);
	assert_int_equal(c[0], 9);
	assert_int_equal(c[1], 0x21);
	assert_int_equal(c[7] | c[8] << 8, len);
	assert_int_equal(d[len - 1], 0xc0);
	assert_int_equal(hid_desc_subclass(HID_DESC_KEYBOARD), 1);
	assert_int_equal(hid_desc_protocol(HID_DESC_MOUSE), 2);
	assert_int_equal(hid_desc_subclass(HID_DESC_TABLET), 0);
}

static struct hid_cmd_ctx ctx(enum hid_desc_kind kind)
{
	struct hid_cmd_ctx c = { .kind = kind, .keymap = km, .layout = "us" };

	return c;
}

static int run(struct hid_cmd_ctx *c, struct hid_cmd_job *job, char *reply, ...)
{
	char *argv[8];
	int argc = 0;
	va_list ap;

	va_start(ap, reply);
	while (argc < 8 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	reply[0] = '\0';
	return hid_cmd_parse(c, argc, argv, job, reply, 256);
}

static void want_report(const struct hid_cmd_job *job, size_t i, const uint8_t *bytes,
			size_t len, bool unit)
{
	assert_true(i < job->n);
	assert_int_equal(job->r[i].len, len);
	assert_memory_equal(job->r[i].data, bytes, len);
	assert_int_equal(job->r[i].unit, unit);
}

static void test_cmd_type(void **state)
{
	struct hid_cmd_ctx c = ctx(HID_DESC_KEYBOARD);
	struct hid_cmd_job job;
	char reply[256];
	static const uint8_t A[8] = { 0x02, 0, 0x04 }, none[8] = { 0 };
	static const uint8_t b[8] = { 0, 0, 0x05 }, space[8] = { 0, 0, 0x2c };
	static const uint8_t z_de[8] = { 0, 0, 0x1c };

	assert_int_equal(run(&c, &job, reply, "type", "A", "b", NULL), 1);
	assert_int_equal(job.units, 3);                 /* "A b" */
	assert_int_equal(job.n, 6);
	want_report(&job, 0, A, 8, true);
	want_report(&job, 1, none, 8, false);
	want_report(&job, 2, space, 8, true);
	want_report(&job, 4, b, 8, true);
	hid_cmd_job_finish(&job);

	assert_int_equal(run(&c, &job, reply, "type", "--layout", "de", "z", NULL), 1);
	want_report(&job, 0, z_de, 8, true);
	hid_cmd_job_finish(&job);

	/* Refused whole: nothing to send. */
	assert_int_equal(run(&c, &job, reply, "type", "--layout", "de", "a^", NULL), -ENOENT);
	assert_string_equal(reply, "character 2 '^' (U+005E) has no key in layout de "
				   "(dead keys are not typed); nothing typed");
	assert_int_equal(job.n, 0);
	assert_int_equal(run(&c, &job, reply, "type", "--layout", "it", "a", NULL), -ESRCH);
	assert_int_equal(run(&c, &job, reply, "type", "\xff", NULL), -EILSEQ);
}

/* An empty text is done at once: a job without reports crashed the
 * worker (hid.c sends a job's first report at once). A refused text
 * leaves the keys key --down holds held, as the host still has them
 * (both found by fuzz_hid). */
static void test_cmd_type_nothing(void **state)
{
	struct hid_cmd_ctx c = ctx(HID_DESC_KEYBOARD);
	struct hid_cmd_job job;
	char reply[256];

	assert_int_equal(run(&c, &job, reply, "type", "", NULL), 0);
	assert_string_equal(reply, "typed 0 characters");
	assert_int_equal(job.n, 0);
	assert_int_equal(run(&c, &job, reply, "key", "--down", "shift", NULL), 1);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&c, &job, reply, "type", "\xc3\xa9", NULL), -ENOENT);
	assert_int_equal(c.keys.mods, HID_KEYMAP_LSHIFT);
	assert_int_equal(run(&c, &job, reply, "type", "\xff", NULL), -EILSEQ);
	assert_int_equal(c.keys.mods, HID_KEYMAP_LSHIFT);
	assert_int_equal(run(&c, &job, reply, "type", "a", NULL), 1);
	hid_cmd_job_finish(&job);
	assert_int_equal(c.keys.mods, 0);
}

/* Once the host chose the boot protocol, send takes the boot report: an
 * NKRO keyboard's report-protocol bytes went to a BIOS that reads 8, a
 * mouse's 4 where it reads 3 (fuzz_hid). */
static void test_cmd_send_boot(void **state)
{
	struct hid_cmd_ctx k = ctx(HID_DESC_KEYBOARD), m = ctx(HID_DESC_MOUSE);
	struct hid_cmd_job job;
	char reply[256];

	k.nkro = true;
	k.boot = true;
	assert_int_equal(run(&k, &job, reply, "send", "0000040000000000", NULL), 1);
	assert_int_equal(job.r[0].len, 8);
	hid_cmd_job_finish(&job);
	m.boot = true;
	assert_int_equal(run(&m, &job, reply, "send", "01000000", NULL), -EINVAL);
	assert_string_equal(reply, "usage: send HEX (one input report of 3 bytes)");
	assert_int_equal(run(&m, &job, reply, "send", "010000", NULL), 1);
	assert_int_equal(job.r[0].len, 3);
	hid_cmd_job_finish(&job);
	m.boot = false;
	assert_int_equal(run(&m, &job, reply, "send", "01000000", NULL), 1);
	assert_int_equal(job.r[0].len, 4);
	hid_cmd_job_finish(&job);
}

static void test_cmd_key(void **state)
{
	struct hid_cmd_ctx c = ctx(HID_DESC_KEYBOARD);
	struct hid_cmd_job job;
	char reply[256];
	static const uint8_t cad[8] = { 0x05, 0, 0x4c }, none[8] = { 0 };
	static const uint8_t shift[8] = { 0x02 };

	assert_int_equal(run(&c, &job, reply, "key", "ctrl+alt+del", NULL), 1);
	assert_int_equal(job.n, 2);
	want_report(&job, 0, cad, 8, true);
	want_report(&job, 1, none, 8, false);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&c, &job, reply, "key", "--down", "shift", NULL), 1);
	want_report(&job, 0, shift, 8, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(c.keys.mods, 0x02);
	assert_int_equal(run(&c, &job, reply, "key", "--up", NULL), 1);
	want_report(&job, 0, none, 8, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&c, &job, reply, "key", "ctrl+bogus", NULL), -ENOENT);
	assert_string_equal(reply, "ctrl+bogus: no key named bogus");
	assert_int_equal(run(&c, &job, reply, "leds", NULL), 0);
	assert_string_equal(reply, "num off caps off scroll off");
	assert_int_equal(run(&c, &job, reply, "move", "1", "2", NULL), -EINVAL);
}

static void test_cmd_pointer(void **state)
{
	struct hid_cmd_ctx m = ctx(HID_DESC_MOUSE), t = ctx(HID_DESC_TABLET);
	struct hid_cmd_ctx v = ctx(HID_DESC_CONSUMER);
	struct hid_cmd_job job;
	char reply[256];
	static const uint8_t r127[4] = { 0, 127, 0, 0 }, r46[4] = { 0, 46, 0, 0 };
	static const uint8_t right[4] = { 2, 0, 0, 0 }, boot[3] = { 0, 0xfb, 0 };
	static const uint8_t abs[6] = { 0, 0xe8, 0x03, 0x20, 0x4e, 0 };
	static const uint8_t vol[2] = { 0xe9, 0 }, off[2] = { 0 };

	assert_int_equal(run(&m, &job, reply, "mouse", "move", "300", "0", NULL), 1);
	assert_int_equal(job.n, 3);
	want_report(&job, 0, r127, 4, true);
	want_report(&job, 2, r46, 4, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&m, &job, reply, "click", "right", NULL), 1);
	assert_int_equal(job.units, 1);
	want_report(&job, 0, right, 4, true);
	hid_cmd_job_finish(&job);
	m.boot = true;
	assert_int_equal(run(&m, &job, reply, "move", "-5", "0", NULL), 1);
	want_report(&job, 0, boot, 3, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&m, &job, reply, "abs", "1", "1", NULL), -EINVAL);

	assert_int_equal(run(&t, &job, reply, "abs", "1000", "20000", NULL), 1);
	want_report(&job, 0, abs, 6, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&t, &job, reply, "abs", "40000", "0", NULL), -EINVAL);

	assert_int_equal(run(&v, &job, reply, "key", "volume_up", NULL), 1);
	want_report(&job, 0, vol, 2, true);
	want_report(&job, 1, off, 2, false);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&v, &job, reply, "send", "e900", NULL), 1);
	want_report(&job, 0, vol, 2, true);
	hid_cmd_job_finish(&job);
	assert_int_equal(run(&v, &job, reply, "send", "e9", NULL), -EINVAL);
	assert_string_equal(reply, "usage: send HEX (one input report of 2 bytes)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keymap_layouts),
		cmocka_unit_test(test_keymap_names),
		cmocka_unit_test(test_keymap_bad_layout),
		cmocka_unit_test(test_desc_keys),
		cmocka_unit_test(test_desc_class),
		cmocka_unit_test(test_cmd_type),
		cmocka_unit_test(test_cmd_type_nothing),
		cmocka_unit_test(test_cmd_send_boot),
		cmocka_unit_test(test_cmd_key),
		cmocka_unit_test(test_cmd_pointer),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
