/* storage: virtual media in mass_storage LUNs (see storage.h). */
#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's ETOOSMALL (include/linux/errno.h), which f_mass_storage
 * returns for an image smaller than a medium of its kind; no libc names
 * it. */
#define STORAGE_ETOOSMALL 525

static const char storage_usage[] =
	"usage: gadgetctl storage insert [--cdrom] [--ro] [--lun N] [FUNCTION] IMAGE\n"
	"       gadgetctl storage eject [--force] [--lun N] [FUNCTION]\n"
	"       gadgetctl storage status [FUNCTION]";

static int storage_parse_lun(const char *s, int *lun)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v >= STORAGE_MAX_LUNS)
		return -EINVAL;
	*lun = (int)v;
	return 0;
}

/* The options of op, then its operands (at most n_max). */
static int storage_parse_opts(int argc, char **argv, struct storage_req *req,
			      char **ops, int *n_ops, char *msg, size_t size)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (req->op == STORAGE_INSERT && !strcmp(a, "--cdrom"))
			req->cdrom = true;
		else if (req->op == STORAGE_INSERT && !strcmp(a, "--ro"))
			req->ro = true;
		else if (req->op == STORAGE_EJECT && !strcmp(a, "--force"))
			req->force = true;
		else if (req->op != STORAGE_STATUS && !strcmp(a, "--lun")) {
			if (storage_parse_lun(i + 1 < argc ? argv[i + 1] : NULL,
					      &req->lun) < 0) {
				snprintf(msg, size, "storage: --lun takes a number 0..%d",
					 STORAGE_MAX_LUNS - 1);
				return -EINVAL;
			}
			i++;
		} else if (a[0] == '-' && a[1]) {
			snprintf(msg, size, "storage: unknown option \"%s\"\n%s", a,
				 storage_usage);
			return -EINVAL;
		} else if (n < 2) {
			ops[n++] = argv[i];
		} else {
			snprintf(msg, size, "storage: too many arguments\n%s", storage_usage);
			return -EINVAL;
		}
	}
	*n_ops = n;
	return 0;
}

int storage_parse(int argc, char **argv, struct storage_req *req, char *msg,
		  size_t size)
{
	char *ops[2] = { NULL, NULL };
	int n, r;

	memset(req, 0, sizeof(*req));
	if (argc < 1) {
		snprintf(msg, size, "%s", storage_usage);
		return -EINVAL;
	}
	if (!strcmp(argv[0], "insert"))
		req->op = STORAGE_INSERT;
	else if (!strcmp(argv[0], "eject"))
		req->op = STORAGE_EJECT;
	else if (!strcmp(argv[0], "status"))
		req->op = STORAGE_STATUS;
	else {
		snprintf(msg, size, "storage: unknown command \"%s\"\n%s", argv[0],
			 storage_usage);
		return -EINVAL;
	}
	r = storage_parse_opts(argc, argv, req, ops, &n, msg, size);
	if (r < 0)
		return r;
	if (req->op == STORAGE_INSERT) {
		if (n < 1) {
			snprintf(msg, size, "storage insert: which image?\n%s", storage_usage);
			return -EINVAL;
		}
		req->function = n == 2 ? ops[0] : NULL;
		req->image = ops[n - 1];
		return 0;
	}
	if (n > 1) {
		snprintf(msg, size, "storage: too many arguments\n%s", storage_usage);
		return -EINVAL;
	}
	req->function = ops[0];
	return 0;
}

/* image beneath media_dir: the part below it, or NULL if it is not. */
static const char *storage_below(const char *media_dir, const char *image)
{
	size_t n = strlen(media_dir);

	while (n > 0 && media_dir[n - 1] == '/')
		n--;
	if (image[0] != '/')
		return image;
	/* n == 0: media_dir is "/", beneath which every absolute name is. */
	if (strncmp(image, media_dir, n) || image[n] != '/')
		return NULL;
	image += n;
	while (*image == '/')
		image++;
	return image;
}

