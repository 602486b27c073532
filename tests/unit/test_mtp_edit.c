/* mtp_edit alone, on a real store in a temporary folder: the edit
 * table, the write cursor, the bounds and the space checks. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "fake_statvfs.h"
#include "mtp/mtp_edit.h"
#include "mtp/mtp_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fx {
	char root[64];
	struct mtp_store *st;
	struct mtp_edit *e;
	uint32_t sid;
};

static void put(struct fx *f, const char *name, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->root, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static const char *slurp(struct fx *f, const char *name)
{
	static char buf[256];
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->root, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = 0;
	return buf;
}

static uint32_t handle(struct fx *f, const char *name)
{
	uint32_t h = mtp_store_lookup(f->st, f->sid, MTP_STORE_ROOT, name);

	assert_true(h != 0);
	return h;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/test_mtp_edit.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	put(f, "a.txt", "hello world");
	f->st = mtp_store_new("mtp");
	assert_int_equal(mtp_store_add(f->st, f->root, "T", false, &f->sid), 0);
	f->e = mtp_edit_new(f->st);
	assert_non_null(f->e);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	fake_statvfs_set(NULL, 0);
	mtp_edit_free(f->e);
	mtp_store_free(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* A write in several pieces goes where it was announced, piece after
 * piece; the count is what reached the file. */
static void test_write_pieces(void **state)
{
	struct fx *f = *state;
	uint32_t h = handle(f, "a.txt"), n = 99;

	assert_int_equal(mtp_edit_write(f->e, "x", 1), -EBADF);
	assert_int_equal(mtp_edit_write_begin(f->e, h, 0, 1), -EBADF);
	assert_int_equal(mtp_edit_begin(f->e, h), 0);
	assert_true(mtp_edit_active(f->e, h));
	assert_int_equal(mtp_edit_write_begin(f->e, h, 6, 8), 0);
	assert_int_equal(mtp_edit_write(f->e, "WOR", 3), 0);
	assert_int_equal(mtp_edit_write(f->e, "LD!!", 4), 0);
	/* One byte left: two is too many, and nothing of them is written. */
	assert_int_equal(mtp_edit_write(f->e, "??", 2), -EFBIG);
	assert_int_equal(mtp_edit_write(f->e, "?", 1), 0);
	assert_int_equal(mtp_edit_write_end(f->e, 0, &n), 0);
	assert_int_equal(n, 8);
	assert_string_equal(slurp(f, "a.txt"), "hello WORLD!!?");
	/* Fewer than announced: -EIO, and the count of what came. */
	assert_int_equal(mtp_edit_write_begin(f->e, h, 0, 5), 0);
	assert_int_equal(mtp_edit_write(f->e, "HE", 2), 0);
	assert_int_equal(mtp_edit_write_end(f->e, 0, &n), -EIO);
	assert_int_equal(n, 2);
	/* A cancelled one reports its own status. */
	assert_int_equal(mtp_edit_write_begin(f->e, h, 0, 5), 0);
	assert_int_equal(mtp_edit_write_end(f->e, -ECANCELED, &n), -ECANCELED);
	assert_int_equal(n, 0);
	/* The cursor is gone after the end. */
	assert_int_equal(mtp_edit_write(f->e, "x", 1), -EBADF);
	assert_int_equal(mtp_edit_end(f->e, h), 0);
	assert_false(mtp_edit_active(f->e, h));
	assert_int_equal(mtp_edit_end(f->e, h), -EBADF);
	assert_string_equal(slurp(f, "a.txt"), "HEllo WORLD!!?");
}

/* Offsets and sizes: up to the end, below 2^63. */
static void test_bounds(void **state)
{
	struct fx *f = *state;
	uint32_t h = handle(f, "a.txt"), n;

	assert_int_equal(mtp_edit_begin(f->e, h), 0);
	assert_int_equal(mtp_edit_begin(f->e, h), -EBUSY);
	assert_int_equal(mtp_edit_write_begin(f->e, h, 11, 3), 0);
	assert_int_equal(mtp_edit_write(f->e, "abc", 3), 0);
	assert_int_equal(mtp_edit_write_end(f->e, 0, &n), 0);
	assert_int_equal(mtp_edit_write_begin(f->e, h, 15, 1), -EINVAL);
	assert_int_equal(mtp_edit_write_begin(f->e, h, UINT64_MAX, 1), -EFBIG);
	assert_int_equal(mtp_edit_write_begin(f->e, h, INT64_MAX, 1), -EFBIG);
	assert_int_equal(
	    mtp_edit_write_begin(f->e, h, INT64_MAX - 10, 0xffffffff), -EFBIG);
	assert_int_equal(mtp_edit_truncate(f->e, h, (uint64_t)INT64_MAX + 1),
			 -EFBIG);
	assert_int_equal(mtp_edit_truncate(f->e, h, 5), 0);
	assert_string_equal(slurp(f, "a.txt"), "hello");
	assert_int_equal(mtp_edit_truncate(f->e, 0x7777, 5), -EBADF);
	/* A refused write_begin leaves no cursor behind. */
	assert_int_equal(mtp_edit_write(f->e, "x", 1), -EBADF);
}

