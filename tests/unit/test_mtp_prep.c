/* functions/mtp/mtp_prep.c alone, in a temporary folder: a storage made
 * like mkdir -p for the worker's user, existing parents untouched, links
 * and odd paths refused. As root the storage goes to nobody (65534). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mtp/mtp_prep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];
static uid_t uid;
static gid_t gid;

static int setup(void **state)
{
	snprintf(base, sizeof(base), "/tmp/test_mtp_prep.XXXXXX");
	assert_non_null(mkdtemp(base));
	uid = geteuid() ? geteuid() : 65534;
	gid = geteuid() ? getegid() : 65534;
	/* As under systemd's UMask=0077. */
	umask(077);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static char *at(const char *sub)
{
	static char path[4][256];
	static unsigned n;
	char *p = path[n++ % 4];

	snprintf(p, 256, "%s/%s", base, sub);
	return p;
}

static void assert_dir(const char *sub, unsigned mode, uid_t u, gid_t g)
{
	struct stat st;

	assert_int_equal(lstat(at(sub), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal(st.st_uid, u);
	assert_int_equal(st.st_gid, g);
}

static void test_made_like_mkdir_p(void **state)
{
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/media/mtp"), true, uid, gid), 0);
	assert_dir("srv", 0755, geteuid(), getegid());
	assert_dir("srv/media", 0755, geteuid(), getegid());
	assert_dir("srv/media/mtp", 0750, uid, gid);
	/* Again: it exists now and is adopted as it is. */
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/media/mtp"), true, uid, gid), 0);
	assert_dir("srv/media/mtp", 0750, uid, gid);
}

static void test_existing_parent_untouched(void **state)
{
	assert_int_equal(mkdir(at("srv"), 0700), 0);
	assert_int_equal(chmod(at("srv"), 0711), 0);
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv//mtp/"), true, uid, gid), 0);
	assert_dir("srv", 0711, geteuid(), getegid());
	assert_dir("srv/mtp", 0750, uid, gid);
}

/* Without the flag a missing storage is left for init to report. */
static void test_missing_without_create(void **state)
{
	struct stat st;

	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/mtp"), false, uid, gid), 0);
	assert_int_equal(lstat(at("srv"), &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* An existing storage is handed to the worker's user, closed to others. */
static void test_existing_adopted(void **state)
{
	assert_int_equal(mkdir(at("mtp"), 0700), 0);
	assert_int_equal(chmod(at("mtp"), 0775), 0);
	assert_int_equal(mtp_prep_storage("mtp", 0, at("mtp"), false, uid, gid),
			 0);
	assert_dir("mtp", 0770, uid, gid);
}

static void test_link_on_the_way_refused(void **state)
{
	struct stat st;

	assert_int_equal(mkdir(at("elsewhere"), 0700), 0);
	assert_int_equal(symlink(at("elsewhere"), at("srv")), 0);
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/mtp"), true, uid, gid), -ELOOP);
	assert_int_equal(lstat(at("elsewhere/mtp"), &st), -1);
	/* And a link as the storage itself. */
	assert_int_equal(symlink(at("elsewhere"), at("mtp")), 0);
	assert_int_equal(mtp_prep_storage("mtp", 0, at("mtp"), true, uid, gid),
			 -ELOOP);
	assert_dir("elsewhere", 0700, geteuid(), getegid());
}

/* Issue 21: an existing storage reached through a link on the way is
 * refused too, with or without create, and is neither chowned nor
 * chmodded. */
static void test_existing_behind_link_refused(void **state)
{
	assert_int_equal(mkdir(at("real"), 0700), 0);
	assert_int_equal(mkdir(at("real/mtp"), 0700), 0);
	assert_int_equal(chmod(at("real/mtp"), 0755), 0);
	assert_int_equal(symlink(at("real"), at("srv")), 0);
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/mtp"), false, uid, gid), -ELOOP);
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("srv/mtp"), true, uid, gid), -ELOOP);
	assert_dir("real/mtp", 0755, geteuid(), getegid());
	/* The real path is fine. */
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("real/mtp"), false, uid, gid), 0);
	assert_dir("real/mtp", 0750, uid, gid);
}

static void test_odd_paths_refused(void **state)
{
	char path[300];
	FILE *f;

	assert_int_equal(
	    mtp_prep_storage("mtp", 0, "relative/mtp", true, uid, gid),
	    -EINVAL);
	snprintf(path, sizeof(path), "%s/a/../mtp", base);
	assert_int_equal(mtp_prep_storage("mtp", 0, path, true, uid, gid),
			 -EINVAL);
	snprintf(path, sizeof(path), "%s/./mtp", base);
	assert_int_equal(mtp_prep_storage("mtp", 0, path, true, uid, gid),
			 -EINVAL);
	/* A file in the way. */
	f = fopen(at("file"), "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(
	    mtp_prep_storage("mtp", 0, at("file/mtp"), true, uid, gid),
	    -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_like_mkdir_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_parent_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_without_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_adopted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_on_the_way_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_behind_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_paths_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("mtp_prep", tests, NULL, NULL);
}
