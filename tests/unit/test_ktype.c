/*
 * Unit tests for gadgetd/profile/ktype.c's table against what users read of it:
 * man/gadgetd.conf.5's "Kernel function types" has one ".TP" paragraph per
 * type (".B acm", or ".BR ecm \", \" ncm ..." for types that share their
 * attributes) whose bold words are exactly the type's attributes, and the
 * profile's "unknown type" message lists every type. A type added to the
 * table fails here until its paragraph is written, and the reverse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ktype.h"
#include "man_section.h"
#include "profile.h"

#define MAN5_FILE "man/gadgetd.conf.5" /* make unit runs from the root */
#define TEST_KTYPE_SECTION "Kernel function types"

/* Calls fn for each type of the table, as ktype_names() lists them. */
static void test_ktype_each(void (*fn)(const struct ktype *t, const char *words),
			    const char *words)
{
	char names[512], *name, *save = NULL;
	const struct ktype *t;

	snprintf(names, sizeof(names), "%s", ktype_names());
	for (name = strtok_r(names, ", ", &save); name;
	     name = strtok_r(NULL, ", ", &save)) {
		t = ktype_find(name);
		if (!t)
			fail_msg("ktype_names() lists %s, which ktype_find() does not know "
				 "(a truncated list?)", name);
		fn(t, words);
	}
}

static void test_ktype_documented(const struct ktype *t, const char *words)
{
	const struct optdesc *d;

	/* ffs is the plugins' type: its options are the plugins' own and
	 * "Plugin options" documents them (test_plugin_list). */
	if (t->ffs) {
		if (man_section_has(words, t->name, ""))
			fail_msg("%s: \"%s\" documents %s, a plugin's type, as a kernel one",
				 MAN5_FILE, TEST_KTYPE_SECTION, t->name);
		return;
	}
	if (!man_section_has(words, t->name, ""))
		fail_msg("%s: \"%s\" has no paragraph for type %s (a .TP, then .B %s "
			 "or .BR ... %s)", MAN5_FILE, TEST_KTYPE_SECTION, t->name,
			 t->name, t->name);
	for (d = t->attrs; d && d->name; d++)
		if (!man_section_has(words, t->name, d->name))
			fail_msg("%s: attribute %s of type %s is not documented (as "
				 "\\fB%s\\fR in its paragraph)", MAN5_FILE, d->name,
				 t->name, d->name);
}

/* word is a declaration's name as written ("lunN_file", whose N the
 * manual keeps). */
static bool test_ktype_declared(const struct ktype *t, const char *word)
{
	const struct optdesc *d;

	for (d = t->attrs; d && d->name; d++)
		if (!strcmp(d->name, word))
			return true;
	return false;
}

/* Each kernel type, and each of its attributes, in the manual. */
static void test_table_in_man_page(void **state)
{
	static char words[16384];

	assert_int_equal(man_section_words(MAN5_FILE, TEST_KTYPE_SECTION, words,
					   sizeof(words)), 0);
	test_ktype_each(test_ktype_documented, words);
}

/* Each type the manual documents in the table, and each bold word of
 * its paragraph one of its attributes. */
static void test_man_page_in_table(void **state)
{
	static char words[16384];
	char head[64], word[128], *l, *next;
	const struct ktype *t;
	unsigned heads = 0;

	assert_int_equal(man_section_words(MAN5_FILE, TEST_KTYPE_SECTION, words,
					   sizeof(words)), 0);
	for (l = words; *l; l = next) {
		next = strchr(l, '\n') + 1;
		word[0] = '\0';
		if (sscanf(l, "%63[^.].%127[^\n]", head, word) < 1)
			fail_msg("%s: unreadable line %.*s", MAN5_FILE, (int)(next - l), l);
		t = ktype_find(head);
		if (!t)
			fail_msg("%s: \"%s\" documents type %s, which ktype.c does not have",
				 MAN5_FILE, TEST_KTYPE_SECTION, head);
		if (!word[0]) {
			heads++;
			continue;
		}
		if (!optdesc_find(t->attrs, word) && !test_ktype_declared(t, word))
			fail_msg("%s: type %s documents attribute %s, which ktype.c does not "
				 "declare for it", MAN5_FILE, head, word);
	}
	assert_true(heads >= 8); /* acm ... uac2: the reader found the paragraphs */
}

/* A profile with an unknown type is told every type of the table. */
static void test_unknown_type_lists_all(void **state)
{
	static const char text[] =
		"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
		"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		"functions: { f: { type = \"nosuch\"; }; };\n"
		"sets = ( { functions = [ \"f\" ]; product_id = 0x0106; } );\n"
		"default = \"f\";\n";
	char err[4096], want[600];
	struct profile *p = NULL;

	assert_int_equal(profile_parse("t.conf", text, &p, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "unknown type \"nosuch\" (expected %s)", ktype_names());
	if (!strstr(err, want))
		fail_msg("%s: want %s", err, want);
}

/* A serial function's console: "getty" or "none" (the default); any
 * other word names the file, line and field. */
static void test_console_option(void **state)
{
	static const char head[] =
		"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
		"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n";
	static const char tail[] =
		"sets = ( { functions = [ \"s\" ]; product_id = 0x0106; } );\n"
		"default = \"s\";\n";
	static const char *const good[][2] = {
		{ "acm", "getty" }, { "gser", "getty" }, { "acm", "none" } };
	char text[1024], err[4096];
	struct profile *p = NULL;
	unsigned i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		snprintf(text, sizeof(text), "%sfunctions: { s: { type = \"%s\"; "
			 "console = \"%s\"; }; };\n%s", head, good[i][0], good[i][1], tail);
		if (profile_parse("t.conf", text, &p, err, sizeof(err)) != 0)
			fail_msg("%s console %s: %s", good[i][0], good[i][1], err);
		assert_string_equal(ktype_attr(&p->functions[0], "console"), good[i][1]);
		profile_free(p);
		p = NULL;
	}
	snprintf(text, sizeof(text), "%sfunctions: { s: { type = \"acm\"; };\n};\n%s",
		 head, tail);
	assert_int_equal(profile_parse("t.conf", text, &p, err, sizeof(err)), 0);
	assert_string_equal(ktype_attr(&p->functions[0], "console"), "none");
	profile_free(p);
	p = NULL;
	snprintf(text, sizeof(text), "%sfunctions: { s: { type = \"acm\";\n"
		 "  console = \"login\"; }; };\n%s", head, tail);
	assert_int_equal(profile_parse("t.conf", text, &p, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "t.conf:4:") || !strstr(err, "console") || !strstr(err, "getty"))
		fail_msg("want t.conf:4, console and the choices in: %s", err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_in_man_page),
		cmocka_unit_test(test_man_page_in_table),
		cmocka_unit_test(test_unknown_type_lists_all),
		cmocka_unit_test(test_console_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
