/* gadgetd/gadget/udc.c against a faked sysfs: /sys/class/udc is a temporary
 * folder (opendir, fopen and access wrapped, other paths untouched), and
 * the kernel's uevent socket a datagram socketpair (socket and bind
 * wrapped for AF_NETLINK). Checks which UDC "auto" and a name pick, what
 * state and speed say when a UDC is gone, when a UDC counts as
 * registered, and that only udc uevents wake the monitor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"
#include "run_until.h"
#include "udc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYS_UDC "/sys/class/udc"

/* The temporary folder that stands for /sys/class/udc: TOP/udc, which
 * the tests make as they need it (or not). */
static char fake_top[64], fake_root[80];

/* PATH under /sys/class/udc, redirected into fake_root (buf), else PATH. */
static const char *fake_path(const char *path, char *buf, size_t size)
{
	size_t n = strlen(SYS_UDC);

	if (!fake_root[0] || strncmp(path, SYS_UDC, n) || (path[n] && path[n] != '/'))
		return path;
	snprintf(buf, size, "%s%s", fake_root, path + n);
	return buf;
}

DIR *__real_opendir(const char *path);
DIR *__wrap_opendir(const char *path);
FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__real_fopen64(const char *path, const char *mode);
FILE *__wrap_fopen64(const char *path, const char *mode);
int __real_access(const char *path, int mode);
int __wrap_access(const char *path, int mode);
int __real_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol);
int __real_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len);

DIR *__wrap_opendir(const char *path)
{
	char buf[512];

	return __real_opendir(fake_path(path, buf, sizeof(buf)));
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
	char buf[512];

	return __real_fopen(fake_path(path, buf, sizeof(buf)), mode);
}

/* With _FILE_OFFSET_BITS=64, glibc's headers turn udc.c's fopen into fopen64. */
FILE *__wrap_fopen64(const char *path, const char *mode)
{
	char buf[512];

	return __real_fopen64(fake_path(path, buf, sizeof(buf)), mode);
}

int __wrap_access(const char *path, int mode)
{
	char buf[512];

	return __real_access(fake_path(path, buf, sizeof(buf)), mode);
}

/* The kernel's end of the uevent socket, -1 before udc_monitor_new(). */
static int kernel_end = -1;
static int monitor_end = -1;
static int fake_socket_errno;

int __wrap_socket(int domain, int type, int protocol)
{
	int sv[2];

	if (domain != AF_NETLINK)
		return __real_socket(domain, type, protocol);
	if (fake_socket_errno) {
		errno = fake_socket_errno;
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return -1;
	kernel_end = sv[0];
	monitor_end = sv[1];
	return sv[1];
}

int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (fd == monitor_end && sa->sa_family == AF_NETLINK)
		return 0;
	return __real_bind(fd, sa, len);
}

