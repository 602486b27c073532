/*
 * hid_desc: report descriptors written from the HID 1.11 specification's
 * items (Device Class Definition for HID 1.11, 6.2.2, and its boot
 * appendix B), and the reports that match them.
 */
#include "hid_desc.h"

#include <errno.h>
#include <string.h>

/* Modifiers, a reserved byte, five LEDs out, six key usages 0..0x8b. */
static const uint8_t hid_desc_kbd[] = {
	0x05, 0x01, 0x09, 0x06, 0xa1, 0x01,       /* Generic Desktop, Keyboard, Application */
	0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7,       /* Keyboard page, usages 0xe0..0xe7 */
	0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08,
	0x81, 0x02,                               /* Input: 8 modifier bits */
	0x95, 0x01, 0x75, 0x08, 0x81, 0x01,       /* Input: reserved byte */
	0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05,
	0x91, 0x02,                               /* Output: Num, Caps, Scroll, Compose, Kana */
	0x95, 0x01, 0x75, 0x03, 0x91, 0x01,       /* Output: padding */
	0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x26, 0x8b, 0x00,
	0x05, 0x07, 0x19, 0x00, 0x29, 0x8b,
	0x81, 0x00,                               /* Input: six usages (array) */
	0xc0,
};

/* Modifiers, five LEDs out, then one bit per usage 0x04..0x8b (136). */
static const uint8_t hid_desc_nkro[] = {
	0x05, 0x01, 0x09, 0x06, 0xa1, 0x01,
	0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7,
	0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08,
	0x81, 0x02,
	0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05,
	0x91, 0x02,
	0x95, 0x01, 0x75, 0x03, 0x91, 0x01,
	0x05, 0x07, 0x19, HID_DESC_NKRO_FIRST, 0x29, HID_DESC_NKRO_LAST,
	0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x88,
	0x81, 0x02,                               /* Input: 136 key bits */
	0xc0,
};

/* Five buttons, relative X, Y and wheel in -127..127. */
static const uint8_t hid_desc_mouse[] = {
	0x05, 0x01, 0x09, 0x02, 0xa1, 0x01,       /* Mouse, Application */
	0x09, 0x01, 0xa1, 0x00,                   /* Pointer, Physical */
	0x05, 0x09, 0x19, 0x01, 0x29, 0x05,       /* Buttons 1..5 */
	0x15, 0x00, 0x25, 0x01, 0x95, 0x05, 0x75, 0x01,
	0x81, 0x02,
	0x95, 0x01, 0x75, 0x03, 0x81, 0x01,       /* padding */
	0x05, 0x01, 0x09, 0x30, 0x09, 0x31, 0x09, 0x38, /* X, Y, Wheel */
	0x15, 0x81, 0x25, 0x7f, 0x75, 0x08, 0x95, 0x03,
	0x81, 0x06,                               /* Input: relative */
	0xc0, 0xc0,
};

/* Three buttons, absolute X and Y in 0..32767, relative wheel. */
static const uint8_t hid_desc_tablet[] = {
	0x05, 0x01, 0x09, 0x02, 0xa1, 0x01,
	0x09, 0x01, 0xa1, 0x00,
	0x05, 0x09, 0x19, 0x01, 0x29, 0x03,
	0x15, 0x00, 0x25, 0x01, 0x95, 0x03, 0x75, 0x01,
	0x81, 0x02,
	0x95, 0x01, 0x75, 0x05, 0x81, 0x01,
	0x05, 0x01, 0x09, 0x30, 0x09, 0x31,
	0x15, 0x00, 0x26, 0xff, 0x7f, 0x75, 0x10, 0x95, 0x02,
	0x81, 0x02,                               /* Input: absolute */
	0x09, 0x38, 0x15, 0x81, 0x25, 0x7f, 0x75, 0x08, 0x95, 0x01,
	0x81, 0x06,
	0xc0, 0xc0,
};

/* One consumer-page usage 0..0x3ff at a time. */
static const uint8_t hid_desc_consumer[] = {
	0x05, 0x0c, 0x09, 0x01, 0xa1, 0x01,       /* Consumer Control, Application */
	0x15, 0x00, 0x26, 0xff, 0x03, 0x19, 0x00, 0x2a, 0xff, 0x03,
	0x75, 0x10, 0x95, 0x01,
	0x81, 0x00,                               /* Input: one usage (array) */
	0xc0,
};

#define HID_DESC_NKRO_BYTES ((HID_DESC_NKRO_LAST - HID_DESC_NKRO_FIRST + 1) / 8)

int hid_desc_kind(const char *name, enum hid_desc_kind *kind)
{
	static const char *const names[] = { "keyboard", "mouse", "tablet", "consumer" };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i])) {
			*kind = (enum hid_desc_kind)i;
			return 0;
		}
	return -EINVAL;
}

