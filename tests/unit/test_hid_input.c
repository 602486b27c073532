/*
 * test_hid_input: a forwarded device's evdev events to HID reports
 * (functions/hid/hid_input.c): keys to the 6KRO report with modifiers,
 * autorepeat left to the host, buttons, motion and wheel summed to a
 * SYN_REPORT and split in steps of 127, every sum bounded, events of the
 * other kind ignored, SYN_DROPPED releasing everything, the hotkey (and
 * its keys kept from the host), and the hotkey option's malformed values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/input-event-codes.h>
#include <string.h>

#include "hid/hid_input.h"
#include "hid/hid_keymap.h"

static struct hid_keymap *km;

static int group_setup(void **state)
{
	char why[256];

	km = hid_keymap_new("us", why, sizeof(why));
	return km ? 0 : -1;
}

static int group_teardown(void **state)
{
	hid_keymap_free(km);
	return 0;
}

static enum hid_input_result ev(struct hid_input *in, uint16_t type, uint16_t code,
				int32_t value)
{
	return hid_input_event(in, type, code, value);
}

static enum hid_input_result syn(struct hid_input *in)
{
	return ev(in, EV_SYN, SYN_REPORT, 0);
}

static void want_keys(struct hid_input *in, uint8_t mods, const uint8_t keys[6])
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	static const uint8_t none[6];

	assert_int_equal(hid_input_reports(in, false, false, r), 1);
	assert_int_equal(r[0].len, 8);
	assert_int_equal(r[0].data[0], mods);
	assert_int_equal(r[0].data[1], 0);
	assert_memory_equal(r[0].data + 2, keys ? keys : none, 6);
}

static void test_keys(void **state)
{
	struct hid_input in;
	static const uint8_t a[6] = { 0x04 }, ab[6] = { 0x04, 0x05 }, b[6] = { 0x05 };

	hid_input_init(&in, true);
	assert_int_equal(ev(&in, EV_MSC, MSC_SCAN, 0x70004), HID_INPUT_NONE);
	assert_int_equal(ev(&in, EV_KEY, KEY_LEFTSHIFT, 1), HID_INPUT_NONE);
	assert_int_equal(ev(&in, EV_KEY, KEY_A, 1), HID_INPUT_NONE);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0x02, a);
	/* Autorepeat is the host's: no change, no report. */
	ev(&in, EV_KEY, KEY_A, 2);
	assert_int_equal(syn(&in), HID_INPUT_NONE);
	ev(&in, EV_KEY, KEY_B, 1);
	ev(&in, EV_KEY, KEY_LEFTSHIFT, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0, ab);
	ev(&in, EV_KEY, KEY_A, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0, b);
	/* Right Alt is bit 0x40. */
	ev(&in, EV_KEY, KEY_B, 0);
	ev(&in, EV_KEY, KEY_RIGHTALT, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0x40, NULL);
}

static void test_keys_rollover_and_junk(void **state)
{
	static const uint16_t codes[] = { KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G };
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	struct hid_input in;
	unsigned i;

	hid_input_init(&in, true);
	for (i = 0; i < 7; i++)
		ev(&in, EV_KEY, codes[i], 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 1);
	/* Seven keys in a 6KRO report: the rollover error in every slot. */
	for (i = 2; i < 8; i++)
		assert_int_equal(r[0].data[i], 0x01);
	/* Codes with no usage, values that are no key state, mouse events
	 * on a keyboard: nothing. */
	hid_input_init(&in, true);
	ev(&in, EV_KEY, 0xffff, 1);
	ev(&in, EV_KEY, KEY_A, -5);
	ev(&in, EV_KEY, KEY_A, 7);
	ev(&in, EV_KEY, BTN_LEFT, 1);
	ev(&in, EV_REL, REL_X, 5);
	ev(&in, 0xffff, 0xffff, INT32_MIN);
	assert_int_equal(syn(&in), HID_INPUT_NONE);
	/* A release of a key never pressed changes nothing held. */
	ev(&in, EV_KEY, KEY_Z, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0, NULL);
}

static void test_mouse(void **state)
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	struct hid_input in;

	hid_input_init(&in, false);
	ev(&in, EV_REL, REL_X, 10);
	ev(&in, EV_REL, REL_X, 5);
	ev(&in, EV_REL, REL_Y, -3);
	ev(&in, EV_REL, REL_WHEEL, 1);
	ev(&in, EV_KEY, BTN_LEFT, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 1);
	assert_int_equal(r[0].len, 4);
	assert_int_equal(r[0].data[0], 1);
	assert_int_equal((int8_t)r[0].data[1], 15);
	assert_int_equal((int8_t)r[0].data[2], -3);
	assert_int_equal((int8_t)r[0].data[3], 1);
	/* 300 right: 127 + 127 + 46, the button still held in each. */
	ev(&in, EV_REL, REL_X, 300);
	ev(&in, EV_KEY, BTN_RIGHT, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 3);
	assert_int_equal((int8_t)r[0].data[1], 127);
	assert_int_equal((int8_t)r[1].data[1], 127);
	assert_int_equal((int8_t)r[2].data[1], 46);
	assert_int_equal(r[2].data[0], 3);
	/* Boot protocol: three bytes. */
	ev(&in, EV_KEY, BTN_LEFT, 0);
	ev(&in, EV_KEY, BTN_RIGHT, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, true, r), 1);
	assert_int_equal(r[0].len, 3);
	assert_int_equal(r[0].data[0], 0);
	/* Keys on a mouse function: nothing. */
	ev(&in, EV_KEY, KEY_A, 1);
	assert_int_equal(syn(&in), HID_INPUT_NONE);
}

