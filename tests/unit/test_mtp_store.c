/* mtp_store: handles, listing, confinement to the storage root. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "fake_statvfs.h"
#include "mtp/mtp_fs.h"
#include "mtp/mtp_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char root[64]; /* a temporary folder holding everything */
	char s0[96];   /* storage 0 (read-write) */
	char s1[96];   /* storage 1 (read-only) */
	struct mtp_store *st;
	uint32_t id0, id1;
};

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char p[256];

	strcpy(f->root, "/tmp/test_mtp_store.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	snprintf(f->s0, sizeof(f->s0), "%s/s0", f->root);
	snprintf(f->s1, sizeof(f->s1), "%s/s1", f->root);
	mkdir(f->s0, 0755);
	mkdir(f->s1, 0755);
	snprintf(p, sizeof(p), "%s/dir", f->s0);
	mkdir(p, 0755);
	put(f->s0, "a.txt", "hello");
	put(p, "inner.txt", "inner");
	put(f->root, "secret", "outside");
	put(f->s1, "ro.txt", "ro");
	/* Links that would lead out of the storage. */
	snprintf(p, sizeof(p), "%s/esc", f->s0);
	assert_int_equal(symlink(f->root, p), 0);
	snprintf(p, sizeof(p), "%s/lnk", f->s0);
	assert_int_equal(symlink("../secret", p), 0);
	f->st = mtp_store_new("mtp");
	assert_int_equal(mtp_store_add(f->st, f->s0, "Main", false, &f->id0),
			 0);
	assert_int_equal(mtp_store_add(f->st, f->s1, "RO", true, &f->id1), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	mtp_store_free(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The handle of name among the objects under parent, 0 if not listed. */
static uint32_t find(struct fixture *f, uint32_t sid, uint32_t parent,
		     const char *name)
{
	uint32_t *h = NULL, found = 0;
	size_t n = 0;

	assert_int_equal(mtp_store_list(f->st, sid, parent, &h, &n), 0);
	for (size_t i = 0; i < n; i++) {
		struct mtp_obj_stat st;

		assert_int_equal(mtp_store_stat(f->st, h[i], &st), 0);
		if (!strcmp(st.name, name))
			found = h[i];
	}
	free(h);
	return found;
}

/* Send a whole file through an upload; the handle or 0 and rc. */
static int upload(struct fixture *f, uint32_t sid, uint32_t parent,
		  const char *name, const char *data, uint32_t *h)
{
	struct mtp_upload *up;
	size_t n = strlen(data);
	int rc = mtp_store_upload_begin(f->st, sid, parent, name, n, h, &up);

	if (rc < 0)
		return rc;
	rc = mtp_upload_write(up, data, n);
	if (rc < 0) {
		mtp_store_upload_abort(f->st, up, false);
		return rc;
	}
	return mtp_store_upload_commit(f->st, up);
}

/* The content of dir/name, "" when missing. */
static const char *slurp(const char *dir, const char *name)
{
	static char buf[256];
	char path[256];
	FILE *fp;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf[0] = 0;
	fp = fopen(path, "r");
	if (fp) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
	}
	buf[n] = 0;
	return buf;
}

/* How many temporary upload files dir holds. */
static unsigned tmp_files(const char *dir)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		n += mtp_fs_is_tmp(de->d_name);
	closedir(d);
	return n;
}

static void test_add_missing(void **state)
{
	struct mtp_store *s = mtp_store_new("mtp");
	uint32_t id;

	assert_int_equal(mtp_store_add(s, "/nonexistent/x", "x", false, &id),
			 -ENOENT);
	assert_int_equal(mtp_store_count(s), 0);
	mtp_store_free(s);
}

/* Issue 21: the root is opened following no link, not even on the way
 * to it. */
static void test_add_through_link(void **state)
{
	struct fixture *f = *state;
	char p[256], q[256];
	uint32_t id;

	snprintf(p, sizeof(p), "%s/via", f->root);
	assert_int_equal(symlink(f->root, p), 0);
	snprintf(q, sizeof(q), "%s/via/s0", f->root);
	assert_int_equal(mtp_store_add(f->st, q, "Via", false, &id), -ELOOP);
	assert_int_equal(mtp_store_add(f->st, p, "Link", false, &id), -ELOOP);
	assert_int_equal(mtp_store_count(f->st), 2);
}

static void test_ids_and_stat(void **state)
{
	struct fixture *f = *state;
	struct mtp_storage_stat st;

	assert_int_equal(f->id0, 0x00010001);
	assert_int_equal(f->id1, 0x00020001);
	assert_int_equal(mtp_store_count(f->st), 2);
	assert_int_equal(mtp_store_storage_stat(f->st, f->id1, &st), 0);
	assert_true(st.readonly);
	assert_string_equal(st.description, "RO");
	assert_int_equal(mtp_store_storage_stat(f->st, 0x30001, &st), -ENOENT);
}

static void test_list_skips_links(void **state)
{
	struct fixture *f = *state;
	uint32_t *h = NULL;
	size_t n = 0;

	assert_int_equal(mtp_store_list(f->st, f->id0, MTP_STORE_ROOT, &h, &n),
			 0);
	assert_int_equal(n, 2); /* a.txt and dir; not esc nor lnk */
	free(h);
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "esc"), 0);
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "lnk"), 0);
	assert_int_equal(mtp_store_lookup(f->st, f->id0, MTP_STORE_ROOT, "esc"),
			 0);
}

