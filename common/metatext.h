/*
 * metatext: a plugin's declaration (plugin_meta.h) as lines of text, so
 * that gadgetd learns an out-of-tree plugin's options and commands
 * without loading its code: the worker, which may load it, prints them
 * (metatext_write), and gadgetd parses them (metatext_parse) as it would
 * any hostile input.
 *
 * Version 1, one record a line, fields separated by a tab; in a field,
 * "\\" is a backslash, "\t" a tab and "\n" a newline, and no other
 * control character may appear:
 *
 *     gadgetd-plugin-meta	1
 *     name	NAME
 *     user	USER	GECOS                  (optional)
 *     option	NAME	TYPE	COUNT	MIN	MAX	REQUIRED	HELP[	DEFAULT]
 *     choice	VALUE                      (an enum's, after its option)
 *     command	NAME	ACCESS	ARGS	HELP
 *     end
 *
 * TYPE is bool, int, string, enum, path, mac or hex; REQUIRED 0 or 1;
 * ACCESS admin, read or drive. Only options, commands and the user carry
 * over: what gadgetd does for a plugin on its behalf (root, TCP, keys,
 * events, switch requests) is for the plugins built with it.
 */
#ifndef GADGETD_METATEXT_H
#define GADGETD_METATEXT_H

#include <stddef.h>
#include <stdio.h>

#include "plugin_meta.h"

#define METATEXT_VERSION 1
/* Bounds on what is parsed: bigger is refused. */
#define METATEXT_MAX_TEXT 65536
#define METATEXT_MAX_OPTIONS 64
#define METATEXT_MAX_COMMANDS 32
#define METATEXT_MAX_CHOICES 32
#define METATEXT_MAX_FIELD 256

struct metatext;

/* Print m's lines to f. 0, -EINVAL for a declaration the format cannot
 * carry (more than its bounds), or -EIO. */
int metatext_write(const struct plugin_meta *m, FILE *f);

/*
 * Parse len bytes of text into *out (metatext_free() it). 0, or -EINVAL
 * with why set to "line N: reason", or -ENOMEM.
 */
int metatext_parse(const char *text, size_t len, struct metatext **out,
		   char *why, size_t why_size);

/* The declaration parsed, valid until metatext_free(). */
const struct plugin_meta *metatext_meta(const struct metatext *t);

void metatext_free(struct metatext *t);

#endif
