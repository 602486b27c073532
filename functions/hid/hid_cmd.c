/*
 * hid_cmd: commands to reports. Everything is checked before the first
 * report is built, so that a refused command sends nothing.
 */
#include "hid_cmd.h"
#include "hid_keymap.h"
#include "optdesc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HID_CMD_COMBO_MAX 8

static struct hid_cmd_report *hid_cmd_add(struct hid_cmd_job *job, bool unit)
{
	struct hid_cmd_report *r;

	if (job->n == job->cap) {
		size_t cap = job->cap ? 2 * job->cap : 16;
		struct hid_cmd_report *nr = realloc(job->r, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		job->r = nr;
		job->cap = cap;
	}
	r = &job->r[job->n++];
	memset(r, 0, sizeof(*r));
	r->unit = unit;
	if (unit)
		job->units++;
	return r;
}

void hid_cmd_job_finish(struct hid_cmd_job *job)
{
	free(job->r);
	memset(job, 0, sizeof(*job));
}

static int hid_cmd_keys_report(struct hid_cmd_ctx *c, struct hid_cmd_job *job,
			       const struct hid_desc_keys *k, bool unit)
{
	struct hid_cmd_report *r = hid_cmd_add(job, unit);

	if (!r)
		return -ENOMEM;
	r->len = (uint8_t)hid_desc_keys_report(k, c->nkro, c->boot, r->data);
	return 0;
}

/* One UTF-8 sequence at *s into *cp; -EILSEQ for a broken one. */
static int hid_cmd_utf8(const char **s, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)*s;
	unsigned n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		*s += 1;
		return 0;
	}
	n = p[0] >= 0xf0 && p[0] < 0xf5 ? 3 : p[0] >= 0xe0 ? 2 : p[0] >= 0xc2 ? 1 : 0;
	if (!n || p[0] >= 0xf5)
		return -EILSEQ;
	*cp = p[0] & (0x3f >> n);
	for (i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -EILSEQ;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	*s += n + 1;
	return 0;
}

/* The arguments joined by spaces (words given apart are one text). */
static int hid_cmd_join(int argc, char **argv, char *buf, size_t size)
{
	size_t n = 0, l;
	int i;

	for (i = 0; i < argc; i++) {
		l = strlen(argv[i]);
		if (n + l + 2 > size)
			return -E2BIG;
		if (i)
			buf[n++] = ' ';
		memcpy(buf + n, argv[i], l);
		n += l;
	}
	buf[n] = '\0';
	return 0;
}

static int hid_cmd_type_char(struct hid_cmd_ctx *c, const char *layout, uint32_t cp,
			     unsigned count, struct hid_cmd_job *job, char *reply,
			     size_t size)
{
	struct hid_desc_keys k = { 0 }, none = { 0 };
	char shown[8] = "";
	uint8_t usage;
	int r = hid_keymap_char(c->keymap, layout, cp, &usage, &k.mods);

	if (r == -ESRCH) {
		snprintf(reply, size, "layout %s is not loaded (the profile's layouts "
			 "option lists those that are); nothing typed", layout);
		return r;
	}
	if (r < 0) {
		if (cp >= 0x20 && cp < 0x7f)
			snprintf(shown, sizeof(shown), " '%c'", (char)cp);
		snprintf(reply, size, "character %u%s (U+%04X) has no key in layout %s "
			 "(dead keys are not typed); nothing typed", count, shown,
			 (unsigned)cp, layout);
		return r;
	}
	hid_desc_keys_set(&k, usage, true);
	if ((r = hid_cmd_keys_report(c, job, &k, true)) < 0)
		return r;
	return hid_cmd_keys_report(c, job, &none, false);
}

static int hid_cmd_type(struct hid_cmd_ctx *c, int argc, char **argv,
			struct hid_cmd_job *job, char *reply, size_t size)
{
	const char *layout = c->layout, *s;
	static char text[4 * HID_CMD_TEXT_MAX + 1];
	unsigned count = 0;
	uint32_t cp;
	int r;