static void test_handles_stable(void **state)
{
	struct fixture *f = *state;
	uint32_t a = find(f, f->id0, MTP_STORE_ROOT, "a.txt");
	uint32_t d = find(f, f->id0, MTP_STORE_ROOT, "dir");
	struct mtp_obj_stat st;

	assert_true(a && d && a != d);
	/* Listing again gives the same handles. */
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "a.txt"), a);
	assert_int_equal(mtp_store_stat(f->st, a, &st), 0);
	assert_int_equal(st.size, 5);
	assert_false(st.dir);
	assert_int_equal(st.parent, MTP_STORE_ROOT);
	assert_int_equal(mtp_store_stat(f->st, d, &st), 0);
	assert_true(st.dir);
	/* A child lists under its folder. */
	assert_true(find(f, f->id0, d, "inner.txt") != 0);
	/* Unknown handles. */
	assert_int_equal(mtp_store_stat(f->st, 0, &st), -ENOENT);
	assert_int_equal(mtp_store_stat(f->st, 9999, &st), -ENOENT);
}

static void test_list_errors(void **state)
{
	struct fixture *f = *state;
	uint32_t a = find(f, f->id0, MTP_STORE_ROOT, "a.txt");
	uint32_t *h = NULL;
	size_t n = 0;

	assert_int_equal(mtp_store_list(f->st, 0x70001, MTP_STORE_ROOT, &h, &n),
			 -ENOENT);
	assert_int_equal(mtp_store_list(f->st, f->id0, a, &h, &n), -ENOTDIR);
	assert_int_equal(mtp_store_list(f->st, f->id0, 4242, &h, &n), -ENOENT);
	free(h);
}

static void test_names(void **state)
{
	char longname[300];

	assert_true(mtp_store_name_ok("a"));
	assert_true(mtp_store_name_ok("..."));
	assert_false(mtp_store_name_ok(""));
	assert_false(mtp_store_name_ok("."));
	assert_false(mtp_store_name_ok(".."));
	assert_false(mtp_store_name_ok("a/b"));
	assert_false(mtp_store_name_ok("/etc"));
	memset(longname, 'x', 254);
	longname[254] = 0;
	assert_false(mtp_store_name_ok(longname));
}

static void test_create_refusals(void **state)
{
	struct fixture *f = *state;
	uint32_t h;
	int fd = -1;
	char p[256], q[256];

	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "..", &h), -EINVAL);
	assert_int_equal(upload(f, f->id0, MTP_STORE_ROOT, "../x", "x", &h),
			 -EINVAL);
	assert_int_equal(
	    upload(f, f->id0, MTP_STORE_ROOT, ".gadgetd-mtp-1-1", "x", &h),
	    -EINVAL);
	assert_int_equal(upload(f, f->id1, MTP_STORE_ROOT, "new", "x", &h),
			 -EROFS);
	/* A symlink planted under the name is neither written through nor
	 * replaced, and no folder is made over it or over a file. */
	assert_int_equal(upload(f, f->id0, MTP_STORE_ROOT, "lnk", "x", &h),
			 -EACCES);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	snprintf(p, sizeof(p), "%s/lnk", f->s0);
	assert_int_equal(readlink(p, q, sizeof(q)), 9);
	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "lnk", &h), -EEXIST);
	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "a.txt", &h),
	    -EEXIST);
	/* A file cannot replace a folder. */
	assert_int_equal(upload(f, f->id0, MTP_STORE_ROOT, "dir", "x", &h),
			 -EEXIST);
	assert_int_equal(fd, -1);
	assert_int_equal(tmp_files(f->s0), 0);
}

static void test_create_write_delete(void **state)
{
	struct fixture *f = *state;
	struct mtp_obj_stat st;
	uint32_t d, h, h2;
	int fd = -1;
	char p[256];

	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "nd", &d), 0);
	assert_int_equal(upload(f, f->id0, d, "f.bin", "12345678", &h), 0);
	assert_int_equal(mtp_store_stat(f->st, h, &st), 0);
	assert_int_equal(st.size, 8);
	assert_int_equal(st.parent, d);
	/* Reading back through the store. */
	assert_int_equal(mtp_store_open(f->st, h, O_RDONLY, &fd), 0);
	close(fd);
	assert_int_equal(mtp_store_open(f->st, d, O_RDONLY, &fd), -EISDIR);
	assert_int_equal(mtp_store_open(f->st, h, O_WRONLY, &fd), -EINVAL);
	/* Rename keeps the handle, refuses bad names and overwriting. */
	assert_int_equal(mtp_store_rename(f->st, h, "g.bin"), 0);
	assert_int_equal(mtp_store_stat(f->st, h, &st), 0);
	assert_string_equal(st.name, "g.bin");
	assert_int_equal(mtp_store_rename(f->st, h, "../g.bin"), -EINVAL);
	assert_int_equal(upload(f, f->id0, d, "other", "", &h2), 0);
	assert_int_equal(mtp_store_rename(f->st, h2, "g.bin"), -EEXIST);
	/* Move to the root and back, but never into itself. */
	assert_int_equal(mtp_store_move(f->st, h, f->id0, MTP_STORE_ROOT), 0);
	snprintf(p, sizeof(p), "%s/g.bin", f->s0);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(mtp_store_move(f->st, d, f->id0, d), -EINVAL);
	assert_int_equal(mtp_store_move(f->st, h, f->id1, MTP_STORE_ROOT),
			 -EROFS);
	assert_int_equal(mtp_store_move(f->st, h, 0x50001, MTP_STORE_ROOT),
			 -ENOENT);
	/* Copy a folder tree. */
	assert_int_equal(mtp_store_copy(f->st, d, f->id0, MTP_STORE_ROOT, &h2),
			 -EEXIST);
	assert_int_equal(mtp_store_copy(f->st, h, f->id0, d, &h2), 0);
	assert_int_equal(mtp_store_stat(f->st, h2, &st), 0);
	assert_int_equal(st.size, 8);
	/* Delete the folder recursively: its children go with it, and so
	 * do their handles, however deep. */
	uint32_t sub, leaf;
	assert_int_equal(mtp_store_mkdir(f->st, f->id0, d, "sub", &sub), 0);
	assert_int_equal(upload(f, f->id0, sub, "leaf", "", &leaf), 0);
	assert_int_equal(mtp_store_delete(f->st, d), 0);
	assert_int_equal(mtp_store_handle(f->st, f->id0, d, "sub"), 0);
	assert_int_equal(mtp_store_handle(f->st, f->id0, sub, "leaf"), 0);
	snprintf(p, sizeof(p), "%s/nd", f->s0);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(mtp_store_stat(f->st, d, &st), -ENOENT);
	assert_int_equal(mtp_store_stat(f->st, h2, &st), -ENOENT);
	/* The read-only storage refuses. */
	h = find(f, f->id1, MTP_STORE_ROOT, "ro.txt");
	assert_int_equal(mtp_store_delete(f->st, h), -EROFS);
	assert_int_equal(mtp_store_rename(f->st, h, "x"), -EROFS);
}

