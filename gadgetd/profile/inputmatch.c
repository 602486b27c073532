/*
 * inputmatch: forward_match rules (inputmatch.h). Bounded: at most
 * INPUTMATCH_RULES rules of INPUTMATCH_CONDS conditions, each value at
 * most INPUTMATCH_VALUE_MAX - 1 characters.
 */
#include "inputmatch.h"
#include "plugin_meta.h"
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint16_t bus;
} inputmatch_buses[] = {
	/* linux/input.h: BUS_USB, BUS_BLUETOOTH, BUS_I8042, BUS_VIRTUAL */
	{ "usb", 0x03 }, { "bluetooth", 0x05 }, { "i8042", 0x11 }, { "virtual", 0x06 },
};

/* s without the blanks around it, in place. */
static char *inputmatch_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int inputmatch_hex16(const char *s, uint16_t *v)
{
	unsigned long x;
	char *end;
	size_t i;

	for (i = 0; i < 4; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
	x = strtoul(s, &end, 16);
	if (end != s + 4)
		return -EINVAL;
	*v = (uint16_t)x;
	return 0;
}

static int inputmatch_value(struct inputmatch_cond *c, const char *v, char *why,
			    size_t size)
{
	size_t i;
	char *eq;

	switch (c->field) {
	case INPUTMATCH_NAME:
		snprintf(c->value, sizeof(c->value), "%s", v);
		return 0;
	case INPUTMATCH_ID:
		if (strlen(v) != 9 || v[4] != ':' || inputmatch_hex16(v, &c->vendor) < 0 ||
		    inputmatch_hex16(v + 5, &c->product) < 0) {
			snprintf(why, size, "id \"%s\": expected VVVV:PPPP in hex", v);
			return -EINVAL;
		}
		return 0;
	case INPUTMATCH_BUS:
		for (i = 0; i < sizeof(inputmatch_buses) / sizeof(*inputmatch_buses); i++)
			if (!strcmp(v, inputmatch_buses[i].name)) {
				c->bus = inputmatch_buses[i].bus;
				return 0;
			}
		snprintf(why, size, "bus \"%s\": expected usb, bluetooth, i8042 or virtual", v);
		return -EINVAL;
	case INPUTMATCH_PROPERTY:
		snprintf(c->key, sizeof(c->key), "%s", v);
		eq = strchr(c->key, '=');
		c->has_value = eq != NULL;
		if (eq) {
			*eq = '\0';
			snprintf(c->value, sizeof(c->value), "%s", eq + 1);
		}
		for (i = 0; c->key[i]; i++)
			if (!isalnum((unsigned char)c->key[i]) && c->key[i] != '_')
				break;
		if (!c->key[0] || c->key[i]) {
			snprintf(why, size, "property \"%s\": expected KEY or KEY=VALUE, "
				 "KEY of letters, digits and _", v);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

/* One "field=value" into c. */
static int inputmatch_cond(char *text, struct inputmatch_cond *c, char *why, size_t size)
{
	static const char *const fields[] = { "name", "id", "bus", "property" };
	char *eq = strchr(text, '='), *k, *v;
	unsigned i;

	if (!eq) {
		snprintf(why, size, "\"%.64s\": expected FIELD=VALUE", text);
		return -EINVAL;
	}
	*eq = '\0';
	k = inputmatch_trim(text);
	v = inputmatch_trim(eq + 1);
	memset(c, 0, sizeof(*c));
	for (i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		if (!strcmp(k, fields[i]))
			break;
	if (i == sizeof(fields) / sizeof(*fields)) {
		snprintf(why, size, "unknown field \"%.64s\" (name, id, bus, property)", k);
		return -EINVAL;
	}
	if (!*v || strlen(v) >= INPUTMATCH_VALUE_MAX) {
		snprintf(why, size, "%.64s: %s value", k, *v ? "too long a" : "no");
		return -EINVAL;
	}
	c->field = (enum inputmatch_field)i;
	return inputmatch_value(c, v, why, size);
}

static int inputmatch_rule(char *text, struct inputmatch *m, char *why, size_t size)
{
	unsigned *n = &m->rule[m->n].n;
	char *tok, *next;

	*n = 0;
	if (!*inputmatch_trim(text)) {
		snprintf(why, size, "empty");
		return -EINVAL;
	}
	/* By hand, not strtok_r, which would skip an empty condition. */
	for (tok = text; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (*n == INPUTMATCH_CONDS) {
			snprintf(why, size, "more than %d conditions", INPUTMATCH_CONDS);
			return -EINVAL;
		}
		if (!*inputmatch_trim(tok)) {
			snprintf(why, size, "an empty condition");
			return -EINVAL;
		}
		if (inputmatch_cond(tok, &m->rule[m->n].c[(*n)++], why, size) < 0)
			return -EINVAL;
	}
	m->n++;
	return 0;
}

int inputmatch_parse(const char *text, struct inputmatch *m, char *why, size_t size)
{
	char buf[INPUTMATCH_RULES * INPUTMATCH_CONDS * (INPUTMATCH_VALUE_MAX + 16)];
	char rwhy[256], *save, *tok;
	const char *p;

	memset(m, 0, sizeof(*m));
	if (strlen(text) >= sizeof(buf)) {
		snprintf(why, size, "too long");
		return -EINVAL;
	}
	for (p = text; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
			snprintf(why, size, "only printable ASCII");
			return -EINVAL;
		}
	/* Split by hand, as the conditions: an empty rule is refused. */
	strcpy(buf, text);
	for (tok = buf; tok; tok = save) {
		save = strchr(tok, ';');
		if (save)
			*save++ = '\0';
		if (m->n == INPUTMATCH_RULES) {
			snprintf(why, size, "more than %d rules", INPUTMATCH_RULES);
			return -EINVAL;
		}
		if (inputmatch_rule(tok, m, rwhy, sizeof(rwhy)) < 0) {
			snprintf(why, size, "rule %u: %s", m->n + 1, rwhy);
			return -EINVAL;
		}
	}
	return 0;
}

static bool inputmatch_cond_holds(const struct inputmatch_cond *c,
				  const struct inputmatch_dev *d)
{
	const char *v;

	switch (c->field) {
	case INPUTMATCH_NAME:
		return d->name && !fnmatch(c->value, d->name, 0);
	case INPUTMATCH_ID:
		return d->vendor == c->vendor && d->product == c->product;
	case INPUTMATCH_BUS:
		return d->bus == c->bus;
	case INPUTMATCH_PROPERTY:
		v = d->prop ? d->prop(c->key, d->ctx) : NULL;
		return v && (!c->has_value || !fnmatch(c->value, v, 0));
	}
	return false;
}

bool inputmatch_match(const struct inputmatch *m, const struct inputmatch_dev *d)
{
	unsigned i, j;

	for (i = 0; i < m->n; i++) {
		for (j = 0; j < m->rule[i].n; j++)
			if (!inputmatch_cond_holds(&m->rule[i].c[j], d))
				break;
		if (j == m->rule[i].n)
			return true;
	}
	return false;
}

bool inputmatch_forwards(const struct plugin_meta *m, const struct profile_function *f,
			 bool *keys)
{
	const struct plugin_meta_input *in = m ? m->input : NULL;
	const char *fw, *kind;

	if (!in)
		return false;
	fw = plugin_meta_option(m, profile_option(f, in->forward), in->forward);
	kind = plugin_meta_option(m, profile_option(f, in->kind), in->kind);
	*keys = kind && !strcmp(kind, in->keyboard);
	return fw && !strcmp(fw, "input");
}

int inputmatch_check(const struct plugin_meta *m, const struct profile_function *f,
		     const char **key, char *why, size_t size)
{
	const struct plugin_meta_input *in = m->input;
	const char *kind, *rules;
	struct inputmatch im;
	char rwhy[256];
	bool keys;

	if (!inputmatch_forwards(m, f, &keys))
		return 0;
	kind = plugin_meta_option(m, profile_option(f, in->kind), in->kind);
	if (!keys && (!kind || strcmp(kind, in->pointer))) {
		*key = in->forward;
		snprintf(why, size, "forward = \"input\" needs %s = \"%s\" or \"%s\" "
			 "(this one is \"%s\")", in->kind, in->keyboard, in->pointer,
			 kind ? kind : "");
		return -EINVAL;
	}
	rules = plugin_meta_option(m, profile_option(f, in->match), in->match);
	if (inputmatch_parse(rules ? rules : INPUTMATCH_DEFAULT, &im, rwhy, sizeof(rwhy)) < 0) {
		*key = in->match;
		snprintf(why, size, "%s", rwhy);
		return -EINVAL;
	}
	return 0;
}
