/*
 * man_section: see man_section.h. A small reader of the few roff
 * requests gadgetd's man pages use in their option lists, not a roff
 * parser: a paragraph it cannot read yields no words, and the test
 * holding a table against it then fails, naming what is missing.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "man_section.h"

#define MAN_SECTION_HEADS 8

struct man_section_out {
	char *buf;
	size_t size, n;
	char heads[MAN_SECTION_HEADS][64];
	unsigned n_heads;
};

static void man_section_put(struct man_section_out *o, const char *head, const char *word)
{
	int r = snprintf(o->buf + o->n, o->size - o->n, "%s.%s\n", head, word);

	if (r < 0 || (size_t)r >= o->size - o->n)
		fail_msg("man_section: more than %zu bytes of names", o->size);
	o->n += (size_t)r;
}

/* The heads of ".B NAME" (every argument bold) or
 * ".BR NAME1 ", " NAME2 ...": .BR alternates bold and roman arguments,
 * so its bold ones are the 1st, 3rd, ... */
static void man_section_heads(struct man_section_out *o, const char *line)
{
	bool alternate = line[2] == 'R';
	const char *s = line + (alternate ? 4 : 3);
	unsigned i;
	size_t len;

	o->n_heads = 0;
	for (i = 0; *s && *s != '\n'; i++) {
		s += strspn(s, " ");
		if (*s == '"') {
			len = strcspn(s + 1, "\"\n");
			s += len + 1 + (s[len + 1] == '"');
			continue; /* a quoted argument is roman punctuation here */
		}
		len = strcspn(s, " \n");
		if (!len)
			break;
		if ((!alternate || i % 2 == 0) && o->n_heads < MAN_SECTION_HEADS) {
			snprintf(o->heads[o->n_heads], sizeof(o->heads[0]), "%.*s",
				 (int)len, s);
			man_section_put(o, o->heads[o->n_heads++], "");
		}
		s += len;
	}
}

/* Each \fBword\fR of line, under each current head. */
static void man_section_bold(struct man_section_out *o, const char *line)
{
	char word[128];
	const char *s, *e;
	size_t i, j;
	unsigned h;

	for (s = line; o->n_heads && (s = strstr(s, "\\fB")); s = e) {
		s += 3;
		e = strstr(s, "\\fR");
		if (!e)
			break;
		for (i = j = 0; s + i < e && j + 1 < sizeof(word); i++) {
			if (!strncmp(s + i, "\\fIN\\fB", 7)) {
				word[j++] = 'N';
				i += 6;
			} else {
				word[j++] = s[i];
			}
		}
		word[j] = '\0';
		if (!islower((unsigned char)word[0]) ||
		    strspn(word, "abcdefghijklmnopqrstuvwxyzN0123456789_") != j)
			continue;
		for (h = 0; h < o->n_heads; h++)
			man_section_put(o, o->heads[h], word);
	}
}

int man_section_words(const char *path, const char *section, char *out, size_t size)
{
	struct man_section_out o = { .buf = out, .size = size };
	char line[4096], want[128];
	FILE *f = fopen(path, "r");
	bool in = false, tp = false;

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	snprintf(want, sizeof(want), ".SS %s\n", section);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".SS ", 4) || !strncmp(line, ".SH ", 4)) {
			if (in)
				break;
			in = !strcmp(line, want);
			continue;
		}
		if (!in)
			continue;
		if (tp && (!strncmp(line, ".B ", 3) || !strncmp(line, ".BR ", 4))) {
			tp = false;
			man_section_heads(&o, line);
			continue;
		}
		tp = !strcmp(line, ".TP\n");
		/* A new paragraph: its head comes next, or it has none. */
		if (tp || !strcmp(line, ".PP\n"))
			o.n_heads = 0;
		man_section_bold(&o, line);
	}
	fclose(f);
	return in ? 0 : -1;
}

bool man_section_has(const char *words, const char *head, const char *word)
{
	char want[256];
	size_t n = (size_t)snprintf(want, sizeof(want), "\n%s.%s\n", head, word);

	return !strncmp(words, want + 1, n - 1) || strstr(words, want);
}
