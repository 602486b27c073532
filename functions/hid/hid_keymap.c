/*
 * hid_keymap: XKB keymaps walked into per-layout character tables.
 */
#include "hid_keymap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xkbcommon/xkbcommon.h>

#define HID_KEYMAP_LAYOUTS 8
/* Groups in one XKB keymap (XKB_MAX_GROUPS). */
#define HID_KEYMAP_GROUPS 4
#define HID_KEYMAP_NAME_MAX 64

/* XKB keycodes are Linux evdev codes plus 8. */
#define HID_KEYMAP_EVDEV_OFFSET 8

/*
 * The Linux evdev code of each keyboard-page usage (HID Usage Tables 1.12,
 * section 10), 0 where Linux has none. 0x32 (non-US #) shares KEY_BACKSLASH
 * with 0x31; usages map back to 0x31.
 */
static const uint16_t hid_keymap_table[0xe8] = {
	[0x04] = 30, 48, 46, 32, 18, 33, 34, 35, 23, 36, 37, 38, 50, /* a..m */
	[0x11] = 49, 24, 25, 16, 19, 31, 20, 22, 47, 17, 45, 21, 44, /* n..z */
	[0x1e] = 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,                   /* 1..0 */
	[0x28] = 28, 1, 14, 15, 57,        /* enter, esc, backspace, tab, space */
	[0x2d] = 12, 13, 26, 27, 43, 43,   /* - = [ ] \ non-US # */
	[0x33] = 39, 40, 41, 51, 52, 53,   /* ; ' ` , . / */
	[0x39] = 58,                       /* caps lock */
	[0x3a] = 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 87, 88, /* F1..F12 */
	[0x46] = 99, 70, 119,              /* print screen, scroll lock, pause */
	[0x49] = 110, 102, 104, 111, 107, 109, /* insert home pgup delete end pgdn */
	[0x4f] = 106, 105, 108, 103,       /* right left down up */
	[0x53] = 69, 98, 55, 74, 78, 96,   /* num lock, keypad / * - + enter */
	[0x59] = 79, 80, 81, 75, 76, 77, 71, 72, 73, 82, 83, /* keypad 1..0 . */
	[0x64] = 86, 127,                  /* ISO key left of Z, menu */
	[0x87] = 89, [0x89] = 124,         /* ro, yen */
	[0xe0] = 29, 42, 56, 125, 97, 54, 100, 126, /* modifiers */
};

struct hid_keymap_entry {
	uint32_t cp;
	uint8_t usage;
	uint8_t mods;
	bool second; /* keypad or ISO key: used only when nothing else has it */
};

struct hid_keymap_layout {
	char name[HID_KEYMAP_NAME_MAX];
	struct hid_keymap_entry *e;
	size_t n, cap;
};

struct hid_keymap {
	struct hid_keymap_layout layouts[HID_KEYMAP_LAYOUTS];
	unsigned n;
	struct xkb_context *ctx;
	struct xkb_keymap *us; /* for key names */
};

uint8_t hid_keymap_usage(unsigned evdev)
{
	unsigned u;

	for (u = 0; evdev && u < sizeof(hid_keymap_table) / sizeof(*hid_keymap_table); u++)
		if (hid_keymap_table[u] == evdev)
			return (uint8_t)u;
	return 0;
}

unsigned hid_keymap_evdev(uint8_t usage)
{
	return usage < sizeof(hid_keymap_table) / sizeof(*hid_keymap_table) ?
	       hid_keymap_table[usage] : 0;
}

/*
 * Lower is better: two per modifier, three for a keypad or ISO key, so
 * that US's Shift+comma beats the ISO key's plain '<', and French's plain
 * '<' on the ISO key beats AltGr+Shift+W.
 */
static unsigned hid_keymap_cost(const struct hid_keymap_entry *e)
{
	return 2 * (unsigned)__builtin_popcount(e->mods) + (e->second ? 3 : 0);
}