	if (argc >= 2 && !strcmp(argv[0], "--layout")) {
		layout = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc < 1) {
		snprintf(reply, size, "usage: type [--layout LAYOUT] TEXT...");
		return -EINVAL;
	}
	if (hid_cmd_join(argc, argv, text, sizeof(text)) < 0) {
		snprintf(reply, size, "the text is longer than %d characters", HID_CMD_TEXT_MAX);
		return -E2BIG;
	}
	/* Nothing to type is done at once: a job has at least one report
	 * (hid.c sends its first at once). */
	if (!text[0]) {
		snprintf(reply, size, "typed 0 characters");
		return 0;
	}
	job->verb = "typed";
	job->noun = "characters";
	for (s = text; *s; ) {
		if (hid_cmd_utf8(&s, &cp) < 0) {
			snprintf(reply, size, "the text is not UTF-8; nothing typed");
			return -EILSEQ;
		}
		if (++count > HID_CMD_TEXT_MAX) {
			snprintf(reply, size, "the text is longer than %d characters",
				 HID_CMD_TEXT_MAX);
			return -E2BIG;
		}
		r = hid_cmd_type_char(c, layout, cp, count, job, reply, size);
		if (r < 0)
			return r;
	}
	/* Typing releases every key held: each character is pressed alone.
	 * Only now, so that a refused text leaves them held, as the host
	 * still has them. */
	memset(&c->keys, 0, sizeof(c->keys));
	return 1;
}

/* "ctrl+alt+del" into usages; -ENOENT names the key in reply. */
static int hid_cmd_combo(struct hid_cmd_ctx *c, const char *combo, uint8_t *usages,
			 unsigned *n, char *reply, size_t size)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(combo) >= sizeof(buf)) {
		snprintf(reply, size, "key combination too long");
		return -E2BIG;
	}
	strcpy(buf, combo);
	*n = 0;
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		if (*n == HID_CMD_COMBO_MAX) {
			snprintf(reply, size, "%s: at most %d keys at once", combo,
				 HID_CMD_COMBO_MAX);
			return -E2BIG;
		}
		if (hid_keymap_key(c->keymap, tok, &usages[(*n)++]) < 0) {
			snprintf(reply, size, "%s: no key named %s", combo, tok);
			return -ENOENT;
		}
	}
	if (!*n) {
		snprintf(reply, size, "no key named in \"%s\"", combo);
		return -EINVAL;
	}
	return 0;
}

static int hid_cmd_key(struct hid_cmd_ctx *c, int argc, char **argv,
		       struct hid_cmd_job *job, char *reply, size_t size)
{
	uint8_t usages[HID_CMD_COMBO_MAX];
	bool down = argc && !strcmp(argv[0], "--down");
	bool up = argc && !strcmp(argv[0], "--up");
	struct hid_desc_keys k;
	unsigned n, j;
	int i, r;

	job->verb = "sent";
	job->noun = "key combinations";
	if (down || up) {
		argc--;
		argv++;
		if (argc > 1 || (down && argc != 1)) {
			snprintf(reply, size, "usage: key --down COMBO | key --up [COMBO]");
			return -EINVAL;
		}
		k = c->keys;
		if (up && !argc)
			memset(&k, 0, sizeof(k));
		else if ((r = hid_cmd_combo(c, argv[0], usages, &n, reply, size)) < 0)
			return r;
		for (j = 0; argc && j < n; j++)
			if (hid_desc_keys_set(&k, usages[j], down) < 0) {
				snprintf(reply, size, "too many keys held");
				return -ENOSPC;
			}
		if ((r = hid_cmd_keys_report(c, job, &k, true)) < 0)
			return r;
		c->keys = k;
		return 1;
	}
	if (!argc) {
		snprintf(reply, size, "usage: key COMBO... | key --down COMBO | key --up [COMBO]");
		return -EINVAL;
	}
	for (i = 0; i < argc; i++) {
		if ((r = hid_cmd_combo(c, argv[i], usages, &n, reply, size)) < 0)
			return r;
		k = c->keys;
		for (j = 0; j < n; j++)
			hid_desc_keys_set(&k, usages[j], true);
		if ((r = hid_cmd_keys_report(c, job, &k, true)) < 0 ||
		    (r = hid_cmd_keys_report(c, job, &c->keys, false)) < 0)
			return r;
	}
	return 1;
}

static const struct {
	const char *name;
	uint16_t usage;
} hid_cmd_consumer_names[] = {
	{ "volume_up", 0xe9 }, { "volume_down", 0xea }, { "mute", 0xe2 },
	{ "play_pause", 0xcd }, { "next", 0xb5 }, { "previous", 0xb6 },
	{ "stop", 0xb7 }, { "brightness_up", 0x6f }, { "brightness_down", 0x70 },
};

static int hid_cmd_consumer(struct hid_cmd_ctx *c, int argc, char **argv,
			    struct hid_cmd_job *job, char *reply, size_t size)
{
	struct hid_cmd_report *r;
	long usage = -1;
	char *end;
	size_t i;
	int a;

