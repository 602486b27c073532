/*
 * A ConfigFS and /sys/class/udc in a temporary folder, for code that
 * reaches them through libusbgx (tests/unit/fake_configfs.h).
 *
 * libusbgx is a shared library, so its system calls are taken over by
 * defining them here, in the test binary (the binary comes first in
 * symbol lookup): mkdir() of a gadget, configuration or function makes
 * the default groups and attribute files the kernel would make, rmdir()
 * takes them away again (and fails, like ConfigFS, while something the
 * user made is left inside), and scandir()/opendir() of /sys/class/udc
 * list fake_configfs_udc()'s folder. Everything else is the real call.
 *
 * The definitions must carry the names libusbgx calls (scandir, not the
 * scandir64 that 64-bit file offsets would rename them to).
 */
#undef _FILE_OFFSET_BITS
#undef _TIME_BITS
#include "fake_configfs.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <usbg/usbg.h>

static char top[64], cfs[96], udc_dir[96];
static char refuse_type[32], refuse_attr[64];

static int sys_mkdir(const char *p, mode_t m)
{
	return syscall(SYS_mkdirat, AT_FDCWD, p, m);
}

static int sys_rmdir(const char *p)
{
	return syscall(SYS_unlinkat, AT_FDCWD, p, AT_REMOVEDIR);
}

static void put(const char *dir, const char *name, const char *val)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		perror(p);
	close(fd);
}

static void sub(const char *dir, const char *name)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	sys_mkdir(p, 0755);
}

static void make_gadget(const char *g)
{
	static const char *const attrs[][2] = {
		{ "UDC", "\n" }, { "bcdUSB", "0x0200\n" }, { "bDeviceClass", "0x00\n" },
		{ "bDeviceSubClass", "0x00\n" }, { "bDeviceProtocol", "0x00\n" },
		{ "bMaxPacketSize0", "0x40\n" }, { "idVendor", "0x0000\n" },
		{ "idProduct", "0x0000\n" }, { "bcdDevice", "0x0100\n" },
		{ "max_speed", "super-speed-plus\n" },
	};
	char os[1024];
	unsigned i;

	sub(g, "configs");
	sub(g, "functions");
	sub(g, "strings");
	sub(g, "os_desc");
	sub(g, "webusb");
	for (i = 0; i < sizeof(attrs) / sizeof(*attrs); i++)
		put(g, attrs[i][0], attrs[i][1]);
	snprintf(os, sizeof(os), "%s/os_desc", g);
	put(os, "use", "0\n");
	put(os, "b_vendor_code", "0x00\n");
	put(os, "qw_sign", "\n");
}

static void make_net(const char *f)
{
	put(f, "dev_addr", "02:00:00:00:00:01\n");
	put(f, "host_addr", "02:00:00:00:00:02\n");
	put(f, "ifname", "usb0\n");
	put(f, "qmult", "5\n");
}

/* A LUN's attributes, as f_mass_storage makes them in lun.N. */
static void make_lun(const char *lun)
{
	put(lun, "cdrom", "0\n");
	put(lun, "ro", "0\n");
	put(lun, "nofua", "0\n");
	put(lun, "removable", "1\n");
	put(lun, "file", "\n");
	put(lun, "inquiry_string", "\n");
	put(lun, "forced_eject", "");
}

static void make_function(const char *f, const char *type)
{
	char lun[1024];

	if (!strcmp(type, "acm"))
		put(f, "port_num", "0\n");
	else if (!strcmp(type, "ecm"))
		make_net(f);
	else if (!strcmp(type, "rndis") || !strcmp(type, "ncm")) {
		make_net(f);
		if (!strcmp(type, "rndis")) {
			put(f, "class", "0xef\n");
			put(f, "subclass", "0x04\n");
			put(f, "protocol", "0x01\n");
		}
		/* Both offer an MS OS interface, named after the type. */
		sub(f, "os_desc");
		snprintf(lun, sizeof(lun), "%s/os_desc/interface.%s", f, type);
		sys_mkdir(lun, 0755);
		put(lun, "compatible_id", "\n");
		put(lun, "sub_compatible_id", "\n");
	} else if (!strcmp(type, "mass_storage")) {
		put(f, "stall", "1\n");
		snprintf(lun, sizeof(lun), "%s/lun.0", f);
		sys_mkdir(lun, 0755);
		make_lun(lun);
	} else if (!strcmp(type, "hid")) {
		put(f, "protocol", "0\n");
		put(f, "subclass", "0\n");
		put(f, "report_length", "0\n");
		put(f, "report_desc", "");
		put(f, "dev", "240:0\n");
		put(f, "no_out_endpoint", "0\n");
	}
	if (refuse_type[0] && !strcmp(type, refuse_type)) {
		snprintf(lun, sizeof(lun), "%s/%s", f, refuse_attr);
		unlink(lun);
		sys_mkdir(lun, 0755);
	}
}

void fake_configfs_refuse(const char *type, const char *attr)
{
	snprintf(refuse_type, sizeof(refuse_type), "%s", type);
	snprintf(refuse_attr, sizeof(refuse_attr), "%s", attr);
}