/* mkdir -p ROOT/REL (REL's last part too). */
static void mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	for (p = path + strlen(fake_top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	f = __real_fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}


static int setup(void **state)
{
	snprintf(fake_top, sizeof(fake_top), "/tmp/test_udc.XXXXXX");
	assert_non_null(mkdtemp(fake_top));
	snprintf(fake_root, sizeof(fake_root), "%s/udc", fake_top);
	return 0;
}

static int teardown(void **state)
{
	rm_tree(fake_top);
	fake_root[0] = '\0';
	return 0;
}

static void add_udc(const char *name)
{
	mkdirs(name);
}

static void test_pick_auto_prefers_a_real_udc(void **state)
{
	char udc[64] = "";

	add_udc("dummy_udc.0");
	add_udc("fe980000.usb");
	add_udc("dummy_udc.1");
	assert_int_equal(udc_pick("auto", udc, sizeof(udc)), 0);
	assert_string_equal(udc, "fe980000.usb");
}

static void test_pick_auto_first_in_name_order(void **state)
{
	char udc[64] = "";

	/* Made in reverse: readdir's order must not matter. */
	add_udc("b.usb");
	add_udc("a.usb");
	add_udc("dummy_udc.0");
	assert_int_equal(udc_pick("auto", udc, sizeof(udc)), 0);
	assert_string_equal(udc, "a.usb");
}

/* Every UDC, sorted, up to max; a name that does not fit is left out. */
static void test_list(void **state)
{
	char names[3][16];
	char big[64];

	assert_int_equal(udc_list(names[0], sizeof(names[0]), 3), 0);
	add_udc("b.usb");
	add_udc("dummy_udc.0");
	add_udc("a.usb");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	add_udc(big);
	assert_int_equal(udc_list(names[0], sizeof(names[0]), 3), 3);
	assert_string_equal(names[0], "a.usb");
	assert_string_equal(names[1], "b.usb");
	assert_string_equal(names[2], "dummy_udc.0");
	assert_int_equal(udc_list(names[0], sizeof(names[0]), 2), 2);
}

static void test_pick_auto_dummy_when_alone(void **state)
{
	char udc[64] = "";

	add_udc("dummy_udc.1");
	add_udc("dummy_udc.0");
	assert_int_equal(udc_pick("auto", udc, sizeof(udc)), 0);
	assert_string_equal(udc, "dummy_udc.0");
}

static void test_pick_named(void **state)
{
	char udc[64] = "untouched";

	add_udc("dummy_udc.0");
	add_udc("fe980000.usb");
	assert_int_equal(udc_pick("dummy_udc.0", udc, sizeof(udc)), 0);
	assert_string_equal(udc, "dummy_udc.0");
	/* A name that is not there is not replaced by another UDC. */
	snprintf(udc, sizeof(udc), "untouched");
	assert_int_equal(udc_pick("dummy_udc.7", udc, sizeof(udc)), -ENODEV);
	assert_string_equal(udc, "untouched");
	/* Nor is a prefix of a name taken for it. */
	assert_int_equal(udc_pick("fe98", udc, sizeof(udc)), -ENODEV);
}

static void test_pick_none(void **state)
{
	char udc[64] = "untouched";

	/* No /sys/class/udc at all (no UDC driver loaded). */
	assert_int_equal(udc_pick("auto", udc, sizeof(udc)), -ENODEV);
	/* An empty one. */
	mkdirs("");
	assert_int_equal(udc_pick("auto", udc, sizeof(udc)), -ENODEV);
	assert_int_equal(udc_pick("dummy_udc.0", udc, sizeof(udc)), -ENODEV);
	assert_string_equal(udc, "untouched");
}

static void test_state_and_speed(void **state)
{
	char buf[64];

	add_udc("dummy_udc.0");
	put("dummy_udc.0/state", "configured\n");
	put("dummy_udc.0/current_speed", "high-speed\n");
	udc_state("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "configured");
	udc_speed("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "high-speed");
	/* A value longer than the buffer is cut, never overrun. */
	put("dummy_udc.0/state", "not attached\n");
	udc_state("dummy_udc.0", buf, 4);
	assert_string_equal(buf, "not");
}

static void test_state_of_a_vanished_udc(void **state)
{
	char buf[64];

	mkdirs("");
	/* Gone: "absent", so that status says why nothing is bound. */
	udc_state("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "absent");
	/* There, but its attributes unreadable: "unknown". */
	add_udc("dummy_udc.0");
	udc_state("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "unknown");
	udc_speed("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "unknown");
}

/* The gadget that holds the UDC, "" when none: how gadgetd tells a UDC
 * in use from a function that failed to bind (both EBUSY). */
static void test_function(void **state)
{
	char buf[64];

	add_udc("dummy_udc.0");
	udc_function("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "");
	put("dummy_udc.0/function", "");
	udc_function("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "");
	put("dummy_udc.0/function", "g1\n");
	udc_function("dummy_udc.0", buf, sizeof(buf));
	assert_string_equal(buf, "g1");
}

static void test_registered(void **state)
{
	/* Announced, its gadget device not added yet. */
	add_udc("dummy_udc.0");
	assert_false(udc_registered("dummy_udc.0"));
	mkdirs("dummy_udc.0/device/power");
	mkdirs("dummy_udc.0/device/gadgets");
	assert_false(udc_registered("dummy_udc.0"));
	/* Linux 6.0 and later: gadget.N on the gadget bus. */
	mkdirs("dummy_udc.0/device/gadget.0");
	assert_true(udc_registered("dummy_udc.0"));
	/* Before 6.0: "gadget". */
	mkdirs("fe980000.usb/device/gadget");
	assert_true(udc_registered("fe980000.usb"));
	assert_false(udc_registered("nosuch"));
}

static int changes;

static void on_change(void *data)
{
	changes++;
}

static void uevent(const char *msg, size_t len)
{
	assert_int_equal(send(kernel_end, msg, len, 0), (ssize_t)len);
}

#define UEVENT(s) uevent(s, sizeof(s) - 1)

static void test_monitor_wakes_on_udc_uevents_only(void **state)
{
	struct loop *l = loop_new();
	struct udc_monitor *m;

	changes = 0;
	m = udc_monitor_new(l, on_change, NULL);
	assert_non_null(m);
	assert_true(kernel_end >= 0);
	UEVENT("add@/devices/platform/dummy_udc.0/udc/dummy_udc.0\0ACTION=add\0"
	       "DEVPATH=/devices/platform/dummy_udc.0/udc/dummy_udc.0\0SUBSYSTEM=udc\0SEQNUM=1\0");
	RUN_UNTIL(l, changes >= 1);
	assert_int_equal(changes, 1);
	/* Other subsystems, and keys that only look alike: these are queued
	 * before the round, which reads all that waits. */
	UEVENT("add@/devices/platform/dummy_hcd.0/usb1\0ACTION=add\0SUBSYSTEM=usb\0");
	UEVENT("change@/x\0ACTION=change\0SUBSYSTEM=udcx\0");
	UEVENT("change@/x\0ACTION=change\0XSUBSYSTEM=udc\0");
	UEVENT("change@/x\0ACTION=change\0DEVPATH=/udc/SUBSYSTEM=udc/x\0");
	loop_dispatch(l, 100);
	assert_int_equal(changes, 1);
	/* The last pair without its NUL still counts; a removal too. */
	UEVENT("remove@/devices/platform/dummy_udc.0/udc/dummy_udc.0\0ACTION=remove\0SUBSYSTEM=udc");
	RUN_UNTIL(l, changes >= 2);
	assert_int_equal(changes, 2);
	/* Several queued at once: each one. */
	UEVENT("add@/a\0SUBSYSTEM=udc\0");
	UEVENT("add@/b\0SUBSYSTEM=udc\0");
	RUN_UNTIL(l, changes >= 4);
	assert_int_equal(changes, 4);
	udc_monitor_free(m);
	close(kernel_end);
	kernel_end = -1;
	loop_free(l);
}

static void test_monitor_without_uevents(void **state)
{
	struct loop *l = loop_new();

	/* No netlink (a container): no monitor, and no fd left open. */
	fake_socket_errno = EPERM;
	assert_null(udc_monitor_new(l, on_change, NULL));
	fake_socket_errno = 0;
	udc_monitor_free(NULL);
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pick_auto_prefers_a_real_udc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pick_auto_first_in_name_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pick_auto_dummy_when_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pick_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pick_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_and_speed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_of_a_vanished_udc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registered, setup, teardown),
		cmocka_unit_test(test_monitor_wakes_on_udc_uevents_only),
		cmocka_unit_test(test_monitor_without_uevents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
