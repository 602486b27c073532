/*
 * Unit tests for the plugin declarations (common/plugin_meta.h) and what
 * is derived from their list (common/plugin_list.h): the profile's option
 * checks, the default user, the group's commands, the sysusers.d file,
 * man/gadgetd.conf.5's option list, and the commands of man/gadgetctl.1
 * (the bash completion asks gadgetctl, which prints the declarations:
 * `gadgetctl list --commands`). Each test walks the list, so a changed
 * declaration fails here when the thing derived from it did not follow.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "access.h"
#include "request.h"
#include "man_section.h"
#include "optcheck.h"
#include "plugin_list.h"
#include "profile.h"
#include "ctl.h"

#ifndef SYSUSERS_FILE
#define SYSUSERS_FILE "build/gen/gadgetd.sysusers"
#endif
#define MAN5_FILE "man/gadgetd.conf.5" /* make unit runs from the root */
#define MAN1_FILE "man/gadgetctl.1"

/* A declared name as a profile writes it: "storageN_path" as storage0_path. */
static void key_of(const struct optdesc *d, char *key, size_t size)
{
	char *n;

	snprintf(key, size, "%s", d->name);
	n = strchr(key, 'N');
	if (n)
		*n = '0';
}

/* A profile with one function of plugin name, its required options set,
 * plus extra (one "key = value;" or ""). */
static int parse_with(const struct plugin_meta *m, const char *extra,
		      struct profile **p, char *err, size_t size)
{
	char text[4096], opts[2048] = "", key[64];
	size_t n = 0;
	const struct optdesc *d;