/* Move "dir" to "moved" and put in its place a link to the outside that
 * holds an inner.txt of its own. p and q get the two paths. */
static void swap_dir_for_link(struct fixture *f, char p[256], char q[256])
{
	snprintf(p, 256, "%s/dir", f->s0);
	snprintf(q, 256, "%s/moved", f->s0);
	assert_int_equal(rename(p, q), 0);
	put(f->root, "inner.txt", "outside");
	assert_int_equal(symlink(f->root, p), 0);
}

static void test_folder_swapped_for_link(void **state)
{
	struct fixture *f = *state;
	uint32_t d = find(f, f->id0, MTP_STORE_ROOT, "dir");
	uint32_t in = find(f, f->id0, d, "inner.txt");
	struct mtp_obj_stat st;
	char p[256], q[256];
	int fd;

	/* After listing, the folder is replaced by a link to the outside
	 * holding a file of the same name: the old handle must not reach it. */
	swap_dir_for_link(f, p, q);
	assert_int_equal(mtp_store_stat(f->st, in, &st), -ENOENT);
	assert_int_equal(mtp_store_open(f->st, in, O_RDONLY, &fd), -ENOENT);
}

static bool quiet;
static unsigned quiet_calls;

static bool is_quiet(void *data)
{
	(void)data;
	quiet_calls++;
	return quiet;
}

/* The folder cache serves only while inotify has nothing waiting. */
static void test_folder_cache(void **state)
{
	struct fixture *f = *state;
	uint32_t d = find(f, f->id0, MTP_STORE_ROOT, "dir");
	uint32_t in = find(f, f->id0, d, "inner.txt");
	struct mtp_obj_stat st;
	char p[256], q[256];

	mtp_store_set_quiet_fn(f->st, is_quiet, NULL);
	quiet = true;
	quiet_calls = 0;
	assert_int_equal(mtp_store_stat(f->st, in, &st), 0);
	assert_int_equal(quiet_calls, 0); /* walked: nothing to ask yet */
	swap_dir_for_link(f, p, q);
	/* Had inotify nothing to say, the open folder would serve... */
	assert_int_equal(mtp_store_stat(f->st, in, &st), 0);
	assert_int_equal(quiet_calls, 1);
	assert_int_equal(st.size, 5); /* "inner" is moved/inner.txt */
	/* ...but the rename is waiting in its queue: walk again, and
	 * forget the folder for good. */
	quiet = false;
	assert_int_equal(mtp_store_stat(f->st, in, &st), -ENOENT);
	quiet = true;
	assert_int_equal(mtp_store_stat(f->st, in, &st), -ENOENT);
	/* Back in place: cached again; an inotify batch or a change of
	 * ours drops it. */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(mtp_store_stat(f->st, in, &st), 0);
	assert_int_equal(rename(p, q), 0);
	mtp_store_changed(f->st);
	assert_int_equal(mtp_store_stat(f->st, in, &st), -ENOENT);
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(mtp_store_stat(f->st, in, &st), 0);
	assert_int_equal(mtp_store_delete(f->st, in), 0);
	assert_int_equal(mtp_store_stat(f->st, in, &st), -ENOENT);
	mtp_store_set_quiet_fn(f->st, NULL, NULL);
}

static void test_lookup_and_forget(void **state)
{
	struct fixture *f = *state;
	uint32_t h;

	put(f->s0, "late.txt", "x");
	assert_int_equal(
	    mtp_store_handle(f->st, f->id0, MTP_STORE_ROOT, "late.txt"), 0);
	h = mtp_store_lookup(f->st, f->id0, MTP_STORE_ROOT, "late.txt");
	assert_true(h != 0);
	assert_int_equal(
	    mtp_store_handle(f->st, f->id0, MTP_STORE_ROOT, "late.txt"), h);
	mtp_store_handle_forget(f->st, h);
	assert_int_equal(
	    mtp_store_handle(f->st, f->id0, MTP_STORE_ROOT, "late.txt"), 0);
	assert_int_equal(
	    mtp_store_lookup(f->st, f->id0, MTP_STORE_ROOT, "nope"), 0);
}