static int hid_keymap_put(struct hid_keymap_layout *l, struct hid_keymap_entry e)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct hid_keymap_entry *o = &l->e[i];

		if (o->cp != e.cp)
			continue;
		if (hid_keymap_cost(&e) < hid_keymap_cost(o))
			*o = e;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct hid_keymap_entry *ne = realloc(l->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		l->e = ne;
		l->cap = cap;
	}
	l->e[l->n++] = e;
	return 0;
}

/* The HID modifiers of the first mask of level that needs only Shift and
 * AltGr (Mod5 in XKB's evdev rules); -1 if none does. */
static int hid_keymap_level_mods(struct xkb_keymap *km, xkb_keycode_t kc,
				 xkb_layout_index_t group, xkb_level_index_t level)
{
	xkb_mod_mask_t masks[8], shift, altgr;
	size_t n, i;

	shift = 1u << xkb_keymap_mod_get_index(km, XKB_MOD_NAME_SHIFT);
	altgr = 1u << xkb_keymap_mod_get_index(km, "Mod5");
	n = xkb_keymap_key_get_mods_for_level(km, kc, group, level, masks, 8);
	if (!n && level == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!(masks[i] & ~(shift | altgr)))
			return (masks[i] & shift ? HID_KEYMAP_LSHIFT : 0) |
			       (masks[i] & altgr ? HID_KEYMAP_RALT : 0);
	return -1;
}

static uint32_t hid_keymap_cp(xkb_keysym_t sym)
{
	if (sym == XKB_KEY_Return)
		return '\n';
	return xkb_keysym_to_utf32(sym);
}

static int hid_keymap_walk(struct xkb_keymap *km, xkb_layout_index_t group,
			   struct hid_keymap_layout *l)
{
	xkb_keycode_t kc;

