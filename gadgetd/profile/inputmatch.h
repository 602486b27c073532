/*
 * inputmatch: which of the board's input devices a hid function forwards
 * to the host (forward = "input", gadgetd.conf(5)): its forward_match
 * rules, parsed and matched against a device. Pure: the device's facts
 * come from the caller (gadgetd/gadget/inputfwd.c reads them from udev).
 *
 *   forward_match = "name=Logitech*; bus=usb,id=046d:c52b; property=GADGETD_FORWARD=1";
 *
 * Rules are separated by ';', and a device matching any rule is
 * forwarded. A rule's conditions, separated by ',', must all hold:
 *   name=GLOB          the device's name (evtest's, udev's NAME), fnmatch(3)
 *   id=VVVV:PPPP       its vendor and product ids, hex
 *   bus=BUS            usb, bluetooth, i8042 (a built-in PS/2 port) or
 *                      virtual (uinput, a program's own device)
 *   property=KEY[=GLOB] a udev property (set one with a udev rule)
 * The default, INPUTMATCH_DEFAULT, takes every keyboard and mouse plugged
 * in or paired: "bus=usb; bus=bluetooth; bus=i8042". Whatever the rules,
 * the caller never forwards a device of the gadget's own host side (the
 * loop, inputfwd.h).
 */
#ifndef GADGETD_INPUTMATCH_H
#define GADGETD_INPUTMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plugin_meta;
struct profile_function;

#define INPUTMATCH_DEFAULT "bus=usb; bus=bluetooth; bus=i8042"
#define INPUTMATCH_RULES 8
#define INPUTMATCH_CONDS 4
#define INPUTMATCH_VALUE_MAX 128

enum inputmatch_field {
	INPUTMATCH_NAME,
	INPUTMATCH_ID,
	INPUTMATCH_BUS,
	INPUTMATCH_PROPERTY,
};

struct inputmatch_cond {
	enum inputmatch_field field;
	char value[INPUTMATCH_VALUE_MAX];   /* name's glob, property's value glob */
	char key[INPUTMATCH_VALUE_MAX];     /* property's key */
	bool has_value;                     /* property: KEY=GLOB, not KEY alone */
	uint16_t vendor, product, bus;
};

struct inputmatch {
	unsigned n;
	struct {
		unsigned n;
		struct inputmatch_cond c[INPUTMATCH_CONDS];
	} rule[INPUTMATCH_RULES];
};

/* A device as the rules see it. prop(key, ctx) gives a udev property or
 * NULL. */
struct inputmatch_dev {
	const char *name;
	uint16_t vendor, product, bus; /* bus: linux/input.h's BUS_* */
	const char *(*prop)(const char *key, const void *ctx);
	const void *ctx;
};

/* Parse text into m: 0, or -EINVAL with why naming the rule ("rule 2:
 * unknown field \"nmae\" (name, id, bus, property)"). */
int inputmatch_parse(const char *text, struct inputmatch *m, char *why, size_t size);

bool inputmatch_match(const struct inputmatch *m, const struct inputmatch_dev *d);

/*
 * A profile's function whose plugin m forwards input: its options
 * checked across keys (forward on a kind that takes neither keys nor
 * motion, rules that do not parse). 0, or -EINVAL with *key the option
 * to blame and why a sentence.
 */
int inputmatch_check(const struct plugin_meta *m, const struct profile_function *f,
		     const char **key, char *why, size_t size);

/* Whether f forwards input (m's forward option is "input"); its kind
 * takes keys (*keys) or pointer motion. */
bool inputmatch_forwards(const struct plugin_meta *m, const struct profile_function *f,
			 bool *keys);

#endif