static void test_many(void **state)
{
	struct fixture *f = *state;
	uint32_t *h = NULL, d;
	size_t n = 0;
	char p[256];
	int fd;

	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "many", &d), 0);
	for (int i = 0; i < 3000; i++) {
		snprintf(p, sizeof(p), "%s/many/f%d", f->s0, i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		close(fd);
	}
	assert_int_equal(mtp_store_list(f->st, f->id0, d, &h, &n), 0);
	assert_int_equal(n, 3000);
	/* All distinct, and stable the second time. */
	for (size_t i = 1; i < n; i++)
		assert_true(h[i] != h[i - 1]);
	free(h);
	h = NULL;
	n = 0;
	assert_int_equal(mtp_store_list(f->st, f->id0, d, &h, &n), 0);
	assert_int_equal(n, 3000);
	assert_true(h[2999] < 3100);
	free(h);
}

/* Issue 21: deleted objects' slots are reused, so create/delete cycles
 * never exhaust the table (here 16 slots, 20000 cycles); a deleted
 * handle stays dead meanwhile and is never handed out again before its
 * slot went round its 2048 generations. */
static void test_handle_reuse(void **state)
{
	struct fixture *f = *state;
	struct mtp_obj_stat st;
	uint32_t stale, h, last = 0;
	unsigned back = 0;

	/* 4 slots, 2 in quarantine: the stale handle's slot comes back
	 * every 3 cycles, and its generation (11 bits) wraps after 2048
	 * uses: in cycle 6143, no earlier. (16 slots took 18 423 cycles, 50
	 * s of the arm64 bed's time.) */
	mtp_store_set_max_objs(f->st, 4);
	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "d",
					 &stale),
			 0);
	assert_int_equal(mtp_store_delete(f->st, stale), 0);
	for (unsigned i = 0; i < 6500; i++) {
		int rc = mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "d", &h);

		if (rc != 0)
			fail_msg("cycle %u: mkdir: %s", i, strerror(-rc));
		assert_true(h != 0 && h != 0xFFFFFFFFu && h != last);
		if (i < 6000) {
			assert_true(h != stale);
			assert_int_equal(mtp_store_stat(f->st, stale, &st),
					 -ENOENT);
		}
		back += h == stale;
		assert_int_equal(mtp_store_stat(f->st, h, &st), 0);
		assert_string_equal(st.name, "d");
		assert_int_equal(mtp_store_delete(f->st, h), 0);
		assert_int_equal(mtp_store_stat(f->st, h, &st), -ENOENT);
		last = h;
	}
	/* Once the generations went round, the slot's handle is the old one
	 * again: the wrap is what the quarantine holds off. */
	assert_true(back >= 1);
	/* Children of deleted folders go too, and their slots come back. */
	for (unsigned i = 0; i < 1000; i++) {
		uint32_t d, c;

		assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT,
						 "t", &d),
				 0);
		assert_int_equal(mtp_store_mkdir(f->st, f->id0, d, "c", &c), 0);
		assert_int_equal(mtp_store_delete(f->st, d), 0);
		assert_int_equal(mtp_store_stat(f->st, c, &st), -ENOENT);
	}
}

/* Half an overwrite, a refused excess, a short one, a cancel: the old
 * content stays each time; a complete one replaces it, same handle. */
static void test_overwrite_keeps_old(void **state)
{
	struct fixture *f = *state;
	uint32_t a = find(f, f->id0, MTP_STORE_ROOT, "a.txt"), h, *list = NULL;
	struct mtp_upload *up;
	struct mtp_obj_stat st;
	struct stat sb;
	size_t n = 0;
	char p[256];

	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"a.txt", 10, &h, &up),
			 0);
	assert_int_equal(h, a);
	assert_int_equal(mtp_upload_write(up, "HELLO", 5), 0);
	assert_string_equal(slurp(f->s0, "a.txt"), "hello");
	/* The temporary file is there, but not for the host to see. */
	assert_int_equal(tmp_files(f->s0), 1);
	assert_int_equal(
	    mtp_store_list(f->st, f->id0, MTP_STORE_ROOT, &list, &n), 0);
	assert_int_equal(n, 2);
	free(list);
	assert_int_equal(mtp_upload_write(up, "0123456789", 10), -EFBIG);
	mtp_store_upload_abort(f->st, up, false);
	assert_string_equal(slurp(f->s0, "a.txt"), "hello");
	assert_int_equal(tmp_files(f->s0), 0);
	assert_int_equal(mtp_store_stat(f->st, a, &st), 0);
	/* Fewer bytes than announced: the commit fails. */
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"a.txt", 10, &h, &up),
			 0);
	assert_int_equal(mtp_upload_write(up, "HELLO", 5), 0);
	assert_int_equal(mtp_store_upload_commit(f->st, up), -EIO);
	assert_string_equal(slurp(f->s0, "a.txt"), "hello");
	assert_int_equal(tmp_files(f->s0), 0);
	/* Complete, keeping the old file's permissions. */
	snprintf(p, sizeof(p), "%s/a.txt", f->s0);
	assert_int_equal(chmod(p, 0604), 0);
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"a.txt", 10, &h, &up),
			 0);
	assert_int_equal(mtp_upload_write(up, "HELLO", 5), 0);
	assert_int_equal(mtp_upload_write(up, "WORLD", 5), 0);
	assert_int_equal(mtp_store_upload_commit(f->st, up), 0);
	assert_string_equal(slurp(f->s0, "a.txt"), "HELLOWORLD");
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0604);
	assert_int_equal(mtp_store_stat(f->st, a, &st), 0);
	assert_int_equal(st.size, 10);
	assert_int_equal(tmp_files(f->s0), 0);
	/* A new name gets an empty placeholder at once; a failed upload
	 * removes it and its handle, an abandoned one may keep it. */
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"new.bin", 3, &h, &up),
			 0);
	assert_int_equal(mtp_store_stat(f->st, h, &st), 0);
	assert_int_equal(st.size, 0);
	assert_int_equal(mtp_upload_write(up, "ab", 2), 0);
	mtp_store_upload_abort(f->st, up, false);
	assert_string_equal(slurp(f->s0, "new.bin"), "");
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "new.bin"), 0);
	assert_int_equal(mtp_store_stat(f->st, h, &st), -ENOENT);
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"new.bin", 0, &h, &up),
			 0);
	mtp_store_upload_abort(f->st, up, true);
	assert_int_equal(mtp_store_stat(f->st, h, &st), 0);
	assert_int_equal(tmp_files(f->s0), 0);
}

