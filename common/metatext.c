#include "metatext.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define METATEXT_MAX_FIELDS 10

struct metatext {
	struct plugin_meta meta;
	struct optdesc opts[METATEXT_MAX_OPTIONS + 1];
	const char *choices[METATEXT_MAX_OPTIONS][METATEXT_MAX_CHOICES + 1];
	unsigned n_choices[METATEXT_MAX_OPTIONS];
	struct plugin_command cmds[METATEXT_MAX_COMMANDS + 1];
	unsigned n_opts, n_cmds;
	bool have_name, have_user, have_end;
	/* The text, unescaped in place: every string above points into it. */
	char *buf;
};

static const char *const metatext_types[] = {
	[OPTDESC_BOOL] = "bool", [OPTDESC_INT] = "int", [OPTDESC_STRING] = "string",
	[OPTDESC_ENUM] = "enum", [OPTDESC_PATH] = "path", [OPTDESC_MAC] = "mac",
	[OPTDESC_HEX] = "hex",
};

static const char *const metatext_access[] = {
	[PLUGIN_ACCESS_ADMIN] = "admin", [PLUGIN_ACCESS_READ] = "read",
	[PLUGIN_ACCESS_DRIVE] = "drive",
};

#define METATEXT_N(a) (sizeof(a) / sizeof(*(a)))

/* One field, escaped, after a tab unless it is the line's first. */
static void metatext_field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc('\t', f);
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void metatext_write_option(FILE *f, const struct optdesc *d)
{
	const char *const *c;
	char num[64];

	metatext_field(f, "option", true);
	metatext_field(f, d->name, false);
	metatext_field(f, metatext_types[d->type], false);
	snprintf(num, sizeof(num), "%u\t%lld\t%lld\t%d", d->count, d->min, d->max,
		 d->required ? 1 : 0);
	fprintf(f, "\t%s", num);
	metatext_field(f, d->help ? d->help : "", false);
	if (d->def)
		metatext_field(f, d->def, false);
	fputc('\n', f);
	for (c = d->type == OPTDESC_ENUM ? d->choices : NULL; c && *c; c++) {
		metatext_field(f, "choice", true);
		metatext_field(f, *c, false);
		fputc('\n', f);
	}
}

