/* gadgetd/notify.c against a fake systemd: a unix datagram socket of the
 * test's own, named by NOTIFY_SOCKET (a path, or abstract with "@"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"
#include "notify.h"
#include "run_until.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[128];
	int fd;
};

static int bind_dgram(const char *name, bool abstract)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t sl = offsetof(struct sockaddr_un, sun_path) + strlen(name) +
		       (abstract ? 1 : 0);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path + (abstract ? 1 : 0), name, strlen(name));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sl), 0);
	return fd;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_notify.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/notify", f->dir);
	f->fd = bind_dgram(f->path, false);
	setenv("NOTIFY_SOCKET", f->path, 1);
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return 0;
}

/* The next datagram waiting on fd, or "" if none. */
static void next_msg(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
}

static void test_ready_to_path(void **state)
{
	struct fixture *f = *state;
	char buf[64];

	assert_int_equal(notify_send("READY=1"), 0);
	next_msg(f->fd, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1");
	next_msg(f->fd, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_ready_to_abstract(void **state)
{
	char name[64], env[80], buf[64];
	int fd;

	snprintf(name, sizeof(name), "test_notify.%d", (int)getpid());
	fd = bind_dgram(name, true);
	snprintf(env, sizeof(env), "@%s", name);
	setenv("NOTIFY_SOCKET", env, 1);
	assert_int_equal(notify_send("STOPPING=1"), 0);
	next_msg(fd, buf, sizeof(buf));
	assert_string_equal(buf, "STOPPING=1");
	close(fd);
}

/* No socket: started by hand, nothing to do. A bad one: refused. */
static void test_no_or_bad_socket(void **state)
{
	char longp[200];

	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(notify_send("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(notify_send("READY=1"), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longp, 1);
	assert_int_equal(notify_send("READY=1"), -EINVAL);
	setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
	assert_int_equal(notify_send("READY=1"), -ENOENT);
}

static void test_watchdog_env(void **state)
{
	char pid[32];
	uint64_t us = 0;

	assert_int_equal(notify_watchdog_usec(&us), -ENOENT);
	setenv("WATCHDOG_USEC", "30000000", 1);
	assert_int_equal(notify_watchdog_usec(&us), 0);
	assert_int_equal(us, 30000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_usec(&us), 0);
	/* Another process's watchdog (we inherited its environment). */
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_usec(&us), -ENOENT);
	setenv("WATCHDOG_PID", "12x", 1);
	assert_int_equal(notify_watchdog_usec(&us), -EINVAL);
	unsetenv("WATCHDOG_PID");
	static const char *const bad[] = { "", "0", "-5", "12x", " 12", "1e6",
					   "99999999999999999999", "0x10" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		setenv("WATCHDOG_USEC", bad[i], 1);
		if (notify_watchdog_usec(&us) != -EINVAL)
			fail_msg("WATCHDOG_USEC=\"%s\" accepted", bad[i]);
	}
}

/* WATCHDOG=1 from the loop's timer, every half interval. */
static void test_watchdog_pings(void **state)
{
	struct fixture *f = *state;
	struct notify_watchdog *wd;
	struct loop *l = loop_new();
	char pid[32], buf[64];
	uint64_t start, end;
	int n = 0;

	assert_null(notify_watchdog_new(l));
	assert_int_equal(errno, ENOENT);
	setenv("WATCHDOG_USEC", "200000", 1);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	/* Every 100 ms: four pings take at least 400 ms (a timer never fires
	 * early), counted from before the timer is armed (a stall after it
	 * would shorten what is measured), and arrive within RUN_UNTIL_MS
	 * however loaded the machine (a window of 550 ms once saw 3 under a
	 * loaded make check). */
	start = loop_now_ms();
	wd = notify_watchdog_new(l);
	assert_non_null(wd);
	/* Nothing before the loop runs. */
	next_msg(f->fd, buf, sizeof(buf));
	assert_string_equal(buf, "");
	end = start + RUN_UNTIL_MS;
	while (n < 4 && loop_now_ms() < end) {
		loop_dispatch(l, 20);
		for (next_msg(f->fd, buf, sizeof(buf)); buf[0];
		     next_msg(f->fd, buf, sizeof(buf))) {
			assert_string_equal(buf, "WATCHDOG=1");
			n++;
		}
	}
	assert_int_equal(n, 4);
	assert_true(loop_now_ms() - start >= 390);
	notify_watchdog_free(wd);
	end = loop_now_ms() + 250;
	while (loop_now_ms() < end)
		loop_dispatch(l, 20);
	next_msg(f->fd, buf, sizeof(buf));
	assert_string_equal(buf, "");
	setenv("WATCHDOG_USEC", "junk", 1);
	assert_null(notify_watchdog_new(l));
	assert_int_equal(errno, EINVAL);
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ready_to_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ready_to_abstract, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_or_bad_socket, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_pings, setup, teardown),
	};

	return cmocka_run_group_tests_name("notify", tests, NULL, NULL);
}
