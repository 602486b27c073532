/* common/metatext.c: a declaration as text and back. Every plugin built
 * here goes through metatext_write() and metatext_parse() unchanged;
 * text that is malformed in any one way is refused, naming its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "metatext.h"
#include "plugin_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *metatext_of(const struct plugin_meta *m, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	assert_int_equal(metatext_write(m, f), 0);
	fclose(f);
	return text;
}

static void same_string(const char *a, const char *b)
{
	assert_string_equal(a ? a : "", b ? b : "");
}

static void same_option(const struct optdesc *a, const struct optdesc *b)
{
	const char *const *ca = a->choices, *const *cb = b->choices;

	assert_string_equal(a->name, b->name);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->count, b->count);
	assert_true(a->min == b->min && a->max == b->max);
	assert_int_equal(a->required, b->required);
	same_string(a->help, b->help);
	assert_int_equal(!a->def, !b->def);
	if (a->def)
		assert_string_equal(a->def, b->def);
	if (a->type != OPTDESC_ENUM)
		return;
	for (; *ca && *cb; ca++, cb++)
		assert_string_equal(*ca, *cb);
	assert_null(*ca);
	assert_null(*cb);
}

static void same_meta(const struct plugin_meta *a, const struct plugin_meta *b)
{
	const struct plugin_command *ca = a->commands, *cb = b->commands;
	const struct optdesc *da = a->options, *db = b->options;
	unsigned n = 0;

	assert_string_equal(a->name, b->name);
	assert_string_equal(plugin_meta_user(a), plugin_meta_user(b));
	for (; da && da->name; da++, db++, n++)
		same_option(da, db);
	assert_null(db->name);
	for (; ca && ca->name; ca++, cb++, n++) {
		assert_string_equal(ca->name, cb->name);
		assert_int_equal(ca->access, cb->access);
		same_string(ca->args, cb->args);
		same_string(ca->help, cb->help);
	}
	assert_null(cb->name);
	print_message("%s: %u options and commands\n", a->name, n);
}

static void test_every_built_plugin_round_trips(void **state)
{
	const struct plugin_meta *const *m;
	struct metatext *t;
	char why[256];
	size_t len;
	char *text;

	for (m = plugin_list_metas; *m; m++) {
		text = metatext_of(*m, &len);
		assert_int_equal(metatext_parse(text, len, &t, why, sizeof(why)), 0);
		same_meta(*m, metatext_meta(t));
		metatext_free(t);
		free(text);
	}
}

static const char *const enum_words[] = { "one", "two", NULL };
static const struct optdesc escape_options[] = {
	{ .name = "a", .type = OPTDESC_STRING, .help = "tab\there\\ and\nnewline" },
	{ .name = "portN", .type = OPTDESC_INT, .count = 4, .min = -5, .max = 5, .def = "-1" },
	{ .name = "mode", .type = OPTDESC_ENUM, .choices = enum_words, .def = "two",
	  .required = true },
	{ 0 }
};
static const struct plugin_command escape_commands[] = {
	{ "go-now", "A\tB", "", PLUGIN_ACCESS_DRIVE },
	{ 0 }
};

static void test_escapes_round_trip(void **state)
{
	const struct plugin_meta m = { .name = "esc", .user = "esc-user",
				       .user_gecos = "x\\y", .options = escape_options,
				       .commands = escape_commands };
	struct metatext *t;
	char why[256];
	size_t len;
	char *text = metatext_of(&m, &len);

	assert_int_equal(metatext_parse(text, len, &t, why, sizeof(why)), 0);
	same_meta(&m, metatext_meta(t));
	assert_string_equal(metatext_meta(t)->user_gecos, "x\\y");
	metatext_free(t);
	free(text);
}

#define HEAD "gadgetd-plugin-meta\t1\nname\tp\n"
#define OPT "option\tn\tint\t0\t1\t8\t0\thelp"

/* Each: text that is wrong in one way, and the start of the reason. */
static const struct {
	const char *text, *why;
} bad[] = {
	{ "", "line 0: no name line" },
	{ "gadgetd-plugin-meta\t2\nname\tp\nend\n", "line 1: not gadgetd-plugin-meta version 1" },
	{ HEAD, "line 2: no end line" },
	{ HEAD "end", "line 3: no newline at the end" },
	{ HEAD "end\nend\n", "line 4: a line after end" },
	{ HEAD "\nend\n", "line 3: unknown record \"\"" },
	{ HEAD "name\tq\nend\n", "line 3: name:" },
	{ "gadgetd-plugin-meta\t1\nname\tP\nend\n", "line 2: name:" },
	{ HEAD "bogus\nend\n", "line 3: unknown record \"bogus\"" },
	{ HEAD OPT "\nend\nx\n", "line 5: a line after end" },
	{ HEAD OPT "\t9\nend\n", "line 3: option n: default \"9\" is not an integer in 1..8" },
	{ HEAD "option\tn\tint\t0\t8\t1\t0\th\nend\n", "line 3: option n: bad count" },
	{ HEAD "option\tn\tint\t0\t1\t99999999999999999999\t0\th\nend\n", "line 3: option n: bad count" },
	{ HEAD "option\tn\tint\t0\t1\t8\t2\th\nend\n", "line 3: option n: bad count" },
	{ HEAD "option\tn\tfloat\t0\t1\t8\t0\th\nend\n", "line 3: option n: unknown type" },
	{ HEAD "option\tn\tint\t0\t1\t8\nend\n", "line 3: option: 8 or 9 fields" },
	{ HEAD "option\tN-x\tint\t0\t1\t8\t0\th\nend\n", "line 3: option: \"N-x\" is not" },
	{ HEAD "option\tnN\tint\t0\t1\t8\t0\th\nend\n", "line 3: option nN: one N" },
	{ HEAD "option\tx\tint\t3\t1\t8\t0\th\nend\n", "line 3: option x: one N" },
	{ HEAD OPT "\n" OPT "\nend\n", "line 4: option n: declared twice" },
	{ HEAD "option\tb\tbool\t0\t0\t0\t0\th\tmaybe\nend\n", "line 3: option b: default \"maybe\"" },
	{ HEAD "option\te\tenum\t0\t0\t0\t0\th\nend\n", "line 4: option e: an enum without choices" },
	{ HEAD "option\te\tenum\t0\t0\t0\t0\th\tc\nchoice\ta\nend\n", "line 5: option e: default \"c\" is not a choice" },
	{ HEAD OPT "\nchoice\ta\nend\n", "line 4: choice: not after an enum option" },
	{ HEAD "choice\ta\nend\n", "line 3: choice: not after an enum option" },
	{ HEAD "command\tgo\tall\t\thelp\nend\n", "line 3: command go: unknown access" },
	{ HEAD "command\tGo\tread\t\thelp\nend\n", "line 3: command: \"Go\" is not" },
	{ HEAD "command\tgo\tread\t\thelp\ncommand\tgo\tread\t\thelp\nend\n", "line 4: command go: declared twice" },
	{ HEAD "command\tgo\tread\thelp\nend\n", "line 3: command: 5 fields" },
	{ HEAD "user\tUser\tx\nend\n", "line 3: user:" },
	{ HEAD "command\tgo\tread\t\the\\lp\nend\n", "line 3: field 5: a control character" },
	{ HEAD "command\tgo\tread\t\the\rlp\nend\n", "line 3: field 5: a control character" },
	{ HEAD "command\tgo\tread\t\thelp\\\nend\n", "line 3: field 5: a control character" },
	{ HEAD "a\tb\tc\td\te\tf\tg\th\ti\tj\tk\nend\n", "line 3: more than 10 fields" },
};

