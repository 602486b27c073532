/*
 * gadgetd/net/tcplisten.c: the listening sockets gadgetd hands to a worker.
 * Real sockets on the loopback interface.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "tcplisten.h"

/* A port nothing listens on now: the kernel's pick, released. */
static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned port;

	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static int connect4(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(fd, (struct sockaddr *)&a, sizeof(a));

	close(fd);
	return r < 0 ? -errno : 0;
}

/* Non-blocking, close-on-exec, listening, IPv4 reaching it too. */
static void test_open_any(void **state)
{
	unsigned port = free_port();
	char dev[32];
	socklen_t sl = sizeof(dev);
	int fd, on = 0;
	socklen_t ol = sizeof(on);

	assert_int_equal(tcplisten_open(NULL, port, &fd), 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &ol), 0);
	assert_int_equal(on, 1);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &sl), 0);
	assert_int_equal(sl, 0);
	assert_int_equal(connect4(port), 0);
	close(fd);
	assert_int_equal(connect4(port), -ECONNREFUSED);
}

/* Bound to one interface: connections through it only. */
static void test_open_device(void **state)
{
	unsigned port = free_port();
	char dev[32] = "";
	socklen_t sl = sizeof(dev);
	int fd, again;

	assert_int_equal(tcplisten_open("lo", port, &fd), 0);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &sl), 0);
	assert_string_equal(dev, "lo");
	assert_int_equal(connect4(port), 0);
	/* The worker still holds the old one while gadgetd makes the next. */
	assert_int_equal(tcplisten_open("lo", port, &again), 0);
	close(again);
	close(fd);
	assert_int_equal(tcplisten_open("no-such-if0", port, &fd), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_any),
		cmocka_unit_test(test_open_device),
	};

	log_init("test_tcplisten", true, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
