/*
 * libFuzzer target: what a forwarded local input device sends
 * (forward = "input"): its evdev events through hid_input (the events to
 * reports of functions/hid/hid_input.c), and a forward_match text through
 * inputmatch_parse and inputmatch_match (gadgetd/profile/inputmatch.c).
 *
 * Input: byte 0 picks the function (bit 0: a keyboard, else a mouse;
 * bit 1: NKRO; bit 2: the host chose the boot protocol). Then a rules
 * text up to the first 0x00, matched against a device named by the
 * text after it up to the next 0x00. The rest is events of 8 bytes each
 * (u16 type, u16 code, i32 value, host order), as a hostile device
 * could send them.
 *
 * What must hold, whatever the bytes:
 *   - a rules text parses or is refused with a reason; matching one never
 *     fails;
 *   - each SYN_REPORT gives at most HID_INPUT_REPORTS_MAX reports, each of
 *     the length the host expects (8 or the NKRO report for a keyboard, 3
 *     or 4 for a mouse), no pointer step beyond 127, and no more than 6
 *     keys (the rollover error instead) in a 6KRO report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hid/hid_input.h"
#include "hid/hid_keymap.h"
#include "inputmatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hid_keymap *keymap;

static void fuzz_rules(const char *rules, const char *name)
{
	struct inputmatch m;
	struct inputmatch_dev d = { .name = name, .vendor = 0x046d, .product = 0xc31c,
				    .bus = 0x03 };
	char why[256] = "";

	if (inputmatch_parse(rules, &m, why, sizeof(why)) < 0) {
		if (!why[0])
			abort(); /* a refusal says why */
		return;
	}
	if (m.n < 1 || m.n > INPUTMATCH_RULES)
		abort();
	(void)inputmatch_match(&m, &d);
}

static void check_reports(const struct hid_input *in, bool nkro, bool boot,
			  const struct hid_cmd_report *r, size_t n)
{
	size_t want = in->keys ? hid_desc_report_len(HID_DESC_KEYBOARD, nkro && !boot) :
		      boot ? 3 : hid_desc_report_len(HID_DESC_MOUSE, false);

	if (in->keys && boot)
		want = 8;
	if (n > HID_INPUT_REPORTS_MAX)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (r[i].len != want)
			abort();
		if (!in->keys && ((int8_t)r[i].data[1] < -127 || (int8_t)r[i].data[2] < -127))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hid_cmd_report r[HID_INPUT_REPORTS_MAX];
	struct hid_input in;
	char rules[1200], name[200], why[256];
	bool nkro, boot;
	size_t i = 1, n;

	if (!keymap) {
		keymap = hid_keymap_new("us", why, sizeof(why));
		if (!keymap)
			abort();
	}
	if (!size)
		return 0;
	hid_input_init(&in, data[0] & 1);
	nkro = data[0] & 2;
	boot = data[0] & 4;
	if (in.keys && hid_input_hotkey(&in, keymap, "ctrl+alt+scrolllock", why, sizeof(why)) < 0)
		abort();
	for (n = 0; i < size && data[i] && n < sizeof(rules) - 1; i++)
		rules[n++] = (char)data[i];
	rules[n] = '\0';
	i++;
	for (n = 0; i < size && data[i] && n < sizeof(name) - 1; i++)
		name[n++] = (char)data[i];
	name[n] = '\0';
	i++;
	fuzz_rules(rules, name);
	for (; i + 8 <= size; i += 8) {
		uint16_t type, code;
		int32_t value;

		memcpy(&type, data + i, 2);
		memcpy(&code, data + i + 2, 2);
		memcpy(&value, data + i + 4, 4);
		if (hid_input_event(&in, type, code, value) == HID_INPUT_REPORT) {
			n = hid_input_reports(&in, nkro, boot, r);
			check_reports(&in, nkro, boot, r, n);
		}
	}
	return 0;
}
