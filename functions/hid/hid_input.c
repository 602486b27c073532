/*
 * hid_input: evdev events to reports (hid_input.h).
 */
#include "hid_input.h"
#include "hid_keymap.h"

#include <errno.h>
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <string.h>

void hid_input_init(struct hid_input *in, bool keys)
{
	memset(in, 0, sizeof(*in));
	in->keys = keys;
}

/* Modifier bits folded onto the left ones: "ctrl" is either Ctrl. */
static uint8_t hid_input_fold(uint8_t mods)
{
	return (uint8_t)((mods | mods >> 4) & 0x0f);
}

int hid_input_hotkey(struct hid_input *in, const struct hid_keymap *m, const char *combo,
		     char *why, size_t size)
{
	char buf[64], *save = NULL, *tok;
	uint8_t usage;

	in->hot_mods = 0;
	in->n_hot = 0;
	if (strlen(combo) >= sizeof(buf)) {
		snprintf(why, size, "hotkey \"%.63s...\": too long", combo);
		return -EINVAL;
	}
	strcpy(buf, combo);
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		if (hid_keymap_key(m, tok, &usage) < 0) {
			snprintf(why, size, "hotkey \"%s\": no key named %s", combo, tok);
			return -EINVAL;
		}
		if (usage >= 0xe0 && usage <= 0xe7) {
			in->hot_mods |= hid_input_fold((uint8_t)(1u << (usage - 0xe0)));
		} else if (in->n_hot == HID_INPUT_HOT_KEYS) {
			snprintf(why, size, "hotkey \"%s\": at most %d keys besides modifiers",
				 combo, HID_INPUT_HOT_KEYS);
			return -EINVAL;
		} else {
			in->hot_keys[in->n_hot++] = usage;
		}
	}
	if (!in->n_hot) {
		snprintf(why, size, "hotkey \"%s\": needs a key besides modifiers", combo);
		return -EINVAL;
	}
	return 0;
}

static bool hid_input_held(const struct hid_input *in, uint8_t usage)
{
	unsigned i;

	for (i = 0; i < in->k.n; i++)
		if (in->k.usages[i] == usage)
			return true;
	return false;
}

static bool hid_input_hot(const struct hid_input *in)
{
	unsigned i;

	if (!in->n_hot || hid_input_fold(in->k.mods) != in->hot_mods)
		return false;
	for (i = 0; i < in->n_hot; i++)
		if (!hid_input_held(in, in->hot_keys[i]))
			return false;
	return true;
}

static enum hid_input_result hid_input_key(struct hid_input *in, uint16_t code,
					   int32_t value)
{
	uint8_t usage = hid_keymap_usage(code);

	/* 2 is autorepeat: the host repeats on its own. */
	if (!usage || (value != 0 && value != 1))
		return HID_INPUT_NONE;
	/* A full state (more keys than the bitmap) drops the press: the
	 * release that follows finds nothing. */
	if (hid_desc_keys_set(&in->k, usage, value == 1) < 0)
		return HID_INPUT_NONE;
	in->dirty = true;
	if (value == 1 && hid_input_hot(in)) {
		in->mute = true;
		return HID_INPUT_HOTKEY;
	}
	return HID_INPUT_NONE;
}

static int32_t hid_input_add(int32_t sum, int32_t v)
{
	int64_t s = (int64_t)sum + v;

	return s > HID_INPUT_MOTION_MAX ? HID_INPUT_MOTION_MAX :
	       s < -HID_INPUT_MOTION_MAX ? -HID_INPUT_MOTION_MAX : (int32_t)s;
}

static void hid_input_pointer(struct hid_input *in, uint16_t type, uint16_t code,
			      int32_t value)
{
	uint8_t bit;

	if (type == EV_KEY && code >= BTN_LEFT && code <= BTN_EXTRA && (value == 0 || value == 1)) {
		/* BTN_LEFT, RIGHT, MIDDLE, SIDE (back), EXTRA (forward):
		 * the report's buttons 1..5. */
		bit = (uint8_t)(1u << (code - BTN_LEFT));
		in->buttons = value ? in->buttons | bit : in->buttons & ~bit;
		in->dirty = true;
	} else if (type == EV_REL && (code == REL_X || code == REL_Y || code == REL_WHEEL)) {
		int32_t *sum = code == REL_X ? &in->dx : code == REL_Y ? &in->dy : &in->wheel;

		*sum = hid_input_add(*sum, value);
		in->dirty = true;
	}
}

enum hid_input_result hid_input_event(struct hid_input *in, uint16_t type, uint16_t code,
				      int32_t value)
{
	if (type == EV_SYN && code == SYN_DROPPED) {
		hid_input_release_all(in);
		return HID_INPUT_RESET;
	}
	if (type == EV_SYN && code == SYN_REPORT) {
		if (!in->dirty)
			return HID_INPUT_NONE;
		in->dirty = false;
		if (in->mute && !in->k.n && !in->k.mods && !in->buttons)
			in->mute = false;
		return HID_INPUT_REPORT;
	}
	if (in->keys)
		return type == EV_KEY ? hid_input_key(in, code, value) : HID_INPUT_NONE;
	hid_input_pointer(in, type, code, value);
	return HID_INPUT_NONE;
}

static int32_t hid_input_step(int32_t *sum)
{
	int32_t s = *sum > 127 ? 127 : *sum < -127 ? -127 : *sum;

	*sum -= s;
	return s;
}

size_t hid_input_reports(struct hid_input *in, bool nkro, bool boot,
			 struct hid_cmd_report *out)
{
	size_t n = 0;

	if (in->mute) {
		in->dx = in->dy = in->wheel = 0;
		return 0;
	}
	if (in->keys) {
		memset(&out[0], 0, sizeof(out[0]));
		out[0].len = (uint8_t)hid_desc_keys_report(&in->k, nkro, boot, out[0].data);
		out[0].unit = true;
		return 1;
	}
	do {
		int8_t x = (int8_t)hid_input_step(&in->dx);
		int8_t y = (int8_t)hid_input_step(&in->dy);
		int8_t w = (int8_t)hid_input_step(&in->wheel);

		memset(&out[n], 0, sizeof(out[n]));
		out[n].len = (uint8_t)hid_desc_mouse_report(in->buttons, x, y, w, boot,
							    out[n].data);
		out[n].unit = true;
		n++;
	} while (n < HID_INPUT_REPORTS_MAX && (in->dx || in->dy || in->wheel));
	in->dx = in->dy = in->wheel = 0;
	return n;
}

void hid_input_release_all(struct hid_input *in)
{
	memset(&in->k, 0, sizeof(in->k));
	in->buttons = 0;
	in->dx = in->dy = in->wheel = 0;
	in->dirty = false;
	in->mute = false;
}