const uint8_t *hid_desc_report(enum hid_desc_kind kind, bool nkro, size_t *len)
{
	switch (kind) {
	case HID_DESC_KEYBOARD:
		*len = nkro ? sizeof(hid_desc_nkro) : sizeof(hid_desc_kbd);
		return nkro ? hid_desc_nkro : hid_desc_kbd;
	case HID_DESC_MOUSE:
		*len = sizeof(hid_desc_mouse);
		return hid_desc_mouse;
	case HID_DESC_TABLET:
		*len = sizeof(hid_desc_tablet);
		return hid_desc_tablet;
	case HID_DESC_CONSUMER:
		*len = sizeof(hid_desc_consumer);
		return hid_desc_consumer;
	}
	*len = 0;
	return NULL;
}

size_t hid_desc_report_len(enum hid_desc_kind kind, bool nkro)
{
	switch (kind) {
	case HID_DESC_KEYBOARD:
		return nkro ? 1 + HID_DESC_NKRO_BYTES : 2 + HID_DESC_KEYS;
	case HID_DESC_MOUSE:
		return 4;
	case HID_DESC_TABLET:
		return 6;
	case HID_DESC_CONSUMER:
		return 2;
	}
	return 0;
}

uint8_t hid_desc_subclass(enum hid_desc_kind kind)
{
	return kind == HID_DESC_KEYBOARD || kind == HID_DESC_MOUSE;
}

uint8_t hid_desc_protocol(enum hid_desc_kind kind)
{
	return kind == HID_DESC_KEYBOARD ? 1 : kind == HID_DESC_MOUSE ? 2 : 0;
}

void hid_desc_class(uint8_t out[HID_DESC_CLASS_LEN], size_t report_len)
{
	out[0] = HID_DESC_CLASS_LEN;
	out[1] = 0x21;                 /* HID */
	out[2] = 0x11;                 /* bcdHID 1.11 */
	out[3] = 0x01;
	out[4] = 0;                    /* bCountryCode: not localized */
	out[5] = 1;                    /* one class descriptor follows */
	out[6] = 0x22;                 /* report */
	out[7] = report_len & 0xff;
	out[8] = report_len >> 8;
}

int hid_desc_keys_set(struct hid_desc_keys *k, uint8_t usage, bool down)
{
	unsigned i;

	if (usage >= 0xe0 && usage <= 0xe7) {
		if (down)
			k->mods |= 1u << (usage - 0xe0);
		else
			k->mods &= ~(1u << (usage - 0xe0));
		return 0;
	}
	for (i = 0; i < k->n && k->usages[i] != usage; i++)
		;
	if (!down) {
		if (i < k->n) {
			memmove(k->usages + i, k->usages + i + 1, k->n - i - 1);
			k->n--;
		}
		return 0;
	}
	if (i < k->n)
		return 0;
	if (k->n == sizeof(k->usages))
		return -ENOSPC;
	k->usages[k->n++] = usage;
	return 0;
}

size_t hid_desc_keys_report(const struct hid_desc_keys *k, bool nkro, bool boot,
			    uint8_t *out)
{
	unsigned i;

	if (nkro && !boot) {
		memset(out, 0, 1 + HID_DESC_NKRO_BYTES);
		out[0] = k->mods;
		for (i = 0; i < k->n; i++) {
			unsigned b = k->usages[i] - HID_DESC_NKRO_FIRST;

			if (k->usages[i] >= HID_DESC_NKRO_FIRST &&
			    k->usages[i] <= HID_DESC_NKRO_LAST)
				out[1 + b / 8] |= 1u << (b % 8);
		}
		return 1 + HID_DESC_NKRO_BYTES;
	}
	memset(out, 0, 2 + HID_DESC_KEYS);
	out[0] = k->mods;
	for (i = 0; i < HID_DESC_KEYS; i++)
		out[2 + i] = k->n > HID_DESC_KEYS ? 0x01 : i < k->n ? k->usages[i] : 0;
	return 2 + HID_DESC_KEYS;
}

size_t hid_desc_mouse_report(uint8_t buttons, int8_t dx, int8_t dy, int8_t wheel,
			     bool boot, uint8_t *out)
{
	out[0] = buttons & 0x1f;
	out[1] = (uint8_t)dx;
	out[2] = (uint8_t)dy;
	out[3] = (uint8_t)wheel;
	return boot ? 3 : 4;
}

size_t hid_desc_tablet_report(uint8_t buttons, uint16_t x, uint16_t y,
			      int8_t wheel, uint8_t *out)
{
	out[0] = buttons & 0x07;
	out[1] = x & 0xff;
	out[2] = x >> 8;
	out[3] = y & 0xff;
	out[4] = y >> 8;
	out[5] = (uint8_t)wheel;
	return 6;
}

size_t hid_desc_consumer_report(uint16_t usage, uint8_t *out)
{
	out[0] = usage & 0xff;
	out[1] = usage >> 8;
	return 2;
}