	job->verb = "sent";
	job->noun = "keys";
	if (!argc) {
		snprintf(reply, size, "usage: key NAME... (volume_up, volume_down, mute, "
			 "play_pause, next, previous, stop, brightness_up, brightness_down, 0xUSAGE)");
		return -EINVAL;
	}
	for (a = 0; a < argc; a++) {
		usage = -1;
		for (i = 0; i < sizeof(hid_cmd_consumer_names) / sizeof(*hid_cmd_consumer_names); i++)
			if (!strcasecmp(argv[a], hid_cmd_consumer_names[i].name))
				usage = hid_cmd_consumer_names[i].usage;
		if (usage < 0 && !strncmp(argv[a], "0x", 2)) {
			usage = strtol(argv[a], &end, 16);
			if (*end || usage < 1 || usage > 0x3ff)
				usage = -1;
		}
		if (usage < 0) {
			snprintf(reply, size, "no consumer key named %s", argv[a]);
			return -ENOENT;
		}
		if (!(r = hid_cmd_add(job, true)))
			return -ENOMEM;
		r->len = (uint8_t)hid_desc_consumer_report((uint16_t)usage, r->data);
		if (!(r = hid_cmd_add(job, false)))
			return -ENOMEM;
		r->len = (uint8_t)hid_desc_consumer_report(0, r->data);
	}
	return 1;
}

static int hid_cmd_int(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno || *v < min || *v > max ? -EINVAL : 0;
}

static int hid_cmd_pointer(struct hid_cmd_ctx *c, uint8_t buttons, long dx, long dy,
			   long wheel, struct hid_cmd_job *job)
{
	struct hid_cmd_report *r = hid_cmd_add(job, true);

	if (!r)
		return -ENOMEM;
	if (c->kind == HID_DESC_TABLET)
		r->len = (uint8_t)hid_desc_tablet_report(buttons, c->abs_x, c->abs_y,
							 (int8_t)wheel, r->data);
	else
		r->len = (uint8_t)hid_desc_mouse_report(buttons, (int8_t)dx, (int8_t)dy,
							(int8_t)wheel, c->boot, r->data);
	return 0;
}

/* move DX DY in steps of at most 127 each way (one report per step). */
static int hid_cmd_move(struct hid_cmd_ctx *c, long dx, long dy, long wheel,
			struct hid_cmd_job *job)
{
	int r = 0;

	do {
		long sx = dx > 127 ? 127 : dx < -127 ? -127 : dx;
		long sy = dy > 127 ? 127 : dy < -127 ? -127 : dy;
		long sw = wheel > 127 ? 127 : wheel < -127 ? -127 : wheel;

		r = hid_cmd_pointer(c, c->buttons, sx, sy, sw, job);
		dx -= sx;
		dy -= sy;
		wheel -= sw;
	} while (!r && (dx || dy || wheel));
	return r;
}

static int hid_cmd_button(const char *name, uint8_t *bit)
{
	static const char *const names[] = { "left", "right", "middle", "back", "forward" };
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i])) {
			*bit = (uint8_t)(1u << i);
			return 0;
		}
	return -ENOENT;
}

static int hid_cmd_mouse(struct hid_cmd_ctx *c, int argc, char **argv,
			 struct hid_cmd_job *job, char *reply, size_t size)
{
	bool tablet = c->kind == HID_DESC_TABLET;
	long x, y;
	uint8_t bit = 1;
	int r;

	job->verb = "sent";
	job->noun = "reports";
	if (!strcmp(argv[0], "move") && !tablet && argc == 3 &&
	    !hid_cmd_int(argv[1], -32767, 32767, &x) && !hid_cmd_int(argv[2], -32767, 32767, &y))
		return hid_cmd_move(c, x, y, 0, job) < 0 ? -ENOMEM : 1;
	if (!strcmp(argv[0], "abs") && tablet && argc == 3 &&
	    !hid_cmd_int(argv[1], 0, HID_DESC_ABS_MAX, &x) &&
	    !hid_cmd_int(argv[2], 0, HID_DESC_ABS_MAX, &y)) {
		c->abs_x = (uint16_t)x;
		c->abs_y = (uint16_t)y;
		r = hid_cmd_pointer(c, c->buttons, 0, 0, 0, job);
		return r < 0 ? r : 1;
	}
	if (!strcmp(argv[0], "scroll") && argc == 2 && !hid_cmd_int(argv[1], -32767, 32767, &y))
		return hid_cmd_move(c, 0, 0, y, job) < 0 ? -ENOMEM : 1;
	if (!strcmp(argv[0], "click") && argc <= 2 &&
	    (argc == 1 || !hid_cmd_button(argv[1], &bit)) && (!tablet || bit < 8)) {
		if ((r = hid_cmd_pointer(c, c->buttons | bit, 0, 0, 0, job)) < 0 ||
		    (r = hid_cmd_pointer(c, c->buttons, 0, 0, 0, job)) < 0)
			return r;
		job->r[1].unit = false;
		job->units--;
		job->noun = "clicks";
		return 1;
	}
	if (tablet)
		snprintf(reply, size, "usage: abs X Y (0..%d) | click [left|right|middle] "
			 "| scroll N", HID_DESC_ABS_MAX);
	else
		snprintf(reply, size, "usage: move DX DY | click [left|right|middle|back|forward] "
			 "| scroll N");
	return -EINVAL;
}

