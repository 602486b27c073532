/* mtp_hotplug alone: the `storage` command's parsing, hostile arguments
 * included, and the reading of mountinfo. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "mtp/mtp_hotplug.h"

#include <errno.h>
#include <string.h>

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char **argv, const char *under,
		 struct mtp_hotplug_req *r, char *why)
{
	return mtp_hotplug_parse(argc, argv, under, r, why, 256);
}

static void test_parse_add(void **state)
{
	struct mtp_hotplug_req r;
	char why[256];
	char *a1[] = {"storage", "add", "/media/card"};
	char *a2[] = {"storage", "add", "--ro", "/srv/x", "--name", "My card"};
	char *a3[] = {"storage", "add", "/srv/x/y", "--ro"};

	assert_int_equal(parse(ARGC(a1), a1, NULL, &r, why), 0);
	assert_int_equal(r.verb, MTP_HOTPLUG_ADD);
	assert_string_equal(r.path, "/media/card");
	assert_string_equal(r.name, "card"); /* the last component */
	assert_false(r.readonly);
	assert_int_equal(parse(ARGC(a2), a2, "/srv", &r, why), 0);
	assert_string_equal(r.path, "/srv/x");
	assert_string_equal(r.name, "My card");
	assert_true(r.readonly);
	assert_int_equal(parse(ARGC(a3), a3, "/srv/x", &r, why), 0);
	assert_true(r.readonly);
	assert_string_equal(r.name, "y");
}

static void test_parse_add_refusals(void **state)
{
	struct mtp_hotplug_req r;
	char why[256], longname[200];
	char *none[] = {"storage", "add"};
	char *rel[] = {"storage", "add", "media/card"};
	char *dots[] = {"storage", "add", "/srv/../etc"};
	char *dot[] = {"storage", "add", "/srv/./x"};
	char *slash2[] = {"storage", "add", "/srv//x"};
	char *trail[] = {"storage", "add", "/srv/x/"};
	char *root[] = {"storage", "add", "/"};
	char *two[] = {"storage", "add", "/a", "/b"};
	char *flag[] = {"storage", "add", "/a", "--rw"};
	char *noname[] = {"storage", "add", "/a", "--name"};
	char *empty[] = {"storage", "add", "/a", "--name", ""};
	char *ctl[] = {"storage", "add", "/a", "--name", "a\nb"};
	char *lng[] = {"storage", "add", "/a", "--name", longname};
	char *out[] = {"storage", "add", "/srvx"};
	char *out2[] = {"storage", "add", "/srv"};

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(parse(ARGC(none), none, NULL, &r, why), -EINVAL);
	assert_non_null(strstr(why, "no PATH"));
	assert_int_equal(parse(ARGC(rel), rel, NULL, &r, why), -EINVAL);
	assert_non_null(strstr(why, "absolute"));
	assert_int_equal(parse(ARGC(dots), dots, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(dots), dots, "/srv", &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(dot), dot, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(slash2), slash2, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(trail), trail, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(root), root, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(two), two, NULL, &r, why), -EINVAL);
	assert_non_null(strstr(why, "\"/b\""));
	assert_int_equal(parse(ARGC(flag), flag, NULL, &r, why), -EINVAL);
	assert_non_null(strstr(why, "--rw"));
	assert_int_equal(parse(ARGC(noname), noname, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(empty), empty, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(ctl), ctl, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(lng), lng, NULL, &r, why), -EINVAL);
	/* storage_add_under: below it, and a name that only starts alike
	 * or the folder itself is not below. */
	assert_int_equal(parse(ARGC(out), out, "/srv", &r, why), -EINVAL);
	assert_non_null(strstr(why, "storage_add_under"));
	assert_int_equal(parse(ARGC(out2), out2, "/srv", &r, why), -EINVAL);
}

