/*
 * hid_keymap: characters and key names to USB HID keyboard usages, per
 * keyboard layout, through libxkbcommon. A layout is compiled from XKB's
 * rules (evdev, model pc105) at start, while the worker may still read
 * /usr/share/X11/xkb; lookups afterwards only read memory.
 *
 * For each character the table holds the key and the modifiers (Shift,
 * AltGr) that produce it on a host set to that layout: the first level of
 * a key whose keysym is the character, preferring fewer modifiers and
 * keys of the main block over the keypad and the ISO key left of Z
 * (which some hosts lack). Dead keys produce no character here: a text
 * that needs one is refused whole.
 */
#ifndef GADGETD_HID_KEYMAP_H
#define GADGETD_HID_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct hid_keymap;

/* HID modifier bits of a keyboard report. */
#define HID_KEYMAP_LCTRL 0x01
#define HID_KEYMAP_LSHIFT 0x02
#define HID_KEYMAP_LALT 0x04
#define HID_KEYMAP_LGUI 0x08
#define HID_KEYMAP_RALT 0x40 /* AltGr */

/*
 * Compile the layouts of list, comma-separated, each LAYOUT or
 * LAYOUT(VARIANT) ("us,de(nodeadkeys),fr,gb"; "uk" is taken as "gb").
 * "us" is always compiled too, for key names. NULL with why set ("layout
 * xx: XKB has no such layout") when one does not compile.
 */
struct hid_keymap *hid_keymap_new(const char *list, char *why, size_t size);
void hid_keymap_free(struct hid_keymap *m);

/*
 * The key for code point cp ('\n' is Return, '\t' Tab) in layout (a name
 * as given to hid_keymap_new): its usage and modifier bits. 0, -ESRCH for
 * a layout not compiled, -ENOENT for a character the layout has no key
 * for.
 */
int hid_keymap_char(const struct hid_keymap *m, const char *layout, uint32_t cp,
		    uint8_t *usage, uint8_t *mods);

/*
 * The usage of a key name: an XKB keysym name in any case ("a", "F1",
 * "Delete", "Return"), a modifier ("ctrl", "shift", "alt", "altgr",
 * "meta"/"super"/"win", with "r" for the right one: "rctrl") or a short
 * alias ("del", "esc", "enter", "bksp", "ins", "pgup", "pgdn", "prtsc",
 * "capslock", "numlock", "scrolllock"). Modifiers are usages
 * 0xe0..0xe7. 0 or -ENOENT.
 */
int hid_keymap_key(const struct hid_keymap *m, const char *name, uint8_t *usage);

/* The usage of Linux evdev key code (KEY_*), 0 if the keyboard page has
 * none; and back (0: none). */
uint8_t hid_keymap_usage(unsigned evdev);
unsigned hid_keymap_evdev(uint8_t usage);

#endif