/* At most MTP_EDIT_MAX edits; ending them all frees every slot. */
static void test_table(void **state)
{
	struct fx *f = *state;
	uint32_t h[MTP_EDIT_MAX + 1];
	char name[16];

	for (unsigned i = 0; i <= MTP_EDIT_MAX; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		put(f, name, "x");
		h[i] = handle(f, name);
	}
	for (unsigned i = 0; i < MTP_EDIT_MAX; i++)
		assert_int_equal(mtp_edit_begin(f->e, h[i]), 0);
	assert_int_equal(mtp_edit_begin(f->e, h[MTP_EDIT_MAX]), -EMFILE);
	assert_int_equal(mtp_edit_end(f->e, h[3]), 0);
	assert_int_equal(mtp_edit_begin(f->e, h[MTP_EDIT_MAX]), 0);
	mtp_edit_end_all(f->e);
	for (unsigned i = 0; i <= MTP_EDIT_MAX; i++)
		assert_false(mtp_edit_active(f->e, h[i]));
	assert_int_equal(mtp_edit_begin(f->e, 0), -ENOENT);
}

/* Growth must leave the reserve; checked again for each piece. */
static void test_space(void **state)
{
	struct fx *f = *state;
	uint32_t h = handle(f, "a.txt"), n;
	static char big[8192];
	uint64_t room;

	fake_statvfs_set(f->root, 1 << 20);
	assert_int_equal(mtp_store_set_reserve(f->st, f->sid, 512 << 10), 0);
	room = fake_statvfs_free() - (512 << 10);
	assert_int_equal(mtp_edit_begin(f->e, h), 0);
	assert_int_equal(mtp_edit_truncate(f->e, h, 11 + room + 1), -ENOSPC);
	assert_int_equal(mtp_edit_write_begin(f->e, h, 11, room + 1), -ENOSPC);
	/* Fits when announced; the board then takes the room. */
	assert_int_equal(mtp_edit_write_begin(f->e, h, 11, sizeof(big)), 0);
	put(f, "filler", "");
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/filler", f->root);
		assert_int_equal(truncate(path, room - 100), 0);
	}
	assert_int_equal(mtp_edit_write(f->e, big, sizeof(big)), -ENOSPC);
	assert_int_equal(mtp_edit_write_end(f->e, -ENOSPC, &n), -ENOSPC);
	assert_int_equal(n, 0);
	assert_string_equal(slurp(f, "a.txt"), "hello world");
	/* Overwriting takes no room. */
	assert_int_equal(mtp_edit_write_begin(f->e, h, 0, 5), 0);
	assert_int_equal(mtp_edit_write(f->e, "HELLO", 5), 0);
	assert_int_equal(mtp_edit_write_end(f->e, 0, &n), 0);
	assert_string_equal(slurp(f, "a.txt"), "HELLO world");
}

/* The storage goes mid-write: what came stays, the rest fails with
 * -ENODEV (Store_Not_Available), and the edit is closed. */
static void test_storage_gone(void **state)
{
	struct fx *f = *state;
	uint32_t h = handle(f, "a.txt"), n = 99;

	assert_int_equal(mtp_edit_begin(f->e, h), 0);
	assert_int_equal(mtp_edit_write_begin(f->e, h, 0, 5), 0);
	assert_int_equal(mtp_edit_write(f->e, "HE", 2), 0);
	mtp_edit_end_storage(f->e, f->sid + 1); /* another: nothing */
	assert_true(mtp_edit_active(f->e, h));
	mtp_edit_end_storage(f->e, f->sid);
	assert_false(mtp_edit_active(f->e, h));
	assert_int_equal(mtp_edit_write(f->e, "LLO", 3), -ENODEV);
	assert_int_equal(mtp_edit_write_end(f->e, -ENODEV, &n), -ENODEV);
	assert_int_equal(n, 0);
	assert_string_equal(slurp(f, "a.txt"), "HEllo world");
	/* The next write has no edit: the usual -EBADF. */
	assert_int_equal(mtp_edit_write(f->e, "x", 1), -EBADF);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_write_pieces),
	    T(test_bounds),
	    T(test_table),
	    T(test_space),
	    T(test_storage_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
