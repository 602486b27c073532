/*
 * hid_desc: the HID plugin's built-in devices: their report descriptors,
 * their class descriptor and the input reports they send. Pure data and
 * byte building, no I/O.
 *
 * The keyboard's reports follow the boot layout (modifiers, a reserved
 * byte, six key usages) or, with nkro, modifiers and a bitmap of usages
 * 0x04..0x8b; in boot protocol (a BIOS's SET_PROTOCOL 0) it sends the
 * boot layout whatever its descriptor says. The mouse's first three bytes
 * are the boot mouse report (buttons, dx, dy), the wheel follows. The
 * tablet reports buttons, X and Y in 0..32767 (little endian) and a wheel;
 * consumer keys one 16-bit usage of the consumer page (0: none).
 */
#ifndef GADGETD_HID_DESC_H
#define GADGETD_HID_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hid_desc_kind {
	HID_DESC_KEYBOARD,
	HID_DESC_MOUSE,
	HID_DESC_TABLET,
	HID_DESC_CONSUMER,
};

/* Longest input report any device here sends (a profile's own too). */
#define HID_DESC_REPORT_MAX 64
/* The class descriptor (0x21) with one report descriptor. */
#define HID_DESC_CLASS_LEN 9
/* Keys a 6KRO keyboard report holds. */
#define HID_DESC_KEYS 6
/* Keyboard usages the NKRO bitmap covers. */
#define HID_DESC_NKRO_FIRST 0x04
#define HID_DESC_NKRO_LAST 0x8b
/* The tablet's axes run 0..HID_DESC_ABS_MAX. */
#define HID_DESC_ABS_MAX 32767

/* The kind named name ("keyboard", ...): 0 or -EINVAL. */
int hid_desc_kind(const char *name, enum hid_desc_kind *kind);

/* The built-in report descriptor of kind (nkro: the keyboard's other). */
const uint8_t *hid_desc_report(enum hid_desc_kind kind, bool nkro, size_t *len);

/* Its input report's length in report protocol. */
size_t hid_desc_report_len(enum hid_desc_kind kind, bool nkro);

/* bInterfaceSubClass (1: boot device) and bInterfaceProtocol (1 keyboard,
 * 2 mouse) of kind. */
uint8_t hid_desc_subclass(enum hid_desc_kind kind);
uint8_t hid_desc_protocol(enum hid_desc_kind kind);

/* The HID class descriptor for a report descriptor of report_len bytes. */
void hid_desc_class(uint8_t out[HID_DESC_CLASS_LEN], size_t report_len);

/* A keyboard's state: modifier bits (0x01 left ctrl .. 0x80 right GUI)
 * and the non-modifier usages held, in the order pressed. */
struct hid_desc_keys {
	uint8_t mods;
	unsigned n;
	uint8_t usages[HID_DESC_NKRO_LAST - HID_DESC_NKRO_FIRST + 1];
};

/* Press (down) or release usage in k: a modifier usage 0xe0..0xe7 sets
 * or clears its bit. -ENOSPC when k is full, 0 otherwise. */
int hid_desc_keys_set(struct hid_desc_keys *k, uint8_t usage, bool down);

/*
 * The keyboard report of k into out (HID_DESC_REPORT_MAX): boot layout
 * when boot or !nkro (more than six keys: the rollover error usage 0x01
 * in every slot), else the NKRO one. Returns its length.
 */
size_t hid_desc_keys_report(const struct hid_desc_keys *k, bool nkro, bool boot,
			    uint8_t *out);

/* A mouse report (boot: the first three bytes only). */
size_t hid_desc_mouse_report(uint8_t buttons, int8_t dx, int8_t dy, int8_t wheel,
			     bool boot, uint8_t *out);
/* A tablet report; x and y in 0..HID_DESC_ABS_MAX. */
size_t hid_desc_tablet_report(uint8_t buttons, uint16_t x, uint16_t y,
			      int8_t wheel, uint8_t *out);
/* A consumer report: usage held, 0 for none. */
size_t hid_desc_consumer_report(uint16_t usage, uint8_t *out);

#endif