/* What a path under usb_gadget/ is: depth 1 a gadget, then
 * GADGET/configs/NAME and GADGET/functions/TYPE.INSTANCE. */
int mkdir(const char *path, mode_t mode)
{
	size_t n = strlen(cfs);
	const char *rest, *s;
	char type[64];
	int r = sys_mkdir(path, mode);

	if (r < 0 || !cfs[0] || strncmp(path, cfs, n) || path[n] != '/')
		return r;
	rest = path + n + 1;
	s = strchr(rest, '/');
	if (!s) {
		make_gadget(path);
	} else if (!strncmp(s, "/configs/", 9) && !strchr(s + 9, '/')) {
		sub(path, "strings");
		put(path, "MaxPower", "2\n");
		put(path, "bmAttributes", "0x80\n");
	} else if (!strncmp(s, "/functions/", 11) && !strchr(s + 11, '/')) {
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(s + 11, "."), s + 11);
		make_function(path, type);
	} else if (!strncmp(s, "/functions/mass_storage.", 24) && strchr(s + 24, '/') &&
		   !strncmp(strchr(s + 24, '/'), "/lun.", 5)) {
		make_lun(path);
	}
	return 0;
}

/* The kernel's items go with their folder: files, and the default
 * groups (strings, os_desc, lun.0, ...) when nothing is left in them. */
static void drop_defaults(const char *path, int depth)
{
	DIR *d = fdopendir(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	struct dirent *de;
	char p[1024];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (de->d_type == DT_REG) {
			unlink(p);
		} else if (de->d_type == DT_DIR && depth < 2 &&
			   (!strcmp(de->d_name, "configs") || !strcmp(de->d_name, "functions") ||
			    !strcmp(de->d_name, "strings") || !strcmp(de->d_name, "os_desc") ||
			    !strcmp(de->d_name, "webusb") || !strncmp(de->d_name, "lun.", 4) ||
			    !strncmp(de->d_name, "interface.", 10) ||
			    (refuse_attr[0] && !strcmp(de->d_name, refuse_attr)))) {
			drop_defaults(p, depth + 1);
			sys_rmdir(p);
		}
	}
	closedir(d);
}

int rmdir(const char *path)
{
	size_t n = strlen(cfs);
	struct stat st;

	if (cfs[0] && !strncmp(path, cfs, n) && path[n] == '/' &&
	    stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* A gadget with configurations or functions still in it
		 * stays, as in ConfigFS (ENOTEMPTY from the real rmdir). */
		drop_defaults(path, 0);
	}
	return sys_rmdir(path);
}

static const char *udc_path(const char *path, char *buf, size_t size)
{
	if (!udc_dir[0] || strncmp(path, "/sys/class/udc", 14) ||
	    (path[14] && path[14] != '/'))
		return path;
	snprintf(buf, size, "%s%s", udc_dir, path + 14);
	return buf;
}

typedef int (*scandir_fn)(const char *, struct dirent ***,
			  int (*)(const struct dirent *),
			  int (*)(const struct dirent **, const struct dirent **));

int scandir(const char *path, struct dirent ***list,
	    int (*filter)(const struct dirent *),
	    int (*cmp)(const struct dirent **, const struct dirent **))
{
	scandir_fn real = (scandir_fn)dlsym(RTLD_NEXT, "scandir");
	char buf[512];

	return real(udc_path(path, buf, sizeof(buf)), list, filter, cmp);
}

DIR *opendir(const char *path)
{
	DIR *(*real)(const char *) = (DIR * (*)(const char *))dlsym(RTLD_NEXT, "opendir");
	char buf[512];

	return real(udc_path(path, buf, sizeof(buf)));
}

const char *fake_configfs_new(void)
{
	static char config[96];
	char p[160];

	snprintf(top, sizeof(top), "/tmp/fake_configfs.XXXXXX");
	if (!mkdtemp(top))
		return NULL;
	snprintf(p, sizeof(p), "%s/config", top);
	sys_mkdir(p, 0755);
	snprintf(cfs, sizeof(cfs), "%s/config/usb_gadget", top);
	sys_mkdir(cfs, 0755);
	snprintf(udc_dir, sizeof(udc_dir), "%s/udc", top);
	sys_mkdir(udc_dir, 0755);
	snprintf(config, sizeof(config), "%s/config", top);
	return config;
}

/* The code under test names /sys/kernel/config; it gets the fake one. */
int __real_usbg_init(const char *path, usbg_state **state);
int __wrap_usbg_init(const char *path, usbg_state **state);

int __wrap_usbg_init(const char *path, usbg_state **state)
{
	char p[160];

	if (top[0] && !strcmp(path, "/sys/kernel/config")) {
		snprintf(p, sizeof(p), "%s/config", top);
		return __real_usbg_init(p, state);
	}
	return __real_usbg_init(path, state);
}

void fake_configfs_add_udc(const char *name)
{
	sub(udc_dir, name);
}

const char *fake_configfs_gadgets(void)
{
	return cfs;
}

void fake_configfs_free(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (top[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	top[0] = cfs[0] = udc_dir[0] = refuse_type[0] = '\0';
}