/* Far from full, an upload looks at the free space once per
 * MTP_UPLOAD_SPACE_LOOK written, not before every write; a board that
 * fills the disk meanwhile is still seen within that many bytes. */
static void test_space_looks(void **state)
{
	struct fixture *f = *state;
	struct mtp_upload *up;
	static char chunk[64 << 10];
	unsigned looks, i;
	uint32_t h;
	char p[256];
	int fd, rc = 0;

	fake_statvfs_set(f->s0, 64 << 20);
	assert_int_equal(mtp_store_set_reserve(f->st, f->id0, 256 << 10), 0);
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"big", 8 << 20, &h, &up),
			 0);
	looks = fake_statvfs_looks();
	for (i = 0; i < 64; i++)
		assert_int_equal(mtp_upload_write(up, chunk, sizeof(chunk)), 0);
	/* 4 MiB written: one look per MiB. */
	assert_int_equal(fake_statvfs_looks() - looks,
			 (4 << 20) / MTP_UPLOAD_SPACE_LOOK);
	/* The board leaves 128 KiB, less than the reserve. */
	snprintf(p, sizeof(p), "%s/dir/filler", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, fake_statvfs_free() - (128 << 10)), 0);
	close(fd);
	for (i = 0; rc == 0 && i <= MTP_UPLOAD_SPACE_LOOK / sizeof(chunk); i++)
		rc = mtp_upload_write(up, chunk, sizeof(chunk));
	assert_int_equal(rc, -ENOSPC);
	mtp_store_upload_abort(f->st, up, false);
	assert_int_equal(tmp_files(f->s0), 0);
	assert_int_equal(unlink(p), 0);
	fake_statvfs_set(NULL, 0);
}

/* A 1 MiB disk with a 256 KiB reserve. */
static void test_space_and_reserve(void **state)
{
	struct fixture *f = *state;
	struct mtp_storage_stat ss;
	struct mtp_upload *up;
	static char chunk[64 << 10];
	uint32_t h, big, c;
	char p[256];
	int fd;

	fake_statvfs_set(f->s0, 1 << 20);
	assert_int_equal(mtp_store_set_reserve(f->st, f->id0, 256 << 10), 0);
	assert_int_equal(mtp_store_set_reserve(f->st, 0x70001, 1), -ENOENT);
	assert_int_equal(mtp_store_storage_stat(f->st, f->id0, &ss), 0);
	assert_int_equal(ss.capacity, 1 << 20);
	assert_int_equal(ss.reserve, 256 << 10);
	assert_int_equal(ss.free_bytes, fake_statvfs_free() - (256 << 10));
	/* An unknown size (4 GiB or more) does not fit on a small disk, nor
	 * one byte more than the reserve leaves. Nothing is created. */
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"big", MTP_UPLOAD_SIZE_UNKNOWN,
						&h, &up),
			 -ENOSPC);
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"big", ss.free_bytes + 1, &h,
						&up),
			 -ENOSPC);
	assert_string_equal(slurp(f->s0, "big"), "");
	assert_int_equal(tmp_files(f->s0), 0);
	/* A size that fits; then the board fills the disk: the next write
	 * would eat into the reserve and is refused. */
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"fits", 512 << 10, &h, &up),
			 0);
	assert_int_equal(mtp_upload_write(up, chunk, sizeof(chunk)), 0);
	snprintf(p, sizeof(p), "%s/dir/filler", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 640 << 10), 0);
	close(fd);
	assert_true(fake_statvfs_free() >= (256 << 10));
	assert_int_equal(mtp_upload_write(up, chunk, sizeof(chunk)), -ENOSPC);
	mtp_store_upload_abort(f->st, up, false);
	assert_int_equal(tmp_files(f->s0), 0);
	assert_int_equal(
	    mtp_store_handle(f->st, f->id0, MTP_STORE_ROOT, "fits"), 0);
	/* Without the filler a 200 KiB file fits; its copy then does not
	 * (the copy checks space too), and nothing of it stays. */
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/dir/big", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(ftruncate(fd, 200 << 10), 0);
	close(fd);
	big = find(f, f->id0, find(f, f->id0, MTP_STORE_ROOT, "dir"), "big");
	assert_true(big != 0);
	snprintf(p, sizeof(p), "%s/dir/filler", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(ftruncate(fd, 400 << 10), 0);
	close(fd);
	assert_int_equal(mtp_store_copy(f->st, big, f->id0, MTP_STORE_ROOT, &h),
			 -ENOSPC);
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "big"), 0);
	/* A folder copy fails on its way: the part copied goes again. */
	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "c", &c), 0);
	assert_int_equal(mtp_store_copy(f->st,
					find(f, f->id0, MTP_STORE_ROOT, "dir"),
					f->id0, c, &h),
			 -ENOSPC);
	assert_int_equal(find(f, f->id0, c, "dir"), 0);
	/* Room again: the copy goes through. */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mtp_store_copy(f->st, big, f->id0, MTP_STORE_ROOT, &h),
			 0);
	fake_statvfs_set(NULL, 0);
}

