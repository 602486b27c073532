/*
 * hid_input: a local input device's evdev events (forward = "input") to
 * the HID reports of this function, and the hotkey that releases the
 * devices to the board. Pure state, no I/O: hid.c reads the devices and
 * queues what this builds.
 *
 * A keyboard function takes key codes (EV_KEY with a keyboard-page
 * usage, hid_keymap_usage()), held as hid_desc_keys so that its reports
 * are the modifiers and 6KRO (or NKRO) keys hid_desc builds; autorepeat
 * (value 2) is left to the host. A mouse function takes buttons
 * (BTN_LEFT, RIGHT, MIDDLE, SIDE, EXTRA), REL_X, REL_Y and REL_WHEEL,
 * summed until SYN_REPORT (each sum bounded), then sent in steps of at
 * most 127. Anything else is ignored. SYN_DROPPED (the kernel's queue
 * overflowed) releases everything: a key never seen released would stay
 * held on the host.
 */
#ifndef GADGETD_HID_INPUT_H
#define GADGETD_HID_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hid_cmd.h"
#include "hid_desc.h"

struct hid_keymap;

/* Most non-modifier keys a hotkey holds. */
#define HID_INPUT_HOT_KEYS 4
/* The bound on a sum of motion between two SYN_REPORTs, each way. */
#define HID_INPUT_MOTION_MAX (127 * 8)
/* Most reports one SYN_REPORT makes (HID_INPUT_MOTION_MAX / 127). */
#define HID_INPUT_REPORTS_MAX 8

struct hid_input {
	bool keys;                 /* a keyboard function, else a mouse */
	struct hid_desc_keys k;    /* keyboard: held */
	uint8_t buttons;           /* mouse: held */
	int32_t dx, dy, wheel;     /* mouse: since the last SYN_REPORT */
	bool dirty;                /* something changed since it */
	/* Nothing goes out until every key is up: the hotkey's own keys
	 * stay on the board. */
	bool mute;
	uint8_t hot_mods;          /* modifier bits, either side (0x0f) */
	uint8_t hot_keys[HID_INPUT_HOT_KEYS];
	unsigned n_hot;
};

enum hid_input_result {
	HID_INPUT_NONE,    /* nothing to send yet */
	HID_INPUT_REPORT,  /* a SYN_REPORT after a change: hid_input_reports() */
	HID_INPUT_HOTKEY,  /* the hotkey was pressed */
	HID_INPUT_RESET,   /* SYN_DROPPED: everything released, send that */
};

/* A fresh state for a keyboard (keys) or mouse function. */
void hid_input_init(struct hid_input *in, bool keys);

/* The hotkey, a combination as `key` takes it ("ctrl+alt+scrolllock"):
 * 0, or -EINVAL with why naming the key. Modifiers match either side. */
int hid_input_hotkey(struct hid_input *in, const struct hid_keymap *m, const char *combo,
		     char *why, size_t size);

/* One event (struct input_event's type, code and value). */
enum hid_input_result hid_input_event(struct hid_input *in, uint16_t type, uint16_t code,
				      int32_t value);

/* The reports of the state now into out (HID_INPUT_REPORTS_MAX): one
 * keyboard report, or the mouse's motion in steps (at least one report).
 * The motion is consumed. Returns the count, 0 while muted. */
size_t hid_input_reports(struct hid_input *in, bool nkro, bool boot,
			 struct hid_cmd_report *out);

/* Nothing held any more (a device went, the devices were released). */
void hid_input_release_all(struct hid_input *in);

#endif