int metatext_write(const struct plugin_meta *m, FILE *f)
{
	const struct plugin_command *c;
	const struct optdesc *d;
	unsigned n = 0;

	fprintf(f, "gadgetd-plugin-meta\t%d\n", METATEXT_VERSION);
	metatext_field(f, "name", true);
	metatext_field(f, m->name, false);
	fputc('\n', f);
	if (m->user) {
		metatext_field(f, "user", true);
		metatext_field(f, m->user, false);
		metatext_field(f, m->user_gecos ? m->user_gecos : "", false);
		fputc('\n', f);
	}
	for (d = m->options; d && d->name; d++, n++) {
		if (n == METATEXT_MAX_OPTIONS)
			return -EINVAL;
		metatext_write_option(f, d);
	}
	for (n = 0, c = m->commands; c && c->name; c++, n++) {
		if (n == METATEXT_MAX_COMMANDS)
			return -EINVAL;
		metatext_field(f, "command", true);
		metatext_field(f, c->name, false);
		metatext_field(f, metatext_access[c->access], false);
		metatext_field(f, c->args ? c->args : "", false);
		metatext_field(f, c->help ? c->help : "", false);
		fputc('\n', f);
	}
	fputs("end\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/* Unescape s in place; false for a bad escape, a control character or
 * a field too long. */
static bool metatext_unescape(char *s)
{
	char *o = s;
	size_t n = 0;

	for (; *s; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == '\\') {
			s++;
			if (*s == '\\')
				c = '\\';
			else if (*s == 't')
				c = '\t';
			else if (*s == 'n')
				c = '\n';
			else
				return false;
		}
		*o++ = (char)c;
	}
	*o = '\0';
	return n <= METATEXT_MAX_FIELD;
}

/* A name of lower-case letters, digits and extra's characters, 1..max. */
static bool metatext_ident(const char *s, const char *extra, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return false;
	return true;
}

static int metatext_word(const char *const *words, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (words[i] && !strcmp(words[i], w))
			return (int)i;
	return -1;
}

static bool metatext_number(const char *s, long long *out)
{
	static const struct optdesc any = { .min = -9223372036854775807LL - 1,
					    .max = 9223372036854775807LL };

	return optdesc_int(&any, s, out) == 0;
}

struct metatext_line {
	char *f[METATEXT_MAX_FIELDS];
	unsigned n;
	char *why;
	size_t why_size;
};

static int metatext_bad(struct metatext_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int metatext_bad(struct metatext_line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->why, l->why_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A default that the option's own parser takes (an enum's: later, once
 * its choices are known). */
static int metatext_check_default(struct metatext_line *l, const struct optdesc *d)
{
	long long v;

	if (!d->def)
		return 0;
	if (d->type == OPTDESC_BOOL && optdesc_bool(d->def) < 0)
		return metatext_bad(l, "option %s: default \"%s\" is not a boolean", d->name, d->def);
	if (d->type == OPTDESC_INT && optdesc_int(d, d->def, &v) < 0)
		return metatext_bad(l, "option %s: default \"%s\" is not an integer in %lld..%lld",
				    d->name, d->def, d->min, d->max);
	return 0;
}

static int metatext_option(struct metatext *t, struct metatext_line *l)
{
	struct optdesc *d = &t->opts[t->n_opts];
	const char *n_at;
	long long count, req;
	int type;
	unsigned i;

	if (l->n != 8 && l->n != 9)
		return metatext_bad(l, "option: 8 or 9 fields, not %u", l->n);
	if (t->n_opts == METATEXT_MAX_OPTIONS)
		return metatext_bad(l, "more than %d options", METATEXT_MAX_OPTIONS);
	if (!metatext_ident(l->f[1], "_N", 64))
		return metatext_bad(l, "option: \"%s\" is not an option name", l->f[1]);
	for (i = 0; i < t->n_opts; i++)
		if (!strcmp(t->opts[i].name, l->f[1]))
			return metatext_bad(l, "option %s: declared twice", l->f[1]);
	type = metatext_word(metatext_types, METATEXT_N(metatext_types), l->f[2]);
	if (type < 0)
		return metatext_bad(l, "option %s: unknown type \"%s\"", l->f[1], l->f[2]);
	if (!metatext_number(l->f[3], &count) || count < 0 || count > 100 ||
	    !metatext_number(l->f[4], &d->min) || !metatext_number(l->f[5], &d->max) ||
	    d->min > d->max || !metatext_number(l->f[6], &req) || req < 0 || req > 1)
		return metatext_bad(l, "option %s: bad count, range or required", l->f[1]);
	n_at = strchr(l->f[1], 'N');
	if (!count != !n_at || (n_at && strchr(n_at + 1, 'N')))
		return metatext_bad(l, "option %s: one N in its name if and only if a count", l->f[1]);
	d->name = l->f[1];
	d->type = (enum optdesc_type)type;
	d->count = (unsigned)count;
	d->required = req;
	d->help = l->f[7];
	d->def = l->n == 9 ? l->f[8] : NULL;
	if (type == OPTDESC_ENUM)
		d->choices = t->choices[t->n_opts];
	t->n_opts++;
	return metatext_check_default(l, d);
}

static int metatext_choice(struct metatext *t, struct metatext_line *l)
{
	unsigned i = t->n_opts - 1;

	if (l->n != 2)
		return metatext_bad(l, "choice: 2 fields, not %u", l->n);
	if (!t->n_opts || t->opts[i].type != OPTDESC_ENUM)
		return metatext_bad(l, "choice: not after an enum option");
	if (!l->f[1][0] || t->n_choices[i] == METATEXT_MAX_CHOICES)
		return metatext_bad(l, "option %s: an empty choice or more than %d",
				    t->opts[i].name, METATEXT_MAX_CHOICES);
	t->choices[i][t->n_choices[i]++] = l->f[1];
	return 0;
}

static int metatext_command(struct metatext *t, struct metatext_line *l)
{
	struct plugin_command *c = &t->cmds[t->n_cmds];
	unsigned i;
	int access;

	if (l->n != 5)
		return metatext_bad(l, "command: 5 fields, not %u", l->n);
	if (t->n_cmds == METATEXT_MAX_COMMANDS)
		return metatext_bad(l, "more than %d commands", METATEXT_MAX_COMMANDS);
	if (!metatext_ident(l->f[1], "_-", 32))
		return metatext_bad(l, "command: \"%s\" is not a command name", l->f[1]);
	for (i = 0; i < t->n_cmds; i++)
		if (!strcmp(t->cmds[i].name, l->f[1]))
			return metatext_bad(l, "command %s: declared twice", l->f[1]);
	access = metatext_word(metatext_access, METATEXT_N(metatext_access), l->f[2]);
	if (access < 0)
		return metatext_bad(l, "command %s: unknown access \"%s\"", l->f[1], l->f[2]);
	c->name = l->f[1];
	c->access = (enum plugin_access)access;
	c->args = l->f[3];
	c->help = l->f[4];
	t->n_cmds++;
	return 0;
}

static int metatext_record(struct metatext *t, struct metatext_line *l)
{
	const char *k = l->f[0];

	if (t->have_end)
		return metatext_bad(l, "a line after end");
	if (!strcmp(k, "name")) {
		if (l->n != 2 || t->have_name || !metatext_ident(l->f[1], "_", 64))
			return metatext_bad(l, "name: one plugin name (a-z, 0-9, _), once");
		t->meta.name = l->f[1];
		t->have_name = true;
		return 0;
	}
	if (!strcmp(k, "user")) {
		if (l->n != 3 || t->have_user || !metatext_ident(l->f[1], "_-", 32))
			return metatext_bad(l, "user: one user name and its description, once");
		t->meta.user = l->f[1];
		t->meta.user_gecos = l->f[2];
		t->have_user = true;
		return 0;
	}
	if (!strcmp(k, "option"))
		return metatext_option(t, l);
	if (!strcmp(k, "choice"))
		return metatext_choice(t, l);
	if (!strcmp(k, "command"))
		return metatext_command(t, l);
	if (!strcmp(k, "end") && l->n == 1) {
		t->have_end = true;
		return 0;
	}
	return metatext_bad(l, "unknown record \"%s\"", k);
}

/* Split line at tabs into l's fields, each unescaped. */
static int metatext_split(char *line, struct metatext_line *l)
{
	char *s = line, *tab;

	l->n = 0;
	for (;;) {
		if (l->n == METATEXT_MAX_FIELDS)
			return metatext_bad(l, "more than %d fields", METATEXT_MAX_FIELDS);
		tab = strchr(s, '\t');
		if (tab)
			*tab = '\0';
		if (!metatext_unescape(s))
			return metatext_bad(l, "field %u: a control character, a bad escape "
					    "or over %d bytes", l->n + 1, METATEXT_MAX_FIELD);
		l->f[l->n++] = s;
		if (!tab)
			return 0;
		s = tab + 1;
	}
}

/* What the lines left unsaid: a name, an end, every enum's choices. */
static int metatext_complete(struct metatext *t, struct metatext_line *l)
{
	const struct optdesc *d;
	unsigned i, j;

	if (!t->have_name || !t->have_end)
		return metatext_bad(l, "no %s line", t->have_name ? "end" : "name");
	for (i = 0; i < t->n_opts; i++) {
		d = &t->opts[i];
		if (d->type != OPTDESC_ENUM)
			continue;
		if (!t->n_choices[i])
			return metatext_bad(l, "option %s: an enum without choices", d->name);
		for (j = 0; d->def && j < t->n_choices[i]; j++)
			if (!strcmp(d->def, t->choices[i][j]))
				break;
		if (d->def && j == t->n_choices[i])
			return metatext_bad(l, "option %s: default \"%s\" is not a choice",
					    d->name, d->def);
	}
	t->meta.options = t->opts;
	t->meta.commands = t->cmds;
	return 0;
}

static int metatext_lines(struct metatext *t, char *why, size_t why_size)
{
	char *s = t->buf, *nl, line_why[160];
	struct metatext_line l = { .why = line_why, .why_size = sizeof(line_why) };
	unsigned n = 0;
	int r = 0;

	while (*s && r == 0) {
		n++;
		nl = strchr(s, '\n');
		if (!nl) {
			r = metatext_bad(&l, "no newline at the end");
			break;
		}
		*nl = '\0';
		r = metatext_split(s, &l);
		if (r == 0 && n == 1)
			r = l.n == 2 && !strcmp(l.f[0], "gadgetd-plugin-meta") &&
			    !strcmp(l.f[1], "1") ? 0 :
			    metatext_bad(&l, "not gadgetd-plugin-meta version 1");
		else if (r == 0)
			r = metatext_record(t, &l);
		s = nl + 1;
	}
	if (r == 0)
		r = metatext_complete(t, &l);
	if (r < 0)
		snprintf(why, why_size, "line %u: %s", n, line_why);
	return r;
}

int metatext_parse(const char *text, size_t len, struct metatext **out,
		   char *why, size_t why_size)
{
	struct metatext *t;
	int r;

	*out = NULL;
	if (why_size)
		why[0] = '\0';
	if (len > METATEXT_MAX_TEXT || memchr(text, '\0', len)) {
		snprintf(why, why_size, "over %d bytes or a NUL byte", METATEXT_MAX_TEXT);
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->buf = malloc(len + 1))) {
		free(t);
		return -ENOMEM;
	}
	memcpy(t->buf, text, len);
	t->buf[len] = '\0';
	r = metatext_lines(t, why, why_size);
	if (r < 0) {
		metatext_free(t);
		return r;
	}
	*out = t;
	return 0;
}

const struct plugin_meta *metatext_meta(const struct metatext *t)
{
	return &t->meta;
}

void metatext_free(struct metatext *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t);
}