static int storage_openat2(int dirfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV |
			   RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static int storage_open_confined(const char *media_dir, const char *image,
				 char *msg, size_t size)
{
	const char *rel;
	int dfd, fd;

	if (!media_dir) {
		snprintf(msg, size, "storage: %s: refused: the profile names no media_dir "
			 "for this function, and only root and admin_group may name "
			 "any file", image);
		return -EACCES;
	}
	rel = storage_below(media_dir, image);
	if (!rel || !*rel) {
		snprintf(msg, size, "storage: %s: refused: not beneath %s (only root and "
			 "admin_group may name any file)", image, media_dir);
		return -EACCES;
	}
	dfd = open(media_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fd = -errno;
		snprintf(msg, size, "storage: media_dir %s: %s", media_dir, strerror(-fd));
		return fd;
	}
	fd = storage_openat2(dfd, rel);
	close(dfd);
	if (fd == -EXDEV) {
		snprintf(msg, size, "storage: %s: refused: it leads out of %s", image,
			 media_dir);
		return -EACCES;
	}
	if (fd == -ELOOP)
		snprintf(msg, size, "storage: %s: refused: a symbolic link on the way "
			 "(links are not followed beneath %s)", image, media_dir);
	else if (fd == -ENOSYS)
		snprintf(msg, size, "storage: %s: refused: this kernel has no openat2 "
			 "(Linux 5.6) to confine it to %s", image, media_dir);
	else if (fd < 0)
		snprintf(msg, size, "storage: %s: %s", image, strerror(-fd));
	return fd;
}

int storage_open_image(const char *media_dir, const char *image, bool confined,
		       char *msg, size_t size)
{
	struct stat st;
	int fd;

	if (!*image) {
		snprintf(msg, size, "storage: an empty image name");
		return -EINVAL;
	}
	/* A relative name is always looked up in media_dir, confined. */
	if (confined || image[0] != '/') {
		fd = storage_open_confined(media_dir, image, msg, size);
	} else {
		fd = open(image, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			snprintf(msg, size, "storage: %s: %s", image, strerror(-fd));
		}
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		snprintf(msg, size, "storage: %s: refused: not a regular file or a "
			 "block device", image);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Until storage_cred_end(): file access as the member (as NULL: as
 * gadgetd). CAP_SETUID and CAP_SETGID let gadgetd; a non-zero fsuid also
 * drops its file capabilities (DAC override) meanwhile. */
struct storage_saved {
	bool on;
	uid_t uid;
	gid_t gid;
};

static struct storage_saved storage_cred_begin(const struct storage_cred *as)
{
	struct storage_saved s = { .on = as != NULL };

	if (as) {
		s.gid = (gid_t)setfsgid(as->gid);
		s.uid = (uid_t)setfsuid(as->uid);
	}
	return s;
}

static void storage_cred_end(struct storage_saved s)
{
	if (s.on) {
		setfsuid(s.uid);
		setfsgid(s.gid);
	}
}

/* lun.N/attr := value. Configfs attributes take one write each. The
 * attribute is opened as gadgetd (it is root's) and written as `as`
 * (NULL: gadgetd), whose credentials the kernel uses for what the write
 * makes it open (lun.N/file). */
static int storage_attr_write_as(int fdir, int lun, const char *attr,
				 const char *value, const struct storage_cred *as)
{
	char path[64];
	struct storage_saved s;
	size_t len = strlen(value);
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "lun.%d/%s", lun, attr);
	fd = openat(fdir, path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	s = storage_cred_begin(as);
	n = write(fd, value, len);
	if (n < 0)
		r = -errno;
	storage_cred_end(s);
	if (n >= 0 && (size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

static int storage_attr_write(int fdir, int lun, const char *attr,
			      const char *value)
{
	return storage_attr_write_as(fdir, lun, attr, value, NULL);
}

/* lun.N/attr's first line into buf (without its newline). */
static int storage_attr_read(int fdir, int lun, const char *attr, char *buf,
			     size_t size)
{
	char path[64];
	ssize_t n;
	int fd, r;

	snprintf(path, sizeof(path), "lun.%d/%s", lun, attr);
	fd = openat(fdir, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return r;
}

static bool storage_attr_bool(int fdir, int lun, const char *attr)
{
	char v[8];

	return storage_attr_read(fdir, lun, attr, v, sizeof(v)) == 0 && v[0] == '1';
}

static int storage_lun_check(int fdir, int lun, char *msg, size_t size)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "lun.%d", lun);
	if (fstatat(fdir, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		return 0;
	snprintf(msg, size, "storage: no LUN %d (the function has %d)", lun,
		 storage_luns(fdir));
	return -ENOENT;
}

/* An empty `file` ejects; the newline makes it one write the kernel sees
 * (configfs drops a zero-length one). */
static int storage_close(int fdir, int lun, const char *image, char *msg, size_t size)
{
	int r = storage_attr_write(fdir, lun, "file", "\n");

	if (r == -EBUSY)
		snprintf(msg, size, "storage: LUN %d: the host holds the medium (it "
			 "prevents removal); \"gadgetctl storage eject --force\" takes it "
			 "away%s%s", lun, image ? ", then insert " : "", image ? image : "");
	else if (r < 0)
		snprintf(msg, size, "storage: LUN %d: cannot eject: %s", lun, strerror(-r));
	return r;
}

/*
 * What f_mass_storage checks when it opens a medium (fsg_lun_open() in
 * drivers/usb/gadget/function/storage_common.c), checked first, so that a
 * medium the kernel would refuse never costs the one in the LUN: it must
 * be readable by gadgetd (the kernel opens it as gadgetd), a regular file
 * or a block device, and hold at least one sector: 512 bytes, a block
 * device's logical block, or for a CD-ROM 300 sectors of 2048 bytes.
 */
static int storage_precheck(int fd, int lun, bool cdrom,
			    const struct storage_cred *as, char *msg, size_t size)
{
	char proc[64];
	uint64_t bytes = 0;
	unsigned blksize = 512, min = 1;
	struct storage_saved s;
	struct stat st;
	int rfd, r = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	s = storage_cred_begin(as);
	rfd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rfd < 0)
		r = -errno;
	storage_cred_end(s);
	if (rfd < 0) {
		snprintf(msg, size, "storage: LUN %d: %s cannot read the image: %s; "
			 "nothing was changed", lun, as ? "you" : "gadgetd", strerror(-r));
		return r;
	}
	if (fstat(rfd, &st) < 0) {
		r = -errno;
	} else if (S_ISREG(st.st_mode)) {
		bytes = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		int ssz = 0;

		if (ioctl(rfd, BLKGETSIZE64, &bytes) < 0 || ioctl(rfd, BLKSSZGET, &ssz) < 0)
			r = -errno;
		else if (ssz > 0)
			blksize = (unsigned)ssz;
	} else {
		r = -EINVAL;
	}
	close(rfd);
	if (r < 0) {
		snprintf(msg, size, "storage: LUN %d: %s; nothing was changed", lun,
			 r == -EINVAL ? "not a regular file or a block device" : strerror(-r));
		return r == -EINVAL ? r : -EIO;
	}
	if (cdrom) {
		blksize = 2048;
		min = 300;
	}
	if (bytes / blksize < min) {
		if (cdrom)
			snprintf(msg, size, "storage: LUN %d: the image is too small for a "
				 "CD-ROM (the kernel wants 300 sectors of 2048 bytes, 600 KiB; "
				 "it has %llu bytes); nothing was changed", lun,
				 (unsigned long long)bytes);
		else
			snprintf(msg, size, "storage: LUN %d: the image is too small (the "
				 "kernel wants at least one sector of %u bytes; it has %llu); "
				 "nothing was changed", lun, blksize, (unsigned long long)bytes);
		return -EINVAL;
	}
	return 0;
}

/*
 * The insert failed after the old medium went out: cdrom and ro as they
 * were, and the LUN left empty. The old medium is never opened again by
 * the name the kernel shows (lun.N/file): that is a path string, which
 * for a deleted file ends in " (deleted)" and can then name whatever a
 * member of group planted under that name, and which the kernel would
 * open as gadgetd, following links. storage_precheck() makes this path
 * rare.
 */
static void storage_left_empty(int fdir, int lun, bool cdrom, bool ro)
{
	storage_attr_write(fdir, lun, "cdrom", cdrom ? "1" : "0");
	storage_attr_write(fdir, lun, "ro", ro ? "1" : "0");
}

int storage_insert(int fdir, int lun, int fd, bool cdrom, bool ro,
		   const struct storage_cred *as, char *msg, size_t size)
{
	char old[4096], proc[64];
	bool was_cdrom, was_ro;
	const char *lost;
	int r;

	r = storage_lun_check(fdir, lun, msg, size);
	if (r < 0)
		return r;
	r = storage_precheck(fd, lun, cdrom, as, msg, size);
	if (r < 0)
		return r;
	r = storage_attr_read(fdir, lun, "file", old, sizeof(old));
	if (r < 0) {
		snprintf(msg, size, "storage: LUN %d: cannot read its file: %s", lun,
			 strerror(-r));
		return r;
	}
	was_cdrom = storage_attr_bool(fdir, lun, "cdrom");
	was_ro = storage_attr_bool(fdir, lun, "ro");
	/* The kernel changes cdrom and ro only with no medium in. */
	if (old[0] && (r = storage_close(fdir, lun, NULL, msg, size)) < 0)
		return r;
	r = storage_attr_write(fdir, lun, "cdrom", cdrom ? "1" : "0");
	if (r == 0)
		r = storage_attr_write(fdir, lun, "ro", ro || cdrom ? "1" : "0");
	/* The kernel opens the very file checked, by its descriptor in
	 * gadgetd, with the credentials of the write (it runs in gadgetd's
	 * context): a member's, or gadgetd's own. Read-write if it may,
	 * else read-only (EACCES and EROFS make it fall back). */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (r == 0)
		r = storage_attr_write_as(fdir, lun, "file", proc, as);
	if (r == 0)
		return 0;
	lost = old[0] ? "; the LUN is empty now (gadgetd never puts a medium "
			"back by its name): insert the previous one again" : "";
	if (r == -STORAGE_ETOOSMALL) {
		snprintf(msg, size, "storage: LUN %d: the kernel found the image too "
			 "small%s", lun, lost);
		r = -EINVAL;
	} else {
		snprintf(msg, size, "storage: LUN %d: cannot insert the image: %s%s", lun,
			 strerror(-r), lost);
	}
	storage_left_empty(fdir, lun, was_cdrom, was_ro);
	return r;
}

int storage_eject(int fdir, int lun, bool force, char *msg, size_t size)
{
	int r = storage_lun_check(fdir, lun, msg, size);

	if (r < 0)
		return r;
	if (!force)
		return storage_close(fdir, lun, NULL, msg, size);
	r = storage_attr_write(fdir, lun, "forced_eject", "1");
	if (r == -ENOENT)
		snprintf(msg, size, "storage: LUN %d: this kernel has no forced_eject "
			 "(Linux 5.19)", lun);
	else if (r < 0)
		snprintf(msg, size, "storage: LUN %d: forced eject: %s", lun, strerror(-r));
	return r;
}

int storage_luns(int fdir)
{
	char path[32];
	struct stat st;
	int n;

	for (n = 0; n < STORAGE_MAX_LUNS; n++) {
		snprintf(path, sizeof(path), "lun.%d", n);
		if (fstatat(fdir, path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			break;
	}
	return n;
}

/* What a member is shown of a LUN's file: its name only beneath
 * media_dir. The kernel's name is canonical (no links, no ".."). */
static const char *storage_shown(const char *file, bool confined,
				 const char *media_dir)
{
	const char *rel;

	if (!confined || !file[0])
		return file;
	rel = media_dir && file[0] == '/' ? storage_below(media_dir, file) : NULL;
	return rel && *rel ? file : "a medium outside media_dir";
}

void storage_status(int fdir, const char *name, bool confined,
		    const char *media_dir, FILE *out)
{
	char file[4096];
	const char *shown;
	int lun, n = storage_luns(fdir);

	for (lun = 0; lun < n; lun++) {
		if (storage_attr_read(fdir, lun, "file", file, sizeof(file)) < 0)
			shown = "(unreadable)";
		else
			shown = file[0] ? storage_shown(file, confined, media_dir) : "no medium";
		fprintf(out, "%s lun.%d: %s%s%s%s\n", name, lun, shown,
			storage_attr_bool(fdir, lun, "cdrom") ? ", cdrom" : "",
			storage_attr_bool(fdir, lun, "ro") ? ", ro" : "",
			storage_attr_bool(fdir, lun, "removable") ? ", removable" : "");
	}
}