/* The input report the host reads now: once it chose the boot protocol,
 * a keyboard's 8 bytes or a mouse's 3 (what hid.c's GET_REPORT answers),
 * else the descriptor's. */
static size_t hid_cmd_report_len(const struct hid_cmd_ctx *c)
{
	if (c->custom_len)
		return c->custom_len;
	if (c->boot && c->kind == HID_DESC_KEYBOARD)
		return 2 + HID_DESC_KEYS;
	if (c->boot && c->kind == HID_DESC_MOUSE)
		return 3;
	return hid_desc_report_len(c->kind, c->nkro);
}

static int hid_cmd_send(struct hid_cmd_ctx *c, int argc, char **argv,
			struct hid_cmd_job *job, char *reply, size_t size)
{
	size_t want = hid_cmd_report_len(c);
	struct hid_cmd_report *r;
	int n;

	job->verb = "sent";
	job->noun = "reports";
	if (argc != 1 || (n = optdesc_hex(argv[0], NULL, HID_DESC_REPORT_MAX)) != (int)want) {
		snprintf(reply, size, "usage: send HEX (one input report of %zu bytes)", want);
		return -EINVAL;
	}
	if (!(r = hid_cmd_add(job, true)))
		return -ENOMEM;
	r->len = (uint8_t)optdesc_hex(argv[0], r->data, sizeof(r->data));
	return 1;
}

static void hid_cmd_leds(const struct hid_cmd_ctx *c, char *reply, size_t size)
{
	snprintf(reply, size, "num %s caps %s scroll %s",
		 c->leds & 1 ? "on" : "off", c->leds & 2 ? "on" : "off",
		 c->leds & 4 ? "on" : "off");
}

int hid_cmd_parse(struct hid_cmd_ctx *c, int argc, char **argv,
		  struct hid_cmd_job *job, char *reply, size_t size)
{
	bool kbd = c->kind == HID_DESC_KEYBOARD && !c->custom_len;
	bool ptr = (c->kind == HID_DESC_MOUSE || c->kind == HID_DESC_TABLET) && !c->custom_len;
	int r = -EINVAL;

	memset(job, 0, sizeof(*job));
	if (argc && !strcmp(argv[0], "mouse") && ptr) {
		argc--;
		argv++;
	}
	if (!argc)
		r = -EINVAL;
	else if (!strcmp(argv[0], "send"))
		r = hid_cmd_send(c, argc - 1, argv + 1, job, reply, size);
	else if (kbd && !strcmp(argv[0], "type"))
		r = hid_cmd_type(c, argc - 1, argv + 1, job, reply, size);
	else if (kbd && !strcmp(argv[0], "key"))
		r = hid_cmd_key(c, argc - 1, argv + 1, job, reply, size);
	else if (kbd && !strcmp(argv[0], "leds")) {
		hid_cmd_leds(c, reply, size);
		return 0;
	} else if (ptr)
		r = hid_cmd_mouse(c, argc, argv, job, reply, size);
	else if (c->kind == HID_DESC_CONSUMER && !c->custom_len && !strcmp(argv[0], "key"))
		r = hid_cmd_consumer(c, argc - 1, argv + 1, job, reply, size);
	if (r < 0 && !reply[0])
		snprintf(reply, size, "unknown command; this %s takes: %s",
			 c->custom_len ? "device" : kbd ? "keyboard" : ptr ? "pointer" : "consumer device",
			 c->custom_len ? "send HEX" : kbd ? "type, key, leds, send" :
			 ptr ? "move, click, scroll, abs, send" : "key, send");
	if (r < 0)
		hid_cmd_job_finish(job);
	return r;
}
