/*
 * hid_cmd: `gadgetctl FUNCTION ...` commands of the HID plugin, parsed
 * into the input reports they send (a job) or answered at once.
 *
 * keyboard: type [--layout L] TEXT...; key COMBO... (ctrl+alt+del: press
 *   all, release all, one combo after the other); key --down COMBO;
 *   key --up [COMBO] (none: every key); leds.
 * mouse: move DX DY; click [BUTTON]; scroll N; (each also after "mouse").
 * tablet: abs X Y (0..32767); click [BUTTON]; scroll N (where abs put it).
 * consumer: key NAME (volume_up, volume_down, mute, play_pause, next,
 *   previous, stop, brightness_up, brightness_down, or a usage 0x..).
 * every kind: send HEX (one raw input report).
 *
 * A job's units are what its reply counts: characters for type, key
 * combinations for key, reports otherwise. A unit counts as arrived once
 * its first report did (a character reaches the host with its key press).
 */
#ifndef GADGETD_HID_CMD_H
#define GADGETD_HID_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hid_desc.h"

struct hid_keymap;

/* A command's state: the device and what it holds down. */
struct hid_cmd_ctx {
	enum hid_desc_kind kind;
	bool nkro;
	bool boot;                  /* the host chose the boot protocol */
	size_t custom_len;          /* a profile's own descriptor: its report length */
	const struct hid_keymap *keymap;
	const char *layout;         /* the profile's */
	struct hid_desc_keys keys;  /* keyboard: held by key --down */
	uint8_t buttons;            /* mouse and tablet: held */
	uint16_t abs_x, abs_y;      /* tablet: where abs put it */
	uint8_t leds;               /* the host's last output report */
};

struct hid_cmd_report {
	uint8_t len;
	bool unit; /* the first report of a unit */
	uint8_t data[HID_DESC_REPORT_MAX];
};

struct hid_cmd_job {
	struct hid_cmd_report *r;
	size_t n, cap;
	unsigned units;
	const char *verb;  /* "typed" */
	const char *noun;  /* "characters" */
};

/* Longest text `type` takes, in characters. */
#define HID_CMD_TEXT_MAX 4000

/*
 * Parse argv against c. Returns 1 with a job to send, at least one
 * report (c's held state is already what it will be once sent), 0 with
 * reply set (a command answered at once: leds, an empty text), or
 * -errno with reply saying what was wrong (c as it was).
 */
int hid_cmd_parse(struct hid_cmd_ctx *c, int argc, char **argv,
		  struct hid_cmd_job *job, char *reply, size_t size);

void hid_cmd_job_finish(struct hid_cmd_job *job);

#endif
