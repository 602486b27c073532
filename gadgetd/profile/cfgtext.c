/*
 * cfgtext: read, lint and parse a libconfig text; collect problems.
 */
#include "cfgtext.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cfgtext_error(struct cfgtext_err *e, const config_setting_t *s, const char *fmt, ...)
{
	int line = s ? (int)config_setting_source_line(s) : (int)e->line;
	va_list ap;
	int n;

	e->count++;
	if (e->len + 1 >= e->size)
		return;
	n = line ? snprintf(e->buf + e->len, e->size - e->len, "%s%s:%d: ",
			    e->len ? "\n" : "", e->file, line)
		 : snprintf(e->buf + e->len, e->size - e->len, "%s%s: ",
			    e->len ? "\n" : "", e->file);
	if (n > 0)
		e->len += n;
	if (e->len >= e->size) {
		e->len = e->size - 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(e->buf + e->len, e->size - e->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		e->len += n;
	if (e->len >= e->size)
		e->len = e->size - 1;
}

static const char *cfgtext_lint_string(const char *s, unsigned *line)
{
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (*s == '\n')
			(*line)++;
	}
	return *s ? s + 1 : s;
}

static const char *cfgtext_lint_comment(const char *s, unsigned *line)
{
	if (s[0] == '#' || s[1] == '/')
		return s + strcspn(s, "\n");
	for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
		if (*s == '\n')
			(*line)++;
	return *s ? s + 2 : s;
}

/* libconfig 1.5 keeps an integer without the L suffix in 32 bits and
 * truncates it silently: vendor_id = 0x100001d6b would read as 0x1d6b. */
static const char *cfgtext_lint_number(struct cfgtext_err *e, const char *s,
				       unsigned line)
{
	const char *b = s;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	bool is_float = false, l64;
	unsigned long long v;
	char *end;

	for (s += hex ? 2 : 0; isalnum((unsigned char)*s) || *s == '.' ||
			       ((*s == '+' || *s == '-') && !hex &&
				(s[-1] == 'e' || s[-1] == 'E'));
	     s++)
		if (*s == '.' || (!hex && (*s == 'e' || *s == 'E')))
			is_float = true;
	if (is_float)
		return s;
	l64 = s[-1] == 'L';
	errno = 0;
	v = strtoull(b, &end, hex ? 16 : 10);
	if (end != s - l64)
		return s; /* not a number: libconfig reports the syntax */
	if (errno == ERANGE || v > (l64 ? (unsigned long long)INT64_MAX
					: (unsigned long long)INT32_MAX)) {
		e->line = line;
		cfgtext_error(e, NULL, "integer %.*s is too large", (int)(s - b), b);
	}
	return s;
}

static bool cfgtext_lint_include(const char *s)
{
	s += strspn(s, " \t\r\f\v");
	return !strncasecmp(s, "@include", 8);
}

/* Brackets open around the current token: '{' for a group, '(' or '['
 * for a list or an array. Profiles nest three deep. */
struct cfgtext_nest {
	char open[64];
	unsigned depth;
	char prev; /* the last token: '"' string, 'a' name, '0' number, or itself */
};

/*
 * libconfig 1.5 leaks its string buffer when a syntax error is found at a
 * string, so a string where none can start is refused here: a string
 * follows "=", ":", "(", "[", another string, or "," inside a list.
 */
static bool cfgtext_lint_string_ok(const struct cfgtext_nest *n)
{
	char top = n->depth ? n->open[n->depth - 1] : '{';

	return strchr("=:([\"", n->prev) ? n->prev != '\0' :
	       n->prev == ',' && top != '{';
}

static void cfgtext_lint_punct(struct cfgtext_err *e, struct cfgtext_nest *n,
			       char c, unsigned line)
{
	if (c == '{' || c == '(' || c == '[') {
		if (n->depth == sizeof(n->open)) {
			e->line = line;
			cfgtext_error(e, NULL, "nested more than %zu deep",
				      sizeof(n->open));
			return;
		}
		n->open[n->depth++] = c;
	} else if ((c == '}' || c == ')' || c == ']') && n->depth) {
		n->depth--;
	}
}

/*
 * What libconfig accepts but gadgetd's files must not have: integers it
 * would truncate, and @include, which opens any file named (gadgetd reads no
 * other file). @include is looked for on every line, even inside strings
 * and comments, which is stricter than libconfig needs.
 */
static void cfgtext_lint(struct cfgtext_err *e, const char *s)
{
	struct cfgtext_nest n = { .depth = 0 };
	unsigned line = 1;
	const char *t;

	for (t = s; t; t = strchr(t, '\n'), t = t ? t + 1 : NULL, line++) {
		e->line = line;
		if (cfgtext_lint_include(t))
			cfgtext_error(e, NULL, "@include is not allowed");
	}
	for (line = 1; *s && e->count < 100;) {
		if (*s == '\n') {
			line++;
			s++;
		} else if (isspace((unsigned char)*s)) {
			s++;
		} else if (*s == '"') {
			if (!cfgtext_lint_string_ok(&n)) {
				e->line = line;
				cfgtext_error(e, NULL, "syntax error: a string where none can be");
			}
			s = cfgtext_lint_string(s, &line);
			n.prev = '"';
		} else if (*s == '#' || (*s == '/' && (s[1] == '/' || s[1] == '*'))) {
			s = cfgtext_lint_comment(s, &line);
		} else if (isalpha((unsigned char)*s) || *s == '*') {
			/* A name, such as usb2: its digits are no number. */
			while (*s && (isalnum((unsigned char)*s) || strchr("-_*", *s)))
				s++;
			n.prev = 'a';
		} else if (isdigit((unsigned char)*s) || *s == '.') {
			s = cfgtext_lint_number(e, s, line);
			n.prev = '0';
		} else {
			cfgtext_lint_punct(e, &n, *s, line);
			n.prev = *s++;
		}
	}
	e->line = 0;
}

static int cfgtext_syntax(config_t *cfg, const char *file, char *err, size_t size)
{
	snprintf(err, size, "%s:%d: %s", file, config_error_line(cfg),
		 config_error_text(cfg));
	return -EINVAL;
}

int cfgtext_parse(config_t *cfg, const char *file, const char *text, char *err,
		  size_t err_size)
{
	struct cfgtext_err e = { .file = file, .buf = err, .size = err_size, .line = 1 };

	if (err_size)
		err[0] = '\0';
	if (strlen(text) > CFGTEXT_MAX) {
		cfgtext_error(&e, NULL, "larger than %d bytes", CFGTEXT_MAX);
		return -EFBIG;
	}
	cfgtext_lint(&e, text);
	if (e.count)
		return -EINVAL;
	if (config_read_string(cfg, text) != CONFIG_TRUE)
		return cfgtext_syntax(cfg, file, err, err_size);
	return 0;
}

int cfgtext_read_fd(int fd, const char *path, char **text, char *err, size_t err_size)
{
	char *buf = malloc(CFGTEXT_MAX + 2);
	size_t n = 0;
	ssize_t got = 1;

	*text = NULL;
	if (!buf)
		return -ENOMEM;
	while (n <= CFGTEXT_MAX && got > 0) {
		got = read(fd, buf + n, CFGTEXT_MAX + 1 - n);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got > 0)
			n += got;
	}
	if (got < 0 || n > CFGTEXT_MAX || memchr(buf, '\0', n)) {
		snprintf(err, err_size, "%s:1: %s", path, got < 0 ? strerror(errno) :
			 n > CFGTEXT_MAX ? "larger than 64 KiB" : "contains a NUL byte");
		free(buf);
		return got < 0 ? -EIO : n > CFGTEXT_MAX ? -EFBIG : -EINVAL;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

int cfgtext_load(const char *path, char **text, char *err, size_t err_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	*text = NULL;
	if (fd < 0) {
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(-r));
		return r;
	}
	r = cfgtext_read_fd(fd, path, text, err, err_size);
	close(fd);
	return r;
}
