/*
 * json: the one place that writes a string as JSON (gadgetctl status
 * --json, from gadget.c and supervisor.c).
 */
#ifndef GADGETD_JSON_H
#define GADGETD_JSON_H

#include <stdio.h>

/*
 * Write s to out as a JSON string, quotes included: '"' and '\' get a
 * backslash, control characters (below 0x20, and DEL) become \n, \t, \r,
 * \b, \f or \u00XX. Other bytes are copied. NULL is written as null.
 */
void json_str(FILE *out, const char *s);

#endif