	for (d = m->options; d && d->name; d++)
		if (d->required && d->type == OPTDESC_ENUM) {
			key_of(d, key, sizeof(key));
			n += snprintf(opts + n, sizeof(opts) - n, "%s = \"%s\"; ", key,
				      d->choices[0]);
		}
	snprintf(text, sizeof(text),
		 "gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
		 "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		 "functions: { f: { type = \"ffs\"; plugin = \"%s\";\n"
		 "  options: { %s%s }; }; };\n"
		 "sets = ( { functions = [ \"f\" ]; product_id = 0x0106; } );\n"
		 "default = \"f\";\n", m->name, opts, extra);
	return profile_parse("t.conf", text, p, err, size);
}

static void test_list(void **state)
{
	const struct plugin_meta *const *m;
	size_t n = 0;

	for (m = plugin_list_metas; *m; m++, n++) {
		assert_non_null((*m)->name);
		assert_ptr_equal(plugin_list_find((*m)->name), *m);
	}
	assert_true(n >= 4); /* accessory, adb, echo, mtp at least */
	assert_non_null(plugin_list_find("echo"));
	assert_null(plugin_list_find("no-such-plugin"));
	assert_null(plugin_list_find(NULL));
}

/* The profile checks each plugin's options against its declaration: every
 * declared default is accepted and kept, anything undeclared refused. */
static void test_options_checked(void **state)
{
	const struct plugin_meta *const *m;
	const struct optdesc *d;
	char err[4096], key[64], line[1200];
	struct profile *p;

	assert_null(optcheck_plugin("no-such-plugin"));
	for (m = plugin_list_metas; *m; m++) {
		if ((*m)->options)
			assert_ptr_equal(optcheck_plugin((*m)->name), (*m)->options);
		else
			assert_null(optcheck_plugin((*m)->name)->name);
		for (d = (*m)->options; d && d->name; d++) {
			if (!d->def)
				continue;
			key_of(d, key, sizeof(key));
			snprintf(line, sizeof(line), "%s = \"%s\";", key, d->def);
			if (parse_with(*m, line, &p, err, sizeof(err)) < 0)
				fail_msg("%s %s: %s", (*m)->name, key, err);
			assert_string_equal(profile_option(profile_function_find(p, "f"), key),
					    d->def);
			profile_free(p);
		}
		assert_int_equal(parse_with(*m, "no_such_option = 1;", &p, err,
					    sizeof(err)), -EINVAL);
		if (!strstr(err, "unknown option \"no_such_option\" (plugin "))
			fail_msg("%s: %s", (*m)->name, err);
	}
}

static void test_default_user(void **state)
{
	const struct plugin_meta *const *m;

	for (m = plugin_list_metas; *m; m++)
		assert_string_equal(profile_default_user((*m)->name),
				    (*m)->user ? (*m)->user : PLUGIN_META_FALLBACK_USER);
	assert_string_equal(profile_default_user("no-such-plugin"),
			    PLUGIN_META_FALLBACK_USER);
	assert_string_equal(plugin_meta_user(plugin_list_find("adb")), "gadgetd-adb");
}

static enum access_command kind_of(enum plugin_access a)
{
	return a == PLUGIN_ACCESS_READ ? ACCESS_COMMAND_READ :
	       a == PLUGIN_ACCESS_DRIVE ? ACCESS_COMMAND_DRIVE : ACCESS_COMMAND_ADMIN;
}

/* The control socket's group runs the commands each declaration opens to
 * it, and no other: not an admin one, not an undeclared one. */
static void test_group_commands(void **state)
{
	const struct access_policy pol = { .group = "gadgetd", .group_gid = 100 };
	const struct access_peer group = { .uid = 1000, .in_group = true };
	const struct plugin_meta *const *m;
	const struct plugin_command *c;
	char why[256], fn[] = "f", cmd[64];
	char *argv[2] = { fn, cmd };
	struct access_view view = { 0 };
	struct request req;
	unsigned admin = 0;

	request_from_ctl(CTL_FUNCTION, 2, argv, &req);
	for (m = plugin_list_metas; *m; m++) {
		view.plugin = (*m)->name;
		for (c = (*m)->commands; c && c->name; c++) {
			int want = c->access == PLUGIN_ACCESS_ADMIN ? -EACCES : 0;

			snprintf(cmd, sizeof(cmd), "%s", c->name);
			if (access_check(&pol, &group, &req, &view, why, sizeof(why)) != want)
				fail_msg("%s %s: group %s", (*m)->name, c->name,
					 want ? "may run it" : why);
			assert_int_equal(access_command_kind((*m)->name, cmd),
					 kind_of(c->access));
			admin += c->access == PLUGIN_ACCESS_ADMIN;
		}
		snprintf(cmd, sizeof(cmd), "not-listed");
		assert_int_equal(access_check(&pol, &group, &req, &view, why, sizeof(why)),
				 -EACCES);
	}
	/* adb allow and accessory revert at least. */
	assert_true(admin >= 2);
	snprintf(cmd, sizeof(cmd), "stats");
	view.plugin = "no-such-plugin";
	assert_int_equal(access_check(&pol, &group, &req, &view, why, sizeof(why)), -EACCES);
}

/*
 * man/gadgetctl.1 has a paragraph for each declared command: a line after
 * ".TP" that names it in bold, as "\fBadb allow\fR", ".B adb keys" or,
 * for a command named on a placeholder (\fIKEYBOARD\fR \fBtype\fR),
 * "\fBtype\fR".
 */
static void test_man_commands(void **state)
{
	FILE *f = fopen(MAN1_FILE, "r");
	static char heads[32768];
	char line[1024];
	size_t used = 0;
	bool after_tp = false;
	const struct plugin_meta *const *m;
	const struct plugin_command *c;

	assert_non_null(f);
	/* Each head on a line of its own, from the first. */
	heads[0] = '\n';
	heads[1] = '\0';
	used = 1;
	while (fgets(line, sizeof(line), f)) {
		if (after_tp) {
			size_t len = strlen(line);

			assert_true(used + len + 1 < sizeof(heads));
			memcpy(heads + used, line, len + 1);
			used += len;
		}
		after_tp = !strncmp(line, ".TP", 3);
	}
	fclose(f);
	for (m = plugin_list_metas; *m; m++)
		for (c = (*m)->commands; c && c->name; c++) {
			char bold[160], both[160], dotb[160];

			snprintf(bold, sizeof(bold), "\\fB%s\\fR", c->name);
			snprintf(both, sizeof(both), "\\fB%s %s\\fR", (*m)->name, c->name);
			snprintf(dotb, sizeof(dotb), "\n.B %s %s\n", (*m)->name, c->name);
			if (!strstr(heads, bold) && !strstr(heads, both) &&
			    !strstr(heads, dotb))
				fail_msg("%s: no paragraph for the command %s %s", MAN1_FILE,
					 (*m)->name, c->name);
		}
}

/* The line of user in the sysusers.d file, or NULL; every "u" line
 * counted in *n_users. */
static char *sysusers_line(const char *user, unsigned *n_users)
{
	static char line[256];
	char *found = NULL, name[64];
	FILE *f = fopen(SYSUSERS_FILE, "r");

	if (!f)
		fail_msg("%s: %s (built by make all)", SYSUSERS_FILE, strerror(errno));
	*n_users = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (line[0] != 'u')
			continue;
		++*n_users;
		if (sscanf(line, "u %63s ", name) == 1 && !strcmp(name, user))
			found = line;
	}
	while (fgets(name, sizeof(name), f))
		*n_users += name[0] == 'u';
	fclose(f);
	return found;
}

/* Whether *m is the first plugin to run as user (ptp shares mtp's). */
static bool test_plugin_list_first_of(const struct plugin_meta *const *m,
				      const char *user)
{
	for (const struct plugin_meta *const *p = plugin_list_metas; p != m; p++)
		if (!strcmp(plugin_meta_user(*p), user))
			return false;
	return true;
}

static void test_sysusers(void **state)
{
	const struct plugin_meta *const *m;
	const char *gecos, *user;
	unsigned n, distinct = 1; /* the fallback */
	char want[160], *l;

	for (m = plugin_list_metas; *m; m++) {
		user = plugin_meta_user(*m);
		gecos = (*m)->user ? (*m)->user_gecos : PLUGIN_META_FALLBACK_GECOS;
		l = sysusers_line(user, &n);
		if (!l)
			fail_msg("%s: no line for %s (plugin %s)", SYSUSERS_FILE, user,
				 (*m)->name);
		snprintf(want, sizeof(want), "\"%s\"", gecos ? gecos : user);
		if (!strstr(l, want) || !strstr(l, " - ") ||
		    !strstr(l, "/nonexistent /usr/sbin/nologin\n"))
			fail_msg("%s: %s: want %s, - as uid, no home, nologin", SYSUSERS_FILE,
				 l, want);
		distinct += strcmp(user, PLUGIN_META_FALLBACK_USER) &&
			    plugin_list_find((*m)->name) == *m &&
			    test_plugin_list_first_of(m, user);
	}
	assert_non_null(sysusers_line(PLUGIN_META_FALLBACK_USER, &n));
	assert_int_equal(n, distinct);
}

/*
 * man/gadgetd.conf.5's "Plugin options": one ".TP\n.B PLUGIN" paragraph
 * per plugin with options, where every bold word (\fBname\fR,
 * \fBstorage\fIN\fB_path\fR) is one of its options.
 */
static void test_man_page(void **state)
{
	const struct plugin_meta *const *m;
	const struct optdesc *d;
	static char names[16384];
	char *l, *next;

	assert_int_equal(man_section_words(MAN5_FILE, "Plugin options", names,
					   sizeof(names)), 0);
	/* Each declared option documented under its plugin... */
	for (m = plugin_list_metas; *m; m++) {
		if ((*m)->options && (*m)->options->name &&
		    !man_section_has(names, (*m)->name, ""))
			fail_msg("%s: no paragraph for plugin %s", MAN5_FILE, (*m)->name);
		for (d = (*m)->options; d && d->name; d++)
			if (!man_section_has(names, (*m)->name, d->name))
				fail_msg("%s: option %s of plugin %s is not documented",
					 MAN5_FILE, d->name, (*m)->name);
	}
	/* ...and each documented one declared. */
	for (l = names; *l; l = next) {
		char plugin[64], opt[128];

		next = strchr(l, '\n') + 1;
		if (sscanf(l, "%63[^.].%127[^\n]", plugin, opt) != 2)
			continue;
		if (!plugin_list_find(plugin))
			fail_msg("%s: paragraph for plugin %s, which is not built", MAN5_FILE,
				 plugin);
		for (d = plugin_list_find(plugin)->options; d && d->name; d++)
			if (!strcmp(d->name, opt))
				break;
		if (!d || !d->name)
			fail_msg("%s: %s documents option %s, which it does not declare",
				 MAN5_FILE, plugin, opt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_options_checked),
		cmocka_unit_test(test_default_user),
		cmocka_unit_test(test_group_commands),
		cmocka_unit_test(test_man_commands),
		cmocka_unit_test(test_sysusers),
		cmocka_unit_test(test_man_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
