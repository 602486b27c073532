/*
 * optdesc: how a function's options are declared, for the kernel's
 * function types (gadgetd/profile/ktype.c) and for FunctionFS plugins (each
 * plugin's declaration, functions/NAME/NAME_meta.c, common/plugin_meta.h).
 *
 * gadgetd checks a profile against these declarations without loading
 * any plugin: an unknown name, a value of the wrong type or out of range
 * is refused with "FILE:LINE: functions.NAME.KEY: why". What passes is
 * stored in its canonical text: booleans "true"/"false", integers in
 * decimal, strings as given. A plugin reads an option, or the declared
 * default when it is absent, as text (plugin_option_or_default(),
 * plugin.h) or typed (plugin_option_bool(), plugin_option_int()), which
 * parse it again with the parsers below: a worker started by hand gets
 * options nobody checked.
 *
 * Header only, with no dependencies, so that the daemon, the checker in
 * gadgetctl and every plugin see the same declarations and the same
 * boolean and integer parsers.
 */
#ifndef GADGETD_OPTDESC_H
#define GADGETD_OPTDESC_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum optdesc_type {
	OPTDESC_BOOL,   /* libconfig true/false or a word optdesc_bool() takes */
	OPTDESC_INT,    /* an integer (or a string of one) in min..max */
	OPTDESC_STRING, /* printable ASCII, at most max characters (0: 1024) */
	OPTDESC_ENUM,   /* one of choices */
	OPTDESC_PATH,   /* an absolute path */
	OPTDESC_MAC,    /* a unicast Ethernet address "xx:xx:xx:xx:xx:xx" */
	OPTDESC_HEX,    /* an even number of hex digits, at most max bytes */
};

struct optdesc {
	/*
	 * The option's name. One upper-case 'N' stands for a digit 0 ..
	 * count-1: "storageN_path" with count 8 declares storage0_path up to
	 * storage7_path. Tables end with a NULL name.
	 */
	const char *name;
	enum optdesc_type type;
	unsigned count;
	long long min, max;
	const char *const *choices; /* OPTDESC_ENUM: NULL-terminated */
	const char *def;            /* canonical text, or NULL: none */
	bool required;
	const char *help;           /* one line, for the manual and messages */
};

/*
 * The one place booleans are parsed: true/false, yes/no, on/off and 1/0
 * (lower case). 1 or 0, or -EINVAL for anything else.
 */
static inline int optdesc_bool(const char *v)
{
	static const char *const words[] = { "true", "false", "yes", "no",
					     "on", "off", "1", "0" };
	size_t i;

	if (!v)
		return -EINVAL;
	for (i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(v, words[i]))
			return i % 2 == 0;
	return -EINVAL;
}

/* 0 if v is in d's min..max, else -ERANGE. */
static inline int optdesc_int_range(const struct optdesc *d, long long v)
{
	return v < d->min || v > d->max ? -ERANGE : 0;
}

/*
 * The one integer parser: text is exactly one integer, an optional '-'
 * then digits, in decimal, 0x hex or 0 octal (strtoll's base 0), with
 * nothing around it. 0 with *out set; -EINVAL for anything else (a
 * number beyond long long included); -ERANGE when it is outside d's
 * min..max, *out then set all the same, for the caller's message.
 */
static inline int optdesc_int(const struct optdesc *d, const char *text,
			      long long *out)
{
	const char *digit = text && text[0] == '-' ? text + 1 : text;
	char *end;
	long long v;

	if (!digit || *digit < '0' || *digit > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 0);
	if (*end || errno)
		return -EINVAL;
	*out = v;
	return optdesc_int_range(d, v);
}

/*
 * The one hex parser: pairs of hex digits (either case) into buf, which
 * may be NULL to only count. The number of bytes, or -EINVAL for an odd
 * length, a non-hex character or more than size bytes.
 */
static inline int optdesc_hex(const char *hex, unsigned char *buf, size_t size)
{
	size_t n = 0;
	int i, d[2];

	for (; hex[0]; hex += 2, n++) {
		for (i = 0; i < 2; i++) {
			char c = hex[i];

			d[i] = c >= '0' && c <= '9' ? c - '0' :
			       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d[i] < 0)
				return -EINVAL;
		}
		if (n == size)
			return -EINVAL;
		if (buf)
			buf[n] = (unsigned char)(d[0] << 4 | d[1]);
	}
	return (int)n;
}

/* Whether key is the name declared by d (a digit in place of its 'N'). */
static inline bool optdesc_matches(const struct optdesc *d, const char *key)
{
	const char *n = strchr(d->name, 'N');
	size_t pre;

	if (!n)
		return !strcmp(d->name, key);
	pre = (size_t)(n - d->name);
	return !strncmp(d->name, key, pre) && key[pre] >= '0' &&
	       (unsigned)(key[pre] - '0') < (d->count ? d->count : 10) &&
	       !strcmp(n + 1, key + pre + 1);
}

/* The declaration of key in the NULL-terminated table, or NULL. */
static inline const struct optdesc *optdesc_find(const struct optdesc *table,
						 const char *key)
{
	for (; table && table->name; table++)
		if (optdesc_matches(table, key))
			return table;
	return NULL;
}

/* The declared default of key, or NULL. */
static inline const char *optdesc_default(const struct optdesc *table,
					  const char *key)
{
	const struct optdesc *d = optdesc_find(table, key);

	return d ? d->def : NULL;
}

#endif
