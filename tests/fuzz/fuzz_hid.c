/*
 * libFuzzer target: the HID plugin's command text (hid_cmd_parse), what
 * `gadgetctl FUNCTION type|key|click|move|abs|scroll|send|leds ...`
 * sends, against each kind of device, with the US, German, French and
 * British layouts loaded as a profile's layouts option loads them.
 *
 * Input: byte 0 picks the device (bits 0-2: keyboard, NKRO keyboard,
 * mouse, tablet, consumer keys, a profile's own descriptor whose report
 * length is byte 1 % 65; bit 3: the host chose the boot protocol). The
 * rest is commands one after the other on the same device (so keys held
 * by one meet the next), split at 0x01; each command's arguments are
 * split at NUL.
 *
 * What must hold, whatever the text:
 *   - a job (1) has reports, each of the length the host expects of this
 *     device in this protocol (what hid.c's GET_REPORT answers), and as
 *     many units as reports marked first of a unit, the first one so;
 *   - an answer at once (0) has a reply and no reports;
 *   - a refusal (< 0) has a reply, no reports, and leaves the device's
 *     state as it was: nothing was sent, so nothing the host holds
 *     changed (hid_cmd.h: "a refused command sends nothing").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hid/hid_cmd.h"
#include "hid/hid_desc.h"
#include "hid/hid_keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_HID_ARGS 64

static struct hid_keymap *keymap;

static void setup_once(void)
{
	char why[256];

	if (keymap)
		return;
	keymap = hid_keymap_new("us,de,fr,gb", why, sizeof(why));
	if (!keymap) {
		fprintf(stderr, "fuzz_hid: %s\n", why);
		abort();
	}
}

/* The input report length the host expects now (hid.c's GET_REPORT). */
static size_t expected_len(const struct hid_cmd_ctx *c)
{
	if (c->boot && c->kind != HID_DESC_TABLET)
		return c->kind == HID_DESC_KEYBOARD ? 8 : 3;
	return c->custom_len ? c->custom_len : hid_desc_report_len(c->kind, c->nkro);
}

static void check_job(const struct hid_cmd_ctx *c, const struct hid_cmd_job *job)
{
	size_t want = expected_len(c);
	unsigned units = 0;

	if (!job->n || !job->r || !job->r[0].unit || !job->verb || !job->noun)
		abort();
	for (size_t i = 0; i < job->n; i++) {
		if (job->r[i].len != want || job->r[i].len > HID_DESC_REPORT_MAX)
			abort(); /* a report the host would read wrong */
		units += job->r[i].unit;
	}
	if (units != job->units)
		abort();
}

static void run_command(struct hid_cmd_ctx *c, int argc, char **argv)
{
	struct hid_cmd_ctx before = *c;
	struct hid_cmd_job job;
	char reply[512] = "";
	int r;

	memset(&job, 0x5a, sizeof(job));
	r = hid_cmd_parse(c, argc, argv, &job, reply, sizeof(reply));
	if (r > 1)
		abort();
	if (r == 1) {
		check_job(c, &job);
		hid_cmd_job_finish(&job);
		return;
	}
	if (!reply[0] || memchr(reply, '\0', sizeof(reply)) == NULL)
		abort();
	if (job.n || job.r || job.units)
		abort();
	if (r < 0 && memcmp(&before, c, sizeof(before)))
		abort(); /* refused, yet the state the host sees changed */
}

static void setup_ctx(struct hid_cmd_ctx *c, uint8_t how, uint8_t len)
{
	static const enum hid_desc_kind kinds[] = {
		HID_DESC_KEYBOARD, HID_DESC_KEYBOARD, HID_DESC_MOUSE, HID_DESC_TABLET,
		HID_DESC_CONSUMER, HID_DESC_KEYBOARD, HID_DESC_MOUSE, HID_DESC_CONSUMER,
	};
	unsigned pick = how & 7;

	memset(c, 0, sizeof(*c));
	c->kind = kinds[pick];
	c->nkro = pick == 1;
	c->boot = how & 8;
	/* hid.c: a profile's own descriptor comes with report_length. */
	if (pick == 5 || pick == 6 || pick == 7)
		c->custom_len = len % (HID_DESC_REPORT_MAX + 1);
	if (c->kind == HID_DESC_KEYBOARD) {
		c->keymap = keymap;
		c->layout = "us";
	}
	/* Only a keyboard's and a mouse's boot protocol exist (hid.c's
	 * SET_PROTOCOL needs a boot subclass). */
	if (!hid_desc_subclass(c->kind) || c->custom_len)
		c->boot = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[65536];
	char *argv[FUZZ_HID_ARGS];
	struct hid_cmd_ctx c;
	size_t i, start;
	int argc;

	if (size < 2 || size - 2 >= sizeof(buf))
		return 0;
	setup_once();
	setup_ctx(&c, data[0], data[1]);
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';
	/* Commands at 0x01; arguments at NUL; one past the end ends both. */
	for (i = 0, start = 0, argc = 0; i <= size - 2; i++) {
		bool end = i == size - 2 || buf[i] == '\x01';

		if (buf[i] != '\0' && !end)
			continue;
		buf[i] = '\0';
		if (argc < FUZZ_HID_ARGS)
			argv[argc++] = buf + start;
		start = i + 1;
		if (end) {
			run_command(&c, argc, argv);
			argc = 0;
		}
	}
	return 0;
}