/* Files and folders under dir, counted like `find dir -mindepth 1`. */
static unsigned entries(const char *dir)
{
	char cmd[300];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "find '%s' -mindepth 1 | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%u", &n), 1);
	pclose(p);
	return n;
}

/* Issue 21: every creation needs room above the reserve, bytes and
 * inodes: a folder, an empty upload, a copy of an empty file or folder.
 * A refusal is -ENOSPC and leaves nothing. */
static void refuse_every_creation(struct fixture *f, uint32_t empty,
				  uint32_t folder)
{
	struct mtp_upload *up;
	unsigned before = entries(f->s0);
	uint32_t h;

	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "new",
					 &h),
			 -ENOSPC);
	assert_int_equal(mtp_store_upload_begin(f->st, f->id0, MTP_STORE_ROOT,
						"zero", 0, &h, &up),
			 -ENOSPC);
	assert_int_equal(mtp_store_copy(f->st, empty, f->id0, MTP_STORE_ROOT,
					&h),
			 -ENOSPC);
	assert_int_equal(mtp_store_copy(f->st, folder, f->id0, MTP_STORE_ROOT,
					&h),
			 -ENOSPC);
	assert_int_equal(entries(f->s0), before);
	assert_int_equal(tmp_files(f->s0), 0);
}

static void test_reserve_counts_every_creation(void **state)
{
	struct fixture *f = *state;
	uint32_t empty, folder, h;
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/dir/empty", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	folder = find(f, f->id0, MTP_STORE_ROOT, "dir");
	empty = find(f, f->id0, folder, "empty");
	/* Bytes: the board filled the disk down to the reserve. */
	fake_statvfs_set(f->s0, 1 << 20);
	assert_int_equal(mtp_store_set_reserve(f->st, f->id0, 256 << 10), 0);
	snprintf(p, sizeof(p), "%s/filler", f->s0);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(ftruncate(fd, (uint64_t)fake_statvfs_free() -
					   (256 << 10)),
			 0);
	close(fd);
	assert_int_equal(fake_statvfs_free(), 256 << 10);
	refuse_every_creation(f, empty, folder);
	/* Inodes: bytes to spare, but only the reserve of inodes left. */
	assert_int_equal(unlink(p), 0);
	fake_statvfs_set_inodes(entries(f->s0) + 8);
	assert_int_equal(mtp_store_set_reserve_inodes(f->st, f->id0, 8), 0);
	assert_int_equal(fake_statvfs_free_inodes(), 8);
	refuse_every_creation(f, empty, folder);
	/* One inode above the reserve: a folder fits, an empty upload (its
	 * placeholder and its temporary file) does not. */
	fake_statvfs_set_inodes(entries(f->s0) + 9);
	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "new",
					 &h),
			 0);
	/* A folder that exists is reused: no creation, no check. */
	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "new",
					 &h),
			 0);
	fake_statvfs_set(NULL, 0);
}

/* A copy of a tree is counted whole before anything is made: a tree
 * with more objects than inodes above the reserve, or more data than
 * bytes, is refused with nothing made, not cut off halfway. */
static void test_copy_counts_whole_tree(void **state)
{
	struct fixture *f = *state;
	unsigned before;
	uint32_t tree, c, h;
	char p[256];
	int fd;

	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "tree",
					 &tree),
			 0);
	assert_int_equal(mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "c",
					 &c),
			 0);
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "%s/tree/f%02d", f->s0, i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		assert_int_equal(ftruncate(fd, 40 << 10), 0);
		close(fd);
	}
	fake_statvfs_set(f->s0, 4 << 20);
	/* 21 objects; 20 inodes above the reserve. */
	fake_statvfs_set_inodes(entries(f->s0) + 10 + 20);
	assert_int_equal(mtp_store_set_reserve_inodes(f->st, f->id0, 10), 0);
	before = entries(f->s0);
	assert_int_equal(mtp_store_copy(f->st, tree, f->id0, c, &h), -ENOSPC);
	assert_int_equal(entries(f->s0), before);
	/* Inodes enough; 800 KiB of data and 21 blocks, with 600 KiB above
	 * the reserve: refused before the first file. */
	fake_statvfs_set_inodes(entries(f->s0) + 10 + 21);
	assert_int_equal(mtp_store_set_reserve(f->st, f->id0,
					       fake_statvfs_free() - (600 << 10)),
			 0);
	assert_int_equal(mtp_store_copy(f->st, tree, f->id0, c, &h), -ENOSPC);
	assert_int_equal(entries(f->s0), before);
	/* Room for all of it (21 blocks of 4 KiB over the data). */
	assert_int_equal(mtp_store_set_reserve(f->st, f->id0,
					       fake_statvfs_free() - (884 << 10)),
			 0);
	assert_int_equal(mtp_store_copy(f->st, tree, f->id0, c, &h), 0);
	assert_int_equal(entries(f->s0), before + 21);
	fake_statvfs_set(NULL, 0);
}

