/*
 * fake_gadget_status: what gadget_status() shows, for the tests that link
 * the whole gadget (fake_gadget_deps.h declares them); apart from
 * fake_gadget_deps.c so that tests of one part of it (test_txn) link
 * those fakes without the gadget.
 */
#include "fake_gadget_deps.h"
#include "gadget.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fake_status_text(struct gadget *g, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	gadget_status(g, out, json);
	fclose(out);
	return text;
}

void fake_status_set(struct gadget *g, char *buf, size_t size)
{
	char *text = fake_status_text(g, false), *p;

	p = strstr(text, "\nset: ");
	assert_non_null(p);
	snprintf(buf, size, "%.*s", (int)strcspn(p + 6, "\n"), p + 6);
	free(text);
}