static void test_parse_other_verbs(void **state)
{
	struct mtp_hotplug_req r;
	char why[256];
	char *rm[] = {"storage", "remove", "Card"};
	char *rm0[] = {"storage", "remove"};
	char *rm2[] = {"storage", "remove", "a", "b"};
	char *rme[] = {"storage", "remove", ""};
	char *ls[] = {"storage", "list"};
	char *ls2[] = {"storage", "list", "x"};
	char *help[] = {"storage", "--help"};
	char *bare[] = {"storage"};
	char *what[] = {"storage", "eject", "x"};

	assert_int_equal(parse(ARGC(rm), rm, NULL, &r, why), 0);
	assert_int_equal(r.verb, MTP_HOTPLUG_REMOVE);
	assert_string_equal(r.name, "Card");
	assert_int_equal(parse(ARGC(rm0), rm0, NULL, &r, why), -EINVAL);
	assert_non_null(strstr(why, "usage"));
	assert_int_equal(parse(ARGC(rm2), rm2, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(rme), rme, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(ls), ls, NULL, &r, why), 0);
	assert_int_equal(r.verb, MTP_HOTPLUG_LIST);
	assert_int_equal(parse(ARGC(ls2), ls2, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(help), help, NULL, &r, why), 0);
	assert_int_equal(r.verb, MTP_HOTPLUG_HELP);
	assert_int_equal(parse(ARGC(bare), bare, NULL, &r, why), -EINVAL);
	assert_int_equal(parse(ARGC(what), what, NULL, &r, why), -EINVAL);
}

static void test_path_ok(void **state)
{
	assert_true(mtp_hotplug_path_ok("/srv"));
	assert_true(mtp_hotplug_path_ok("/media/a b/.card"));
	assert_false(mtp_hotplug_path_ok(""));
	assert_false(mtp_hotplug_path_ok("/"));
	assert_false(mtp_hotplug_path_ok("srv"));
	assert_false(mtp_hotplug_path_ok("/srv/.."));
	assert_false(mtp_hotplug_path_ok("/srv/"));
}

static const char mountinfo[] =
    "22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw\n"
    "40 22 0:35 / /media/my\\040card rw shared:20 - tmpfs card rw\n"
    "41 22 0:36 / /media/card2 rw shared:21 - tmpfs x rw\n"
    "42 22 0:37 /sub /srv/bind\\134x rw - ext4 /dev/sda1 rw\n"
    "43 22 0:38 / /srv/last rw - tmpfs t rw";

static void test_mounted(void **state)
{
	size_t n = sizeof(mountinfo) - 1;

	assert_true(mtp_hotplug_mounted(mountinfo, n, "/"));
	assert_true(mtp_hotplug_mounted(mountinfo, n, "/media/my card"));
	assert_true(mtp_hotplug_mounted(mountinfo, n, "/media/card2"));
	assert_true(mtp_hotplug_mounted(mountinfo, n, "/srv/bind\\x"));
	/* The last line needs no newline. */
	assert_true(mtp_hotplug_mounted(mountinfo, n, "/srv/last"));
	/* Not a prefix, not the root field, not the escaped text. */
	assert_false(mtp_hotplug_mounted(mountinfo, n, "/media/card"));
	assert_false(mtp_hotplug_mounted(mountinfo, n, "/media"));
	assert_false(mtp_hotplug_mounted(mountinfo, n, "/sub"));
	assert_false(mtp_hotplug_mounted(mountinfo, n, "/media/my\\040card"));
	assert_false(mtp_hotplug_mounted(mountinfo, n, "/srv/bind"));
}

static void test_mounted_hostile(void **state)
{
	static const char cut[] = "40 22 0:35 / /media/card";
	static const char short_line[] = "40 22\n\n\n 0:35\n";
	static const char bad_esc[] = "1 2 3 / /a\\9 rw\n1 2 3 / /b\\04 rw";
	char huge[9000];

	/* A line cut in its mount point still names it. */
	assert_true(mtp_hotplug_mounted(cut, sizeof(cut) - 1, "/media/card"));
	/* Cut before the mount point: no match. */
	assert_false(mtp_hotplug_mounted(cut, 12, "/media/card"));
	assert_false(mtp_hotplug_mounted(short_line, sizeof(short_line) - 1,
					 "0:35"));
	assert_false(mtp_hotplug_mounted("", 0, "/"));
	/* A backslash not followed by three octal digits is itself. */
	assert_true(mtp_hotplug_mounted(bad_esc, sizeof(bad_esc) - 1, "/a\\9"));
	assert_true(mtp_hotplug_mounted(bad_esc, sizeof(bad_esc) - 1, "/b\\04"));
	/* A field longer than any path is skipped, not overrun. */
	memset(huge, 'x', sizeof(huge));
	memcpy(huge, "1 2 3 / /", 9);
	assert_false(mtp_hotplug_mounted(huge, sizeof(huge), "/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_add),
	    cmocka_unit_test(test_parse_add_refusals),
	    cmocka_unit_test(test_parse_other_verbs),
	    cmocka_unit_test(test_path_ok),
	    cmocka_unit_test(test_mounted),
	    cmocka_unit_test(test_mounted_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