	for (kc = xkb_keymap_min_keycode(km); kc <= xkb_keymap_max_keycode(km); kc++) {
		unsigned evdev = kc >= HID_KEYMAP_EVDEV_OFFSET ? kc - HID_KEYMAP_EVDEV_OFFSET : 0;
		uint8_t usage = hid_keymap_usage(evdev);
		xkb_level_index_t lv, nlv = xkb_keymap_num_levels_for_key(km, kc, group);

		if (!usage || (usage >= 0xe0 && usage <= 0xe7))
			continue;
		for (lv = 0; lv < nlv; lv++) {
			const xkb_keysym_t *syms;
			int mods, r;
			uint32_t cp;

			if (xkb_keymap_key_get_syms_by_level(km, kc, group, lv, &syms) != 1)
				continue;
			cp = hid_keymap_cp(syms[0]);
			mods = hid_keymap_level_mods(km, kc, group, lv);
			if (!cp || mods < 0)
				continue;
			r = hid_keymap_put(l, (struct hid_keymap_entry){
				.cp = cp, .usage = usage, .mods = (uint8_t)mods,
				.second = (usage >= 0x53 && usage <= 0x64) });
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* "de(nodeadkeys)" into layout "de" and variant "nodeadkeys". */
static int hid_keymap_split(const char *spec, char *layout, char *variant)
{
	const char *p = strchr(spec, '(');
	size_t n = p ? (size_t)(p - spec) : strlen(spec);

	if (!n || n >= HID_KEYMAP_NAME_MAX || strlen(spec) >= HID_KEYMAP_NAME_MAX)
		return -EINVAL;
	memcpy(layout, spec, n);
	layout[n] = '\0';
	variant[0] = '\0';
	if (p) {
		size_t v = strlen(p + 1);

		if (v < 2 || p[v] != ')')
			return -EINVAL;
		memcpy(variant, p + 1, v - 1);
		variant[v - 1] = '\0';
	}
	if (!strcmp(layout, "uk"))
		strcpy(layout, "gb");
	return 0;
}

/*
 * Compile specs[0..n) (n <= HID_KEYMAP_GROUPS) as the groups of one
 * keymap: XKB then reads its keycodes, types and compat once, where
 * separate keymaps cost four times the start-up on a slow board.
 */
static struct xkb_keymap *hid_keymap_compile(struct hid_keymap *m, char *const *specs,
					     unsigned n, char *why, size_t size)
{
	char layouts[HID_KEYMAP_GROUPS * HID_KEYMAP_NAME_MAX];
	char variants[HID_KEYMAP_GROUPS * HID_KEYMAP_NAME_MAX];
	char layout[HID_KEYMAP_NAME_MAX], variant[HID_KEYMAP_NAME_MAX];
	struct xkb_rule_names names = { .model = "pc105", .layout = layouts,
					.variant = variants };
	size_t ln = 0, vn = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (hid_keymap_split(specs[i], layout, variant) < 0) {
			snprintf(why, size, "layout %s: not LAYOUT or LAYOUT(VARIANT)", specs[i]);
			return NULL;
		}
		ln += (size_t)snprintf(layouts + ln, sizeof(layouts) - ln, "%s%s", i ? "," : "", layout);
		vn += (size_t)snprintf(variants + vn, sizeof(variants) - vn, "%s%s", i ? "," : "", variant);
	}
	return xkb_keymap_new_from_names(m->ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

/* Compile and walk specs[0..n) into m's next layouts. */
static int hid_keymap_add(struct hid_keymap *m, char *const *specs, unsigned n,
			  char *why, size_t size)
{
	struct xkb_keymap *km = hid_keymap_compile(m, specs, n, why, size);
	unsigned i;
	int r = 0;

	if (!km) {
		if (!why[0] && n == 1)
			snprintf(why, size, "layout %s: XKB has no such layout (or variant)", specs[0]);
		/* Which one: XKB's error names no group. */
		for (i = 0; i < n && !why[0] && n > 1; i++)
			hid_keymap_add(m, specs + i, 1, why, size);
		return -ENOENT;
	}
	if (xkb_keymap_num_layouts(km) != n) {
		snprintf(why, size, "layouts %s...: XKB made %u groups of %u", specs[0],
			 xkb_keymap_num_layouts(km), n);
		xkb_keymap_unref(km);
		return -EINVAL;
	}
	for (i = 0; i < n && !r; i++) {
		struct hid_keymap_layout *l = &m->layouts[m->n++];

		snprintf(l->name, sizeof(l->name), "%s", specs[i]);
		r = hid_keymap_walk(km, i, l);
	}
	if (!m->us)
		m->us = km; /* its group 0 is "us" */
	else
		xkb_keymap_unref(km);
	if (r < 0)
		snprintf(why, size, "layouts: %s", strerror(-r));
	return r;
}

struct hid_keymap *hid_keymap_new(const char *list, char *why, size_t size)
{
	struct hid_keymap *m = calloc(1, sizeof(*m));
	char *copy = strdup(list), *save = NULL, *tok;
	char *specs[HID_KEYMAP_LAYOUTS] = { "us" };
	unsigned n = 1, i;
	int r = 0;

	why[0] = '\0';
	if (!m || !copy || !(m->ctx = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES))) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		free(copy);
		hid_keymap_free(m);
		return NULL;
	}
	for (tok = strtok_r(copy, ", ", &save); tok && !r; tok = strtok_r(NULL, ", ", &save)) {
		for (i = 0; i < n && strcmp(specs[i], tok); i++)
			;
		if (i < n)
			continue;
		if (n == HID_KEYMAP_LAYOUTS) {
			snprintf(why, size, "layouts: at most %d", HID_KEYMAP_LAYOUTS);
			r = -E2BIG;
		} else {
			specs[n++] = tok;
		}
	}
	for (i = 0; i < n && !r; i += HID_KEYMAP_GROUPS)
		r = hid_keymap_add(m, specs + i, n - i < HID_KEYMAP_GROUPS ? n - i : HID_KEYMAP_GROUPS,
				   why, size);
	free(copy);
	if (r < 0) {
		hid_keymap_free(m);
		return NULL;
	}
	return m;
}

void hid_keymap_free(struct hid_keymap *m)
{
	unsigned i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->layouts[i].e);
	xkb_keymap_unref(m->us);
	xkb_context_unref(m->ctx);
	free(m);
}

int hid_keymap_char(const struct hid_keymap *m, const char *layout, uint32_t cp,
		    uint8_t *usage, uint8_t *mods)
{
	const struct hid_keymap_layout *l = NULL;
	unsigned i;
	size_t j;

	for (i = 0; i < m->n && !l; i++)
		if (!strcmp(m->layouts[i].name, layout) ||
		    (!strcmp(layout, "uk") && !strcmp(m->layouts[i].name, "gb")))
			l = &m->layouts[i];
	if (!l)
		return -ESRCH;
	for (j = 0; j < l->n; j++)
		if (l->e[j].cp == cp) {
			*usage = l->e[j].usage;
			*mods = l->e[j].mods;
			return 0;
		}
	return -ENOENT;
}

static const struct {
	const char *name;
	const char *keysym; /* NULL: usage */
	uint8_t usage;
} hid_keymap_aliases[] = {
	{ "ctrl", NULL, 0xe0 }, { "control", NULL, 0xe0 }, { "lctrl", NULL, 0xe0 },
	{ "shift", NULL, 0xe1 }, { "lshift", NULL, 0xe1 },
	{ "alt", NULL, 0xe2 }, { "lalt", NULL, 0xe2 },
	{ "meta", NULL, 0xe3 }, { "super", NULL, 0xe3 }, { "win", NULL, 0xe3 },
	{ "gui", NULL, 0xe3 },
	{ "rctrl", NULL, 0xe4 }, { "rshift", NULL, 0xe5 },
	{ "altgr", NULL, 0xe6 }, { "ralt", NULL, 0xe6 },
	{ "rmeta", NULL, 0xe7 }, { "rsuper", NULL, 0xe7 }, { "rwin", NULL, 0xe7 },
	{ "del", "Delete", 0 }, { "esc", "Escape", 0 }, { "enter", "Return", 0 },
	{ "bksp", "BackSpace", 0 }, { "ins", "Insert", 0 },
	{ "pgup", "Prior", 0 }, { "pgdn", "Next", 0 }, { "prtsc", "Print", 0 },
	{ "capslock", "Caps_Lock", 0 }, { "numlock", "Num_Lock", 0 },
	{ "scrolllock", "Scroll_Lock", 0 },
};

int hid_keymap_key(const struct hid_keymap *m, const char *name, uint8_t *usage)
{
	xkb_keysym_t sym = XKB_KEY_NoSymbol;
	xkb_keycode_t kc;
	size_t i;

	for (i = 0; i < sizeof(hid_keymap_aliases) / sizeof(*hid_keymap_aliases); i++)
		if (!strcasecmp(name, hid_keymap_aliases[i].name)) {
			if (!hid_keymap_aliases[i].keysym) {
				*usage = hid_keymap_aliases[i].usage;
				return 0;
			}
			sym = xkb_keysym_from_name(hid_keymap_aliases[i].keysym,
						   XKB_KEYSYM_NO_FLAGS);
		}
	if (sym == XKB_KEY_NoSymbol)
		sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
	if (sym == XKB_KEY_NoSymbol)
		sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
	if (sym == XKB_KEY_NoSymbol || !m->us)
		return -ENOENT;
	for (kc = xkb_keymap_min_keycode(m->us); kc <= xkb_keymap_max_keycode(m->us); kc++) {
		xkb_level_index_t lv, nlv = xkb_keymap_num_levels_for_key(m->us, kc, 0);


		for (lv = 0; lv < nlv; lv++) {
			const xkb_keysym_t *syms;
			int n = xkb_keymap_key_get_syms_by_level(m->us, kc, 0, lv, &syms);
			uint8_t u;

			if (n != 1 || syms[0] != sym || kc < HID_KEYMAP_EVDEV_OFFSET)
				continue;
			u = hid_keymap_usage(kc - HID_KEYMAP_EVDEV_OFFSET);
			if (u) {
				*usage = u;
				return 0;
			}
		}
	}
	return -ENOENT;
}
