/*
 * gadgetd/supervisor/supervisor_tcp.c: which workers get listening sockets,
 * what a worker may ask for (only the profile's tcpip = true lets it), and
 * the hand-over (WORKER_LISTEN with SCM_RIGHTS), over a real socketpair.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "loop.h"
#include "supervisor.h"
#include "supervisor_int.h"
#include "wmsg.h"

static struct supervisor sup;
static struct sup_worker wk;
static int worker_end = -1;
static unsigned asked;
/* The worker's process: common/child.c's child_pid(), faked here. */
static pid_t wk_pid;

pid_t child_pid(const struct child *c)
{
	return c ? *(const pid_t *)c : 0;
}

/* A run of the worker with pid (0: none runs). */
static void wk_run(pid_t pid)
{
	wk_pid = pid;
	wk.child = pid ? (struct child *)&wk_pid : NULL;
}

/* supervisor.c's, for the one worker here. */
struct sup_worker *supervisor_find(struct supervisor *s, const char *name)
{
	return strcmp(name, wk.name) ? NULL : &wk;
}

static void on_tcp(const char *function, void *data)
{
	asked++;
}

/* A worker of function "adb", of plugin (NULL: "adb"), with options (key,
 * value pairs). */
static void setup_worker_of(const char *plugin, const char *const *opts)
{
	static struct profile_function f;
	static char keys[8][32], values[8][32];
	unsigned i;
	int sv[2];

	memset(&f, 0, sizeof(f));
	for (i = 0; opts && opts[2 * i]; i++) {
		strcpy(keys[i], opts[2 * i]);
		strcpy(values[i], opts[2 * i + 1]);
		f.options[i] = (struct profile_option){ .key = keys[i], .value = values[i] };
	}
	f.n_options = i;
	memset(&sup, 0, sizeof(sup));
	sup.loop = loop_new();
	memset(&wk, 0, sizeof(wk));
	wk.sup = &sup;
	strcpy(wk.name, "adb");
	snprintf(wk.plugin, sizeof(wk.plugin), "%s", plugin ? plugin : "adb");
	wk_run(1234);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	wk.sock = loop_add_fd(sup.loop, sv[0], EPOLLIN, NULL, NULL);
	worker_end = sv[1];
	supervisor_tcp_init(&wk, &f);
	supervisor_tcp_set_fn(&sup, on_tcp, NULL);
	asked = 0;
}

static void setup_worker(const char *const *opts)
{
	setup_worker_of(NULL, opts);
}

static void teardown_worker(void)
{
	loop_watch_remove(wk.sock);
	loop_free(sup.loop);
	close(worker_end);
}

static void request(uint32_t port)
{
	uint8_t buf[16], *payload;
	uint16_t type;
	size_t len;
	int n = wmsg_build_u32(buf, sizeof(buf), WORKER_TCP, port);

	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	supervisor_tcp_request(&wk, payload, len);
}

/* The profile's port; a worker without tcpip = true asks in vain. */
static void test_request_refused(void **state)
{
	static const char *const opts[] = { "tcp", "5555", NULL };
	const char *iface = "x";

	setup_worker(opts);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 5555);
	assert_string_equal(iface, "");
	request(6000);
	request(0);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 5555);
	assert_int_equal(asked, 0);
	teardown_worker();
}

/* The option names are adb's declaration's (plugin_meta.tcp): a plugin
 * that declares no TCP gets no port from options of those names. */
static void test_undeclared_plugin(void **state)
{
	static const char *const opts[] = { "tcp", "5555", "tcpip", "true", NULL };
	const char *iface = "x";

	setup_worker_of("echo", opts);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 0);
	request(6000);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 0);
	assert_int_equal(asked, 0);
	teardown_worker();
}

static void test_request_allowed(void **state)
{
	static const char *const opts[] = { "tcpip", "true",
					    "tcp_interface", "*", NULL };
	const char *iface;
	uint8_t bad[2] = { 1, 2 };

	setup_worker(opts);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 0);
	assert_string_equal(iface, "*");
	request(5555);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 5555);
	assert_int_equal(asked, 1);
	request(5555); /* the same again: nothing to do */
	assert_int_equal(asked, 1);
	request(70000);
	supervisor_tcp_request(&wk, bad, sizeof(bad));
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 5555);
	request(0);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 0);
	assert_int_equal(asked, 2);
	teardown_worker();
}

