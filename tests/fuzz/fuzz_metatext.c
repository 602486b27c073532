/*
 * libFuzzer target: an out-of-tree plugin's declaration as its worker
 * prints it (common/metatext.c), which gadgetd parses and must not trust.
 * Text that parses is printed again and parsed again: the second text
 * must be the first, so nothing the parser kept can be misread later. Text
 * that does not parse gives a reason that starts "line N: ".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metatext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fuzz_metatext_print(const struct metatext *t, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	if (metatext_write(metatext_meta(t), f) < 0)
		abort();
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metatext *t, *again;
	char why[256], *one, *two;
	size_t n1, n2;

	if (metatext_parse((const char *)data, size, &t, why, sizeof(why)) < 0) {
		if (size <= METATEXT_MAX_TEXT && !memchr(data, '\0', size) &&
		    strncmp(why, "line ", 5))
			abort();
		return 0;
	}
	one = fuzz_metatext_print(t, &n1);
	if (metatext_parse(one, n1, &again, why, sizeof(why)) < 0)
		abort();
	two = fuzz_metatext_print(again, &n2);
	if (n1 != n2 || memcmp(one, two, n1))
		abort();
	free(one);
	free(two);
	metatext_free(again);
	metatext_free(t);
	return 0;
}