/* Hard links can point outside: such files are not listed, served,
 * overwritten nor copied; deleting one removes only the link. */
static void test_hard_links(void **state)
{
	struct fixture *f = *state;
	uint32_t a = find(f, f->id0, MTP_STORE_ROOT, "a.txt"), h;
	struct mtp_obj_stat st;
	char p[256], q[256];
	int fd = -1;

	snprintf(p, sizeof(p), "%s/secret", f->root);
	snprintf(q, sizeof(q), "%s/hard", f->s0);
	assert_int_equal(link(p, q), 0);
	assert_int_equal(find(f, f->id0, MTP_STORE_ROOT, "hard"), 0);
	assert_int_equal(
	    mtp_store_lookup(f->st, f->id0, MTP_STORE_ROOT, "hard"), 0);
	/* A file the host listed becomes such a link afterwards. */
	snprintf(p, sizeof(p), "%s/a.txt", f->s0);
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(mtp_store_stat(f->st, a, &st), -ENOENT);
	assert_int_equal(mtp_store_open(f->st, a, O_RDONLY, &fd), -EACCES);
	assert_int_equal(fd, -1);
	assert_int_equal(
	    upload(f, f->id0, MTP_STORE_ROOT, "a.txt", "pwned", &h), -EACCES);
	assert_int_equal(mtp_store_copy(f->st, a, f->id0,
					find(f, f->id0, MTP_STORE_ROOT, "dir"),
					&h),
			 -EACCES);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	assert_int_equal(mtp_store_delete(f->st, a), 0);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	assert_int_equal(tmp_files(f->s0), 0);
}

/* A copied or deleted folder's links are not followed: the copy leaves
 * them out, the delete removes the link only. */
static void test_tree_ops_skip_links(void **state)
{
	struct fixture *f = *state;
	uint32_t d = find(f, f->id0, MTP_STORE_ROOT, "dir"), c, copy;
	char p[200], q[256];

	snprintf(p, sizeof(p), "%s/dir/esc", f->s0);
	assert_int_equal(symlink(f->root, p), 0);
	snprintf(p, sizeof(p), "%s/secret", f->root);
	snprintf(q, sizeof(q), "%s/dir/hard", f->s0);
	assert_int_equal(link(p, q), 0);
	assert_int_equal(
	    mtp_store_mkdir(f->st, f->id0, MTP_STORE_ROOT, "c", &c), 0);
	assert_int_equal(mtp_store_copy(f->st, d, f->id0, c, &copy), 0);
	snprintf(p, sizeof(p), "%s/c/dir", f->s0);
	assert_string_equal(slurp(p, "inner.txt"), "inner");
	snprintf(q, sizeof(q), "%s/esc", p);
	assert_int_equal(access(q, F_OK), -1);
	snprintf(q, sizeof(q), "%s/hard", p);
	assert_int_equal(access(q, F_OK), -1);
	assert_int_equal(mtp_store_delete(f->st, d), 0);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	snprintf(p, sizeof(p), "%s/s1/ro.txt", f->root);
	assert_int_equal(access(p, F_OK), 0);
}

/* Temporary files of a killed worker: swept when the storage is added,
 * and when their folder is listed; an upload's own is left alone, and a
 * link with such a name is not followed. */
static void test_tmp_cleanup(void **state)
{
	struct fixture *f = *state;
	struct mtp_upload *up;
	struct mtp_store *s2 = mtp_store_new("mtp");
	uint32_t id, d, h, *list = NULL;
	size_t n = 0;
	char p[256], q[256];

	snprintf(p, sizeof(p), "%s/dir", f->s0);
	put(f->s0, ".gadgetd-mtp-1-0", "stale");
	put(p, ".gadgetd-mtp-1-1", "stale");
	snprintf(q, sizeof(q), "%s/.gadgetd-mtp-link", f->s0);
	assert_int_equal(symlink("../secret", q), 0);
	assert_int_equal(mtp_store_add(s2, f->s0, "again", false, &id), 0);
	assert_int_equal(tmp_files(f->s0), 1); /* the link only */
	assert_int_equal(tmp_files(p), 0);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	mtp_store_free(s2);
	d = find(f, f->id0, MTP_STORE_ROOT, "dir");
	assert_int_equal(
	    mtp_store_upload_begin(f->st, f->id0, d, "up.bin", 1, &h, &up), 0);
	put(p, ".gadgetd-mtp-1-2", "stale");
	assert_int_equal(tmp_files(p), 2);
	assert_int_equal(mtp_store_list(f->st, f->id0, d, &list, &n), 0);
	free(list);
	assert_int_equal(n, 2); /* inner.txt and up.bin */
	assert_int_equal(tmp_files(p), 1);
	assert_int_equal(mtp_upload_write(up, "1", 1), 0);
	assert_int_equal(mtp_store_upload_commit(f->st, up), 0);
	assert_string_equal(slurp(p, "up.bin"), "1");
	assert_int_equal(tmp_files(p), 0);
}

/* A storage taken away at run time (issue 43): its upload in progress
 * leaves nothing, its handles die for good, and no id is given twice. */