static void test_malformed_refused(void **state)
{
	struct metatext *t = (struct metatext *)1;
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int r = metatext_parse(bad[i].text, strlen(bad[i].text), &t, why, sizeof(why));

		print_message("%zu: %s\n", i, why);
		assert_int_equal(r, -EINVAL);
		assert_null(t);
		if (strncmp(why, bad[i].why, strlen(bad[i].why)))
			fail_msg("case %zu: \"%s\", expected \"%s...\"", i, why, bad[i].why);
	}
}

/* Bounds: a long field, a NUL byte, too many options and choices. */
static void test_bounds(void **state)
{
	char text[METATEXT_MAX_TEXT + 2], why[256];
	struct metatext *t;
	size_t n;
	int i;

	n = (size_t)snprintf(text, sizeof(text), HEAD "command\tgo\tread\t\t%0300d\nend\n", 0);
	assert_int_equal(metatext_parse(text, n, &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "over 256 bytes"));
	memcpy(text, HEAD "end\n", sizeof(HEAD "end\n"));
	assert_int_equal(metatext_parse(text, sizeof(HEAD "end\n"), &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "NUL"));
	n = (size_t)snprintf(text, sizeof(text), HEAD);
	for (i = 0; i <= METATEXT_MAX_OPTIONS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "option\to%d\tbool\t0\t0\t0\t0\th\n", i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "end\n");
	assert_int_equal(metatext_parse(text, n, &t, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "line 67: more than 64 options");
	n = (size_t)snprintf(text, sizeof(text), HEAD "option\te\tenum\t0\t0\t0\t0\th\n");
	for (i = 0; i <= METATEXT_MAX_CHOICES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "choice\tc%d\n", i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "end\n");
	assert_int_equal(metatext_parse(text, n, &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 36: option e: an empty choice or more than 32"));
	memset(text, 'a', sizeof(text));
	assert_int_equal(metatext_parse(text, METATEXT_MAX_TEXT + 1, &t, why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_built_plugin_round_trips),
		cmocka_unit_test(test_escapes_round_trip),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