static void test_mouse_bounded(void **state)
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	struct hid_input in;
	unsigned i;
	int sum = 0;

	hid_input_init(&in, false);
	/* A hostile device: huge values, many times, both signs. */
	for (i = 0; i < 1000; i++)
		ev(&in, EV_REL, REL_X, INT32_MAX);
	ev(&in, EV_REL, REL_Y, INT32_MIN);
	ev(&in, EV_REL, REL_WHEEL, INT32_MIN);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), HID_INPUT_REPORTS_MAX);
	for (i = 0; i < HID_INPUT_REPORTS_MAX; i++)
		sum += (int8_t)r[i].data[1];
	assert_int_equal(sum, HID_INPUT_MOTION_MAX);
	assert_int_equal((int8_t)r[0].data[2], -127);
	/* Nothing left over for the next. */
	ev(&in, EV_KEY, BTN_LEFT, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 1);
	assert_int_equal(r[0].data[1], 0);
}

static void test_dropped(void **state)
{
	struct hid_input in;
	static const uint8_t a[6] = { 0x04 };

	hid_input_init(&in, true);
	ev(&in, EV_KEY, KEY_LEFTCTRL, 1);
	ev(&in, EV_KEY, KEY_A, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0x01, a);
	assert_int_equal(ev(&in, EV_SYN, SYN_DROPPED, 0), HID_INPUT_RESET);
	want_keys(&in, 0, NULL);
}

static void test_hotkey(void **state)
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	struct hid_input in;
	char why[256];

	hid_input_init(&in, true);
	assert_int_equal(hid_input_hotkey(&in, km, "ctrl+alt+scrolllock", why, sizeof(why)), 0);
	/* Right Ctrl counts as "ctrl". */
	ev(&in, EV_KEY, KEY_RIGHTCTRL, 1);
	ev(&in, EV_KEY, KEY_LEFTALT, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 1);
	assert_int_equal(ev(&in, EV_KEY, KEY_SCROLLLOCK, 1), HID_INPUT_HOTKEY);
	/* Muted until every key is up: the hotkey's keys stay on the board. */
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 0);
	ev(&in, EV_KEY, KEY_SCROLLLOCK, 0);
	ev(&in, EV_KEY, KEY_LEFTALT, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	assert_int_equal(hid_input_reports(&in, false, false, r), 0);
	ev(&in, EV_KEY, KEY_RIGHTCTRL, 0);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	want_keys(&in, 0, NULL);
	/* Not the hotkey: an extra modifier, or the key alone. */
	ev(&in, EV_KEY, KEY_SCROLLLOCK, 1);
	assert_int_equal(syn(&in), HID_INPUT_REPORT);
	ev(&in, EV_KEY, KEY_SCROLLLOCK, 0);
	ev(&in, EV_KEY, KEY_LEFTCTRL, 1);
	ev(&in, EV_KEY, KEY_LEFTALT, 1);
	ev(&in, EV_KEY, KEY_LEFTSHIFT, 1);
	assert_int_equal(ev(&in, EV_KEY, KEY_SCROLLLOCK, 1), HID_INPUT_NONE);
}

static void test_hotkey_malformed(void **state)
{
	struct hid_input in;
	char why[256];

	hid_input_init(&in, true);
	assert_int_equal(hid_input_hotkey(&in, km, "ctrl+nosuchkey", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no key named nosuchkey"));
	assert_int_equal(hid_input_hotkey(&in, km, "ctrl+alt", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "needs a key besides modifiers"));
	assert_int_equal(hid_input_hotkey(&in, km, "", why, sizeof(why)), -EINVAL);
	assert_int_equal(hid_input_hotkey(&in, km, "+++", why, sizeof(why)), -EINVAL);
	assert_int_equal(hid_input_hotkey(&in, km, "a+b+c+d+e", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "at most 4 keys"));
	assert_int_equal(hid_input_hotkey(&in, km,
					  "ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+ctrl+a",
					  why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "too long"));
	assert_int_equal(hid_input_hotkey(&in, km, "pause", why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_keys_rollover_and_junk),
		cmocka_unit_test(test_mouse),
		cmocka_unit_test(test_mouse_bounded),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_hotkey),
		cmocka_unit_test(test_hotkey_malformed),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