/* A port below 1024 only if the profile names it (its tcp): gadgetd
 * binds as root, and a subverted worker may ask for anything. */
static void test_request_privileged(void **state)
{
	static const char *const opts[] = { "tcpip", "true", NULL };
	static const char *const opts_555[] = { "tcpip", "true", "tcp", "555",
						NULL };
	const char *iface;

	setup_worker(opts);
	request(80);
	request(1023);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 0);
	assert_int_equal(asked, 0);
	request(1024);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 1024);
	assert_int_equal(asked, 1);
	teardown_worker();

	setup_worker(opts_555);
	request(0);
	request(555);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 555);
	request(554);
	assert_int_equal(supervisor_tcp_port(&sup, "adb", &iface), 555);
	assert_int_equal(asked, 2);
	teardown_worker();
}

/* The sockets arrive with the port, and the same again is not due. */
static void test_listen_handover(void **state)
{
	static const char *const opts[] = { "tcp", "5555", NULL };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(WMSG_MAX_FDS * sizeof(int))];
	} ctl;
	uint8_t buf[64], *payload;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	uint16_t type;
	uint32_t port;
	size_t len;
	ssize_t n;
	int fds[2], got[2];

	setup_worker(opts);
	/* A new worker with no port is told nothing. */
	assert_int_equal(supervisor_tcp_listening(&sup, "adb"), 0);
	assert_false(supervisor_tcp_due(&sup, "adb", "0@"));
	assert_true(supervisor_tcp_due(&sup, "adb", "5555@usb0"));
	assert_false(supervisor_tcp_due(&sup, "nope", "5555@usb0"));
	fds[0] = open("/dev/null", O_RDONLY);
	fds[1] = open("/dev/null", O_RDONLY);
	assert_int_equal(supervisor_tcp_listen(&sup, "adb", 5555, fds, 2,
					       "5555@usb0,usb1"), 0);
	/* Ours are closed; the worker's copies arrived. */
	assert_int_equal(fcntl(fds[0], F_GETFD), -1);
	n = recvmsg(worker_end, &mh, MSG_DONTWAIT);
	assert_true(n > 0);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_LISTEN);
	assert_int_equal(wmsg_parse_u32(payload, len, &port), 0);
	assert_int_equal(port, 5555);
	c = CMSG_FIRSTHDR(&mh);
	assert_non_null(c);
	assert_int_equal(c->cmsg_type, SCM_RIGHTS);
	assert_int_equal(c->cmsg_len, CMSG_LEN(2 * sizeof(int)));
	memcpy(got, CMSG_DATA(c), sizeof(got));
	close(got[0]);
	close(got[1]);
	assert_false(supervisor_tcp_due(&sup, "adb", "5555@usb0,usb1"));
	assert_true(supervisor_tcp_due(&sup, "adb", "0@"));
	/* What it listens on, for mDNS: the port, while this run has it. */
	assert_int_equal(supervisor_tcp_listening(&sup, "adb"), 5555);
	assert_int_equal(supervisor_tcp_listening(&sup, "nope"), 0);
	/* A new run of the worker gets them again. */
	wk_run(4321);
	assert_int_equal(supervisor_tcp_listening(&sup, "adb"), 0);
	assert_true(supervisor_tcp_due(&sup, "adb", "5555@usb0,usb1"));
	/* No running worker: the fds are closed all the same. */
	wk_run(0);
	fds[0] = open("/dev/null", O_RDONLY);
	assert_int_equal(supervisor_tcp_listen(&sup, "adb", 5555, fds, 1, "x"),
			 -ESRCH);
	assert_int_equal(fcntl(fds[0], F_GETFD), -1);
	teardown_worker();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_refused),
		cmocka_unit_test(test_undeclared_plugin),
		cmocka_unit_test(test_request_allowed),
		cmocka_unit_test(test_request_privileged),
		cmocka_unit_test(test_listen_handover),
	};

	log_init("test_supervisor_tcp", true, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
