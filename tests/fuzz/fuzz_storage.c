/*
 * libFuzzer target: `gadgetctl storage ...` as gadgetd reads it
 * (gadgetd/storage/storage.c through storage.h only): storage_parse() on the
 * request's arguments, storage_open_image() on the image it names,
 * against a real tree on tmpfs with every way out of media_dir in it,
 * and storage_status() on LUN files the kernel might show, as a member
 * of group (confined) or root sees them.
 *
 * Input: byte 0: bit 0, the request is a member's (confined); bits 1-3,
 * the even LUNs' cdrom, ro and removable (the odd ones get the others).
 * The rest is strings split at NUL: media_dir ("" for none), then the
 * request's argv up to a string "\x01", then what each LUN's file shows
 * (at most FUZZ_STORAGE_LUNS). A string starting with '@' starts with
 * the scratch tree's path instead (so "@/media" is the real media_dir):
 *
 *   media/a.img  media/sub/b.img      regular files beneath media_dir
 *   media/dir/   media/fifo           neither a file nor a device
 *   media/link.img -> a.img           a link, even to a file beneath
 *   media/up.img -> ../outside.img    a link out, relative and absolute:
 *   media/abs.img -> ROOT/outside.img
 *   media2/c.img                      a sibling with media_dir's prefix
 *   medialink -> media                media_dir by a link ("@/medialink")
 *   outside.img
 *
 * What must hold:
 *   - a parse that succeeds names an op argv[0] names, a LUN 0..15, an
 *     image (insert only) and a function that are argv's own strings;
 *     one that fails says why;
 *   - an image opened for a member, or by a relative name, is a regular
 *     file or a device whose real path is beneath media_dir's; a refusal
 *     says why; no descriptor is left open;
 *   - status prints one line per LUN, and a member sees a LUN's path only
 *     when it is beneath media_dir ("a medium outside media_dir" else).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_runtime.h"
#include "storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_STORAGE_ARGS 64
#define FUZZ_STORAGE_LUNS 4

static char root[128]; /* /dev/shm/fuzz_storage.PID */
static int fdir = -1, fd_floor = -1;

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

static void dir(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, name);
	if (mkdir(p, 0700) < 0)
		abort();
}

