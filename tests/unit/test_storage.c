/*
 * gadgetd/storage/storage.c alone: the storage request parser, the
 * confinement of images to media_dir (every way out refused and named), the
 * kernel's own checks made before anything is ejected, a failed insert that
 * never reopens the old medium by its name, what a member is shown, and the
 * LUN attributes written, against a temporary folder laid out like a
 * mass_storage function's ConfigFS folder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char top[64], media[96], fdir[96];
	int fd; /* fdir, open */
};

static void put(const char *dir, const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *get(struct fixture *f, const char *name)
{
	static char buf[256];
	char p[256];
	FILE *in;

	snprintf(p, sizeof(p), "%s/%s", f->fdir, name);
	buf[0] = '\0';
	in = fopen(p, "re");
	assert_non_null(in);
	if (!fgets(buf, sizeof(buf), in))
		buf[0] = '\0';
	fclose(in);
	return buf;
}

/* name in dir: bytes bytes of text repeated. */
static void put_sized(const char *dir, const char *name, const char *text,
		      size_t bytes)
{
	char p[256];
	size_t n = strlen(text);
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	assert_non_null(f);
	while (bytes > 0) {
		size_t k = bytes < n ? bytes : n;

		assert_int_equal(fwrite(text, 1, k, f), k);
		bytes -= k;
	}
	fclose(f);
}

static void make_lun(struct fixture *f, int n)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/lun.%d", f->fdir, n);
	assert_int_equal(mkdir(p, 0755), 0);
	put(p, "file", "\n");
	put(p, "cdrom", "0\n");
	put(p, "ro", "0\n");
	put(p, "removable", "1\n");
	put(p, "forced_eject", "");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char p[256];

	snprintf(f->top, sizeof(f->top), "/tmp/test_storage.XXXXXX");
	assert_non_null(mkdtemp(f->top));
	snprintf(f->media, sizeof(f->media), "%s/media", f->top);
	snprintf(f->fdir, sizeof(f->fdir), "%s/mass_storage.disk", f->top);
	assert_int_equal(mkdir(f->media, 0755), 0);
	assert_int_equal(mkdir(f->fdir, 0755), 0);
	make_lun(f, 0);
	make_lun(f, 1);
	put_sized(f->media, "a.img", "disk a", 4096);
	put_sized(f->media, "small.img", "tiny", 100);
	put(f->top, "secret", "not for the host");
	snprintf(p, sizeof(p), "%s/sub", f->media);
	assert_int_equal(mkdir(p, 0755), 0);
	put_sized(p, "b.iso", "cd b", 300 * 2048);
	put_sized(p, "short.iso", "cd", 299 * 2048);
	/* Links: one out, one to a file inside (refused too), a FIFO, and
	 * a sibling folder whose name starts like media_dir. */
	snprintf(p, sizeof(p), "%s/out.img", f->media);
	assert_int_equal(symlink("../secret", p), 0);
	snprintf(p, sizeof(p), "%s/in.img", f->media);
	assert_int_equal(symlink("a.img", p), 0);
	snprintf(p, sizeof(p), "%s/lnk", f->media);
	assert_int_equal(symlink("sub", p), 0);
	snprintf(p, sizeof(p), "%s/fifo", f->media);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/media2", f->top);
	assert_int_equal(mkdir(p, 0755), 0);
	put(p, "c.img", "outside");
	f->fd = open(f->fdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->fd >= 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	close(f->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->top);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static int parse(struct storage_req *r, char *msg, const char *a0, ...)
{
	char *argv[12];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)a0;
	va_start(ap, a0);
	while (argc < 11 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return storage_parse(argc, argv, r, msg, 512);
}

static void test_parse(void **state)
{
	struct storage_req r;
	char msg[512];

	assert_int_equal(parse(&r, msg, "insert", "--cdrom", "--lun", "1", "disk", "x.iso", NULL), 0);
	assert_int_equal(r.op, STORAGE_INSERT);
	assert_true(r.cdrom && !r.ro);
	assert_int_equal(r.lun, 1);
	assert_string_equal(r.function, "disk");
	assert_string_equal(r.image, "x.iso");
	assert_int_equal(parse(&r, msg, "insert", "--ro", "x.img", NULL), 0);
	assert_true(r.ro && !r.function && r.lun == 0);
	assert_int_equal(parse(&r, msg, "eject", "--force", NULL), 0);
	assert_true(r.op == STORAGE_EJECT && r.force && !r.function);
	assert_int_equal(parse(&r, msg, "status", "disk", NULL), 0);
	assert_string_equal(r.function, "disk");

	assert_int_equal(parse(&r, msg, "insert", NULL), -EINVAL);
	assert_non_null(strstr(msg, "which image?"));
	assert_int_equal(parse(&r, msg, "insert", "--lun", "16", "x", NULL), -EINVAL);
	assert_non_null(strstr(msg, "--lun takes a number 0..15"));
	assert_int_equal(parse(&r, msg, "insert", "--lun", NULL), -EINVAL);
	assert_int_equal(parse(&r, msg, "insert", "--lun", "1x", "a", NULL), -EINVAL);
	assert_int_equal(parse(&r, msg, "eject", "--cdrom", NULL), -EINVAL);
	assert_non_null(strstr(msg, "unknown option \"--cdrom\""));
	assert_int_equal(parse(&r, msg, "insert", "a", "b", "c", NULL), -EINVAL);
	assert_int_equal(parse(&r, msg, "eject", "a", "b", NULL), -EINVAL);
	assert_int_equal(parse(&r, msg, "status", "--lun", "0", NULL), -EINVAL);
	assert_int_equal(parse(&r, msg, "mount", NULL), -EINVAL);
	assert_non_null(strstr(msg, "unknown command \"mount\""));
}

/* A confined open: refused with r, msg naming the image and containing
 * what. */
static void refused(struct fixture *f, const char *image, int r, const char *what)
{
	char msg[512] = "";
	int fd = storage_open_image(f->media, image, true, msg, sizeof(msg));

	if (fd >= 0)
		close(fd);
	if (fd != r || !strstr(msg, image) || !strstr(msg, what))
		fail_msg("%s: got %d \"%s\", expected %d with \"%s\"", image, fd, msg, r, what);
}

static void opened(struct fixture *f, const char *media, const char *image,
		   bool confined)
{
	char msg[512] = "";
	int fd = storage_open_image(media, image, confined, msg, sizeof(msg));

	if (fd < 0)
		fail_msg("%s: %d %s", image, fd, msg);
	close(fd);
}

static void test_confinement(void **state)
{
	struct fixture *f = *state;
	char p[256], msg[512];

	opened(f, f->media, "a.img", true);
	opened(f, f->media, "sub/b.iso", true);
	snprintf(p, sizeof(p), "%s/sub/b.iso", f->media);
	opened(f, f->media, p, true);
	snprintf(p, sizeof(p), "%s//a.img", f->media);
	opened(f, f->media, p, true);

	refused(f, "../secret", -EACCES, "leads out of");
	refused(f, "sub/../../secret", -EACCES, "leads out of");
	refused(f, "out.img", -ELOOP, "symbolic link");
	refused(f, "in.img", -ELOOP, "symbolic link");
	refused(f, "lnk/b.iso", -ELOOP, "symbolic link");
	refused(f, "fifo", -EINVAL, "not a regular file or a block device");
	refused(f, "sub", -EINVAL, "not a regular file");
	refused(f, "none.img", -ENOENT, "No such file");
	refused(f, "/etc/passwd", -EACCES, "not beneath");
	snprintf(p, sizeof(p), "%s/../secret", f->media);
	refused(f, p, -EACCES, "leads out of");
	snprintf(p, sizeof(p), "%s2/c.img", f->media);
	refused(f, p, -EACCES, "not beneath");
	refused(f, f->media, -EACCES, "not beneath");
	assert_int_equal(storage_open_image(f->media, "", true, msg, sizeof(msg)), -EINVAL);
	/* media_dir "/": every absolute name is beneath it (still without
	 * a link on the way). */
	snprintf(p, sizeof(p), "%s/a.img", f->media);
	opened(f, "/", p, true);
	snprintf(p, sizeof(p), "%s/out.img", f->media);
	assert_int_equal(storage_open_image("/", p, true, msg, sizeof(msg)), -ELOOP);
	/* No media_dir: nothing for group, and relative names for nobody. */
	assert_int_equal(storage_open_image(NULL, "a.img", true, msg, sizeof(msg)), -EACCES);
	assert_non_null(strstr(msg, "names no media_dir"));
	assert_int_equal(storage_open_image(NULL, "a.img", false, msg, sizeof(msg)), -EACCES);

	/* Root and admin_group name any file by its absolute path. */
	snprintf(p, sizeof(p), "%s/secret", f->top);
	opened(f, NULL, p, false);
	snprintf(p, sizeof(p), "%s/out.img", f->media);
	opened(f, f->media, p, false);
	/* ... but relative names stay confined for them too. */
	assert_int_equal(storage_open_image(f->media, "out.img", false, msg,
					    sizeof(msg)), -ELOOP);
	assert_int_equal(storage_open_image(f->media, "/dev/null", false, msg,
					    sizeof(msg)), -EINVAL);
}

static void test_insert_eject(void **state)
{
	struct fixture *f = *state;
	char msg[512] = "", want[64];
	int img = storage_open_image(f->media, "sub/b.iso", true, msg, sizeof(msg));
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	assert_true(img >= 0);
	assert_int_equal(storage_luns(f->fd), 2);
	assert_int_equal(storage_insert(f->fd, 1, img, true, false, NULL, msg, sizeof(msg)), 0);
	snprintf(want, sizeof(want), "/proc/self/fd/%d", img);
	assert_string_equal(get(f, "lun.1/file"), want);
	assert_string_equal(get(f, "lun.1/cdrom"), "1");
	assert_string_equal(get(f, "lun.1/ro"), "1"); /* a CD-ROM is read-only */
	assert_string_equal(get(f, "lun.0/file"), "\n");
	assert_int_equal(storage_insert(f->fd, 0, img, false, true, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, "lun.0/cdrom"), "0");
	assert_string_equal(get(f, "lun.0/ro"), "1");
	close(img);

	out = open_memstream(&text, &len);
	put(f->fdir, "lun.0/file", "/srv/media/a.img\n");
	storage_status(f->fd, "disk", false, NULL, out);
	fclose(out);
	assert_non_null(strstr(text, "disk lun.0: /srv/media/a.img, ro, removable\n"));
	assert_non_null(strstr(text, "disk lun.1: /proc/self/fd/"));
	free(text);

	assert_int_equal(storage_eject(f->fd, 0, false, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, "lun.0/file"), "\n");
	assert_int_equal(storage_eject(f->fd, 1, true, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, "lun.1/forced_eject"), "1");

	assert_int_equal(storage_eject(f->fd, 3, false, msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "storage: no LUN 3 (the function has 2)");
	assert_int_equal(storage_insert(f->fd, 2, 0, false, false, NULL, msg, sizeof(msg)), -ENOENT);
}

/*
 * What the kernel would refuse is refused before the medium in the LUN
 * goes out: it stays, named as it was, even when its name is a deleted
 * file's (which gadgetd would otherwise have to reopen by that name).
 */
static void test_precheck(void **state)
{
	struct fixture *f = *state;
	char msg[512], old[160];
	int small = storage_open_image(f->media, "small.img", true, msg, sizeof(msg));
	int shortcd = storage_open_image(f->media, "sub/short.iso", true, msg, sizeof(msg));
	int disk = storage_open_image(f->media, "a.img", true, msg, sizeof(msg));

	assert_true(small >= 0 && shortcd >= 0 && disk >= 0);
	snprintf(old, sizeof(old), "%s/IMAGE (deleted)\n", f->media);
	put(f->fdir, "lun.0/file", old);
	put(f->fdir, "lun.0/ro", "1\n");
	assert_int_equal(storage_insert(f->fd, 0, small, false, false, NULL, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "too small"));
	assert_non_null(strstr(msg, "nothing was changed"));
	assert_string_equal(get(f, "lun.0/file"), old);
	assert_string_equal(get(f, "lun.0/ro"), "1\n");
	/* A CD-ROM wants 300 sectors of 2048 bytes; a disk one of 512. */
	assert_int_equal(storage_insert(f->fd, 0, shortcd, true, false, NULL, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "CD-ROM"));
	assert_string_equal(get(f, "lun.0/file"), old);
	assert_int_equal(storage_insert(f->fd, 0, shortcd, false, false, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(storage_insert(f->fd, 0, disk, true, false, NULL, msg, sizeof(msg)),
			 -EINVAL);
	close(small);
	close(shortcd);
	close(disk);
}

/*
 * The kernel refuses after the old medium went out (here: its ro cannot
 * be written). The LUN is left empty and cdrom and ro as they were: the
 * old medium's name, "IMAGE (deleted)", is never written back, for that
 * would have the kernel open, as gadgetd, whatever now has that name.
 */
static void test_refused_leaves_empty(void **state)
{
	struct fixture *f = *state;
	char msg[512] = "", old[160], p[256];
	int img = storage_open_image(f->media, "a.img", true, msg, sizeof(msg));

	assert_true(img >= 0);
	snprintf(old, sizeof(old), "%s/IMAGE (deleted)\n", f->media);
	put(f->fdir, "lun.0/file", old);
	snprintf(p, sizeof(p), "%s/lun.0/ro", f->fdir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	put(f->fdir, "lun.0/cdrom", "1\n");
	assert_true(storage_insert(f->fd, 0, img, false, false, NULL, msg, sizeof(msg)) < 0);
	assert_string_equal(get(f, "lun.0/file"), "\n");
	assert_string_equal(get(f, "lun.0/cdrom"), "1");
	assert_non_null(strstr(msg, "the LUN is empty now"));
	close(img);
}

/*
 * A member's image is opened as the member (fsuid and fsgid): one the
 * member may not read is refused before anything changes, though
 * gadgetd itself could read it.
 */
static void test_as_member(void **state)
{
	struct fixture *f = *state;
	struct storage_cred member = { .uid = getuid() ? getuid() : 65534,
				       .gid = getgid() ? getgid() : 65534 };
	char msg[512], p[256];
	int img = storage_open_image(f->media, "a.img", true, msg, sizeof(msg));

	assert_true(img >= 0);
	snprintf(p, sizeof(p), "%s/a.img", f->media);
	assert_int_equal(chmod(p, getuid() ? 0200 : 0600), 0);
	put(f->fdir, "lun.0/file", "/srv/old.img\n");
	assert_int_equal(storage_insert(f->fd, 0, img, false, false, &member, msg,
					sizeof(msg)), -EACCES);
	assert_non_null(strstr(msg, "you cannot read the image"));
	assert_string_equal(get(f, "lun.0/file"), "/srv/old.img\n");
	/* gadgetd's file access is its own again. */
	assert_int_equal(setfsuid((uid_t)-1), getuid());
	assert_int_equal(setfsgid((gid_t)-1), getgid());
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(storage_insert(f->fd, 0, img, false, false, &member, msg,
					sizeof(msg)), 0);
	close(img);
}

/* A member is told a medium's name only beneath media_dir. */
static void test_status_confined(void **state)
{
	struct fixture *f = *state;
	char line[512], *text = NULL;
	size_t len = 0;
	FILE *out;

	put(f->fdir, "lun.0/file", "/etc/shadow\n");
	snprintf(line, sizeof(line), "%s/x.img (deleted)\n", f->media);
	put(f->fdir, "lun.1/file", line);
	out = open_memstream(&text, &len);
	storage_status(f->fd, "disk", true, f->media, out);
	storage_status(f->fd, "none", true, NULL, out);
	storage_status(f->fd, "admin", false, f->media, out);
	fclose(out);
	assert_non_null(strstr(text, "disk lun.0: a medium outside media_dir, removable\n"));
	snprintf(line, sizeof(line), "disk lun.1: %s/x.img (deleted), removable\n", f->media);
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "none lun.0: a medium outside media_dir"));
	assert_non_null(strstr(text, "none lun.1: a medium outside media_dir"));
	assert_non_null(strstr(text, "admin lun.0: /etc/shadow, removable\n"));
	assert_null(strstr(text, "disk lun.0: /etc"));
	free(text);
}

/* A kernel before 5.19 has no forced_eject: said so. */
static void test_no_forced_eject(void **state)
{
	struct fixture *f = *state;
	char p[256], msg[512];

	snprintf(p, sizeof(p), "%s/lun.0/forced_eject", f->fdir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(storage_eject(f->fd, 0, true, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no forced_eject"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_confinement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insert_eject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_forced_eject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precheck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_leaves_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_as_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_confined, setup, teardown),
	};

	return cmocka_run_group_tests_name("storage", tests, NULL, NULL);
}