static void test_remove_storage(void **state)
{
	struct fixture *f = *state;
	struct mtp_upload *up;
	struct mtp_obj_stat st;
	uint32_t a, dir, h, id, seen[40], as[40];
	char p[256];

	a = find(f, f->id0, MTP_STORE_ROOT, "a.txt");
	dir = find(f, f->id0, MTP_STORE_ROOT, "dir");
	assert_true(a && dir);
	assert_int_equal(
	    mtp_store_upload_begin(f->st, f->id0, dir, "up.bin", 10, &h, &up), 0);
	assert_int_equal(mtp_upload_write(up, "12345", 5), 0);
	snprintf(p, sizeof(p), "%s/dir", f->s0);
	assert_int_equal(tmp_files(p), 1);
	assert_int_equal(mtp_store_remove(f->st, f->id0), 0);
	/* The half upload and its placeholder are gone. */
	assert_int_equal(tmp_files(p), 0);
	assert_int_equal(access(strcat(p, "/up.bin"), F_OK), -1);
	assert_int_equal(mtp_store_count(f->st), 1);
	assert_int_equal(mtp_store_id(f->st, 0), f->id1);
	assert_int_equal(mtp_store_id(f->st, 1), 0);
	assert_int_equal(mtp_store_stat(f->st, a, &st), -ENOENT);
	assert_int_equal(mtp_store_stat(f->st, h, &st), -ENOENT);
	assert_int_equal(mtp_store_remove(f->st, f->id0), -ENOENT);
	assert_int_equal(mtp_store_find_desc(f->st, "Main"), 0);
	/* The same folder again: a new id, new handles for the same names. */
	assert_int_equal(mtp_store_add(f->st, f->s0, "Main", false, &id), 0);
	assert_true(id != f->id0 && id != f->id1);
	assert_int_equal(mtp_store_find_desc(f->st, "Main"), id);
	assert_int_equal(mtp_store_id(f->st, 1), id);
	assert_true(find(f, id, MTP_STORE_ROOT, "a.txt") != a);
	assert_true(find(f, id, MTP_STORE_ROOT, "dir") != dir);
	assert_int_equal(mtp_store_stat(f->st, a, &st), -ENOENT);
	/* Added and removed over and over: every id is new, and the
	 * handles of one round are never another's. */
	seen[0] = f->id0;
	seen[1] = f->id1;
	seen[2] = id;
	as[2] = a;
	for (unsigned i = 3; i < 40; i++) {
		assert_int_equal(mtp_store_remove(f->st, seen[i - 1]), 0);
		assert_int_equal(mtp_store_add(f->st, f->s0, "Main", false,
					       &seen[i]), 0);
		for (unsigned k = 0; k < i; k++)
			assert_true(seen[k] != seen[i]);
		as[i] = find(f, seen[i], MTP_STORE_ROOT, "a.txt");
		assert_true(as[i] != 0);
		for (unsigned k = 2; k < i; k++)
			assert_true(as[k] != as[i]);
	}
	assert_int_equal(mtp_store_count(f->st), 2);
}

/* mtp_store_edit_open: read-write, in place, confined like reads. */
static void test_edit_open(void **state)
{
	struct fixture *f = *state;
	uint32_t a = find(f, f->id0, MTP_STORE_ROOT, "a.txt");
	uint32_t d = find(f, f->id0, MTP_STORE_ROOT, "dir");
	uint32_t in = find(f, f->id0, d, "inner.txt");
	uint32_t ro = find(f, f->id1, MTP_STORE_ROOT, "ro.txt");
	uint64_t reserve = 1;
	char p[256], q[256];
	int fd;

	assert_int_equal(mtp_store_set_reserve(f->st, f->id0, 4096), 0);
	assert_int_equal(mtp_store_edit_open(f->st, a, &fd, &reserve), 0);
	assert_int_equal(reserve, 4096);
	/* In place: what is written is the file itself. */
	assert_int_equal(pwrite(fd, "J", 1, 0), 1);
	close(fd);
	assert_string_equal(slurp(f->s0, "a.txt"), "Jello");
	assert_int_equal(mtp_store_edit_open(f->st, ro, &fd, &reserve), -EROFS);
	assert_int_equal(mtp_store_edit_open(f->st, d, &fd, &reserve),
			 -EISDIR);
	assert_int_equal(mtp_store_edit_open(f->st, 0x7777, &fd, &reserve),
			 -ENOENT);
	/* The file swapped for a link to the outside after the listing. */
	snprintf(p, sizeof(p), "%s/a.txt", f->s0);
	snprintf(q, sizeof(q), "%s/secret", f->root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_true(mtp_store_edit_open(f->st, a, &fd, &reserve) < 0);
	assert_string_equal(slurp(f->root, "secret"), "outside");
	/* Its folder swapped for a link: the old handle reaches nothing. */
	swap_dir_for_link(f, p, q);
	assert_int_equal(mtp_store_edit_open(f->st, in, &fd, &reserve),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_missing),
	    cmocka_unit_test_setup_teardown(test_add_through_link, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_ids_and_stat, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_skips_links, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_handles_stable, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_list_errors, setup, teardown),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test_setup_teardown(test_create_refusals, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_create_write_delete, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_folder_swapped_for_link, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_folder_cache, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lookup_and_forget, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_overwrite_keeps_old, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_handle_reuse, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_space_looks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_space_and_reserve, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_reserve_counts_every_creation,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_copy_counts_whole_tree, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_hard_links, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tree_ops_skip_links, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_tmp_cleanup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_edit_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_remove_storage, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