static void setup_once(void)
{
	char p[PATH_MAX], target[PATH_MAX];

	if (fdir >= 0)
		return;
	snprintf(root, sizeof(root), "%s", fuzz_rt_scratch("fuzz_storage"));
	dir("media");
	dir("media/sub");
	dir("media/dir");
	dir("media2");
	dir("lun");
	put("media/a.img", "image a");
	put("media/sub/b.img", "image b");
	put("media2/c.img", "image c");
	put("outside.img", "not for members");
	snprintf(p, sizeof(p), "%s/media/fifo", root);
	if (mkfifo(p, 0600) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/media/link.img", root);
	if (symlink("a.img", p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/media/up.img", root);
	if (symlink("../outside.img", p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/media/abs.img", root);
	snprintf(target, sizeof(target), "%s/outside.img", root);
	if (symlink(target, p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/medialink", root);
	if (symlink("media", p) < 0)
		abort();
	for (int i = 0; i < FUZZ_STORAGE_LUNS; i++) {
		snprintf(p, sizeof(p), "lun/lun.%d", i);
		dir(p);
	}
	snprintf(p, sizeof(p), "%s/lun", root);
	fdir = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fdir < 0)
		abort();
	/* The lowest free descriptor: a leak moves it. */
	fd_floor = dup(0);
	close(fd_floor);
}

/* s with a leading '@' replaced by the scratch tree's path. */
static const char *expand(const char *s, char *buf, size_t size)
{
	if (s[0] != '@')
		return s;
	snprintf(buf, size, "%s%s", root, s + 1);
	return buf;
}

static void check_parse(int argc, char **argv, const struct storage_req *req,
			int r, const char *msg)
{
	static const char *const ops[] = { NULL, "status", "insert", "eject" };
	bool fn_own = !req->function, img_own = !req->image;

	if (r < 0) {
		if (r != -EINVAL || !msg[0])
			abort();
		return;
	}
	if (r != 0 || argc < 1 || req->op == STORAGE_NONE || (unsigned)req->op > STORAGE_EJECT ||
	    strcmp(argv[0], ops[req->op]) || req->lun < 0 || req->lun >= STORAGE_MAX_LUNS)
		abort();
	for (int i = 1; i < argc; i++) {
		fn_own |= req->function == argv[i];
		img_own |= req->image == argv[i];
	}
	if (!fn_own || !img_own || (req->op == STORAGE_INSERT) != !!req->image)
		abort();
	if ((req->cdrom || req->ro) && req->op != STORAGE_INSERT)
		abort();
	if (req->force && req->op != STORAGE_EJECT)
		abort();
}

/* Whether the real path of what fd holds lies beneath media_dir's. */
static bool beneath(int fd, const char *media_dir)
{
	char proc[64], real[PATH_MAX], *dir_real;
	ssize_t n;
	size_t len;
	bool ok;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	dir_real = realpath(media_dir, NULL);
	if (n < 0 || !dir_real)
		abort(); /* it opened, so media_dir resolved */
	real[n] = '\0';
	len = strlen(dir_real);
	if (len == 1)
		len = 0; /* media_dir "/": every absolute path is beneath it */
	ok = !strncmp(real, dir_real, len) && real[len] == '/' && real[len + 1];
	free(dir_real);
	return ok;
}

static void check_open(const char *media_dir, const char *image, bool confined)
{
	char msg[1024] = "";
	struct stat st;
	int fd = storage_open_image(media_dir, image, confined, msg, sizeof(msg));

	if (fd < 0) {
		if (!msg[0])
			abort();
		return;
	}
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
		abort();
	if ((confined || image[0] != '/') && (!media_dir || !beneath(fd, media_dir)))
		abort(); /* a member's image, or a relative one, got out */
	close(fd);
}

/* What a member may be shown of a LUN's file (an oracle of its own:
 * the path beneath media_dir, with its trailing slashes dropped). */
static const char *member_view(const char *file, const char *media_dir)
{
	size_t n = media_dir ? strlen(media_dir) : 0;
	const char *rest;

	if (!file[0])
		return "no medium";
	/* "/" (n falls to 0) holds every absolute name. */
	while (n > 0 && media_dir[n - 1] == '/')
		n--;
	if (!media_dir || file[0] != '/' || strncmp(file, media_dir, n) ||
	    file[n] != '/')
		return "a medium outside media_dir";
	for (rest = file + n; *rest == '/'; rest++)
		;
	return *rest ? file : "a medium outside media_dir";
}

static void check_status(uint8_t flags, bool confined, const char *media_dir,
			 char **files, int n_files)
{
	char *out = NULL, want[8192], shown[4096], name[32];
	size_t len = 0, off = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	for (int i = 0; i < FUZZ_STORAGE_LUNS; i++) {
		bool on[3];
		const char *file = i < n_files ? files[i] : "";

		for (int k = 0; k < 3; k++) {
			on[k] = (flags >> (k + 1) & 1) ^ (i & 1);
			snprintf(name, sizeof(name), "lun/lun.%d/%s", i,
				 k == 0 ? "cdrom" : k == 1 ? "ro" : "removable");
			put(name, on[k] ? "1\n" : "0\n");
		}
		snprintf(name, sizeof(name), "lun/lun.%d/file", i);
		put(name, file);
		/* The attribute's first line, as read (4095 bytes at most). */
		snprintf(shown, sizeof(shown), "%s", file);
		shown[strcspn(shown, "\n")] = '\0';
		off += snprintf(want + off, sizeof(want) - off, "ms lun.%d: %s%s%s%s\n", i,
				!shown[0] ? "no medium" :
				confined ? member_view(shown, media_dir) : shown,
				on[0] ? ", cdrom" : "", on[1] ? ", ro" : "",
				on[2] ? ", removable" : "");
		if (off >= sizeof(want))
			abort();
	}
	storage_status(fdir, "ms", confined, media_dir, f);
	fclose(f);
	if (len != off || memcmp(out, want, len))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[16384];
	char *strs[1 + FUZZ_STORAGE_ARGS + 1 + FUZZ_STORAGE_LUNS];
	char md_buf[PATH_MAX + 64], img_buf[PATH_MAX + 64], msg[1024];
	char *argv[FUZZ_STORAGE_ARGS], *files[FUZZ_STORAGE_LUNS];
	char file_bufs[FUZZ_STORAGE_LUNS][PATH_MAX + 64];
	struct storage_req req;
	const char *media_dir;
	int n = 0, argc = 0, n_files = 0, r, i, fd;
	bool confined;

	if (size < 1 || size - 1 >= sizeof(buf))
		return 0;
	setup_once();
	confined = data[0] & 1;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (size_t k = 0, start = 0; k < size && n < (int)(sizeof(strs) / sizeof(*strs)); k++)
		if (buf[k] == '\0') {
			strs[n++] = buf + start;
			start = k + 1;
		}
	if (n == 0)
		return 0;
	media_dir = strs[0][0] ? expand(strs[0], md_buf, sizeof(md_buf)) : NULL;
	for (i = 1; i < n && strcmp(strs[i], "\x01") && argc < FUZZ_STORAGE_ARGS; i++)
		argv[argc++] = strs[i];
	for (i++; i < n && n_files < FUZZ_STORAGE_LUNS; i++, n_files++)
		files[n_files] = (char *)expand(strs[i], file_bufs[n_files],
						sizeof(file_bufs[n_files]));

	msg[0] = '\0';
	r = storage_parse(argc, argv, &req, msg, sizeof(msg));
	check_parse(argc, argv, &req, r, msg);
	if (r == 0 && req.op == STORAGE_INSERT)
		check_open(media_dir, expand(req.image, img_buf, sizeof(img_buf)), confined);
	check_status(data[0], confined, media_dir, files, n_files);

	fd = dup(0);
	if (fd != fd_floor)
		abort(); /* a descriptor was left open */
	close(fd);
	return 0;
}
