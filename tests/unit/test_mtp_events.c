/* mtp_events: inotify changes in listed folders become MTP events, and
 * make the store's cached stat (mtp_walk.c) be made again. statx()
 * is wrapped to count the stats. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "mtp/mtp_events.h"
#include "mtp/mtp_proto.h"
#include "mtp/mtp_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	uint16_t code[16];
	uint32_t param[16];
	unsigned n;
} seen;

static void record(void *data, uint16_t code, uint32_t param)
{
	if (seen.n < 16) {
		seen.code[seen.n] = code;
		seen.param[seen.n] = param;
	}
	seen.n++;
}

static unsigned n_statx;

int __real_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx);
int __wrap_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx);
int __wrap_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx)
{
	n_statx++;
	return __real_statx(dfd, path, flags, mask, sx);
}

static void touch(const char *dir, const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

static void append(const char *dir, const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

static void test_events(void **state)
{
	char root[] = "/tmp/test_mtp_events.XXXXXX", p[256], cmd[128];
	struct mtp_events *e;
	struct mtp_store *s;
	struct mtp_upload *up;
	uint32_t id, h, *list = NULL;
	size_t n = 0;

	assert_non_null(mkdtemp(root));
	s = mtp_store_new("mtp");
	assert_int_equal(mtp_store_add(s, root, "r", false, &id), 0);
	e = mtp_events_new("mtp", NULL, s, record, NULL);
	assert_non_null(e);
	/* Nothing is watched before the host lists the folder. */
	touch(root, "early");
	mtp_events_dispatch(e);
	assert_int_equal(seen.n, 0);
	assert_int_equal(mtp_store_list(s, id, MTP_STORE_ROOT, &list, &n), 0);
	free(list);
	/* A new file made on the board. */
	touch(root, "board.txt");
	mtp_events_dispatch(e);
	h = mtp_store_handle(s, id, MTP_STORE_ROOT, "board.txt");
	assert_true(h != 0);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.code[0], MTP_EV_OBJECT_ADDED);
	assert_int_equal(seen.param[0], h);
	/* Rewritten: InfoChanged; removed: ObjectRemoved and forgotten. */
	touch(root, "board.txt");
	mtp_events_dispatch(e);
	assert_int_equal(seen.code[1], MTP_EV_OBJECT_INFO_CHANGED);
	snprintf(p, sizeof(p), "%s/board.txt", root);
	unlink(p);
	mtp_events_dispatch(e);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.code[2], MTP_EV_OBJECT_REMOVED);
	assert_int_equal(seen.param[2], h);
	assert_int_equal(mtp_store_handle(s, id, MTP_STORE_ROOT, "board.txt"),
			 0);
	/* What the host sends itself is not echoed back, neither a new
	 * file nor an overwrite (a placeholder, then a hidden temporary
	 * file renamed over it). */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mtp_store_upload_begin(s, id, MTP_STORE_ROOT,
							"host.bin", 1, &h, &up),
				 0);
		assert_int_equal(mtp_upload_write(up, "y", 1), 0);
		assert_int_equal(mtp_store_upload_commit(s, up), 0);
		mtp_events_dispatch(e);
		assert_int_equal(seen.n, 3);
	}
	assert_int_equal(mtp_store_delete(s, h), 0);
	mtp_events_dispatch(e);
	assert_int_equal(seen.n, 3);
	mtp_events_free(e);
	mtp_store_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static uint64_t size_of(struct mtp_store *s, uint32_t h)
{
	struct mtp_obj_stat st;

	assert_int_equal(mtp_store_stat(s, h, &st), 0);
	return st.size;
}

/* GetObjectInfo then GetObjectPropList of one object cost one stat; a
 * change on the board or of ours is seen at once all the same. */
static void test_stat_cache(void **state)
{
	char root[] = "/tmp/test_mtp_events.XXXXXX", cmd[128];
	struct mtp_events *e;
	struct mtp_store *s;
	struct mtp_obj_stat st;
	uint32_t id, h, g, *list = NULL;
	size_t n = 0;

	assert_non_null(mkdtemp(root));
	touch(root, "a.txt");
	touch(root, "b.txt");
	s = mtp_store_new("mtp");
	assert_int_equal(mtp_store_add(s, root, "r", false, &id), 0);
	e = mtp_events_new("mtp", NULL, s, record, NULL);
	assert_non_null(e);
	assert_int_equal(mtp_store_list(s, id, MTP_STORE_ROOT, &list, &n), 0);
	free(list);
	h = mtp_store_handle(s, id, MTP_STORE_ROOT, "a.txt");
	g = mtp_store_handle(s, id, MTP_STORE_ROOT, "b.txt");
	assert_true(h && g);
	n_statx = 0;
	assert_int_equal(size_of(s, h), 1);
	assert_int_equal(size_of(s, h), 1);
	assert_int_equal(size_of(s, h), 1);
	assert_int_equal(n_statx, 1);
	/* Another object needs its own stat. */
	assert_int_equal(size_of(s, g), 1);
	assert_int_equal(n_statx, 2);
	/* Rewritten on the board: the pending inotify record is enough,
	 * before the loop dispatches it. */
	append(root, "b.txt");
	append(root, "b.txt");
	assert_int_equal(size_of(s, g), 3);
	mtp_events_dispatch(e);
	assert_int_equal(size_of(s, g), 3);
	/* Removed on the board: gone at once. */
	snprintf(cmd, sizeof(cmd), "%s/b.txt", root);
	assert_int_equal(unlink(cmd), 0);
	assert_int_equal(mtp_store_stat(s, g, &st), -ENOENT);
	/* A change of ours: renamed, the name comes from the new entry. */
	assert_int_equal(size_of(s, h), 1);
	assert_int_equal(mtp_store_rename(s, h, "c.txt"), 0);
	assert_int_equal(mtp_store_stat(s, h, &st), 0);
	assert_string_equal(st.name, "c.txt");
	mtp_events_free(e);
	mtp_store_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_stat_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
