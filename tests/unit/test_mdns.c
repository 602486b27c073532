/*
 * gadgetd-mdns (gadgetd/net/mdns.c: mdns_main() in a child, with the
 * program's command line and its output in a pipe, as gadgetd runs the
 * program; no exec, so qemu-user runs it too) against a fake
 * avahi-daemon: this test owns
 * org.freedesktop.Avahi on a private dbus-daemon (as test_dbus starts
 * one) and answers the few calls of avahi's D-Bus API the helper makes.
 * What it checks: the interface index, protocol, flags, name, type, port
 * and host the helper sends; its ready text, only once the fake says the
 * entry is established and never on a signal from anyone else; a
 * service's new name after a collision, and the exit after an address's;
 * its wait while avahi-daemon registers its host name; its exit when
 * avahi-daemon is absent, refuses or leaves the bus, and on SIGTERM; and
 * its command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_bus.h"
#include "mdns.h"
#include "run_until.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define AVAHI "org.freedesktop.Avahi"
#define SERVER_IFACE AVAHI ".Server"
#define GROUP_IFACE AVAHI ".EntryGroup"
#define GROUP_PATH "/Client1/EntryGroup1"

struct fixture {
	char dir[64];
	pid_t daemon;
	/* The fake avahi-daemon. */
	sd_bus *bus;
	int32_t server_state;  /* GetState's answer */
	unsigned collide;      /* commits answered with a collision */
	bool hold;             /* commits left registering */
	bool refuse;           /* AddAddress and AddService refused */
	unsigned n_add, n_commit, n_reset, n_alt;
	/* The last AddAddress or AddService. */
	char method[32], name[128], type[64], domain[64], host[128], address[64];
	int32_t iface, proto;
	uint32_t flags;
	unsigned port;
	bool txt_empty;
	/* The helper. */
	pid_t pid;
	int err;       /* its standard output and error */
	char out[8192];
	size_t out_len;
	int status;    /* its exit status, -1 while it runs */
};

/* A system-bus-like daemon where anyone may call and own names. */
static void start_daemon(struct fixture *f)
{
	f->daemon = fake_bus_start(f->dir, "<allow own=\"*\"/>", NULL);
}

static void emit_group(struct fixture *f, int32_t state)
{
	assert_true(sd_bus_emit_signal(f->bus, GROUP_PATH, GROUP_IFACE, "StateChanged",
				       "is", state, "") >= 0);
}

static int fake_group_new(sd_bus_message *m, void *data, sd_bus_error *e)
{
	return sd_bus_reply_method_return(m, "o", GROUP_PATH);
}

static int fake_get_state(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;

	return sd_bus_reply_method_return(m, "i", f->server_state);
}

/* avahi's alternative names: "NAME #2", "NAME #3"... */
static int fake_alternative(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;
	const char *name;
	char alt[160];

	assert_true(sd_bus_message_read(m, "s", &name) >= 0);
	f->n_alt++;
	snprintf(alt, sizeof(alt), "%s #%u", name, f->n_alt + 1);
	return sd_bus_reply_method_return(m, "s", alt);
}

static int fake_add_address(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;
	const char *name, *address;

	assert_true(sd_bus_message_read(m, "iiuss", &f->iface, &f->proto, &f->flags,
					&name, &address) >= 0);
	f->n_add++;
	snprintf(f->method, sizeof(f->method), "AddAddress");
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->address, sizeof(f->address), "%s", address);
	if (f->refuse)
		return sd_bus_error_set(e, AVAHI ".InvalidHostNameError", "Invalid host name");
	return sd_bus_reply_method_return(m, NULL);
}

static int fake_add_service(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;
	const char *name, *type, *domain, *host;
	uint16_t port;

	assert_true(sd_bus_message_read(m, "iiussssq", &f->iface, &f->proto, &f->flags,
					&name, &type, &domain, &host, &port) >= 0);
	assert_true(sd_bus_message_enter_container(m, 'a', "ay") >= 0);
	f->txt_empty = sd_bus_message_at_end(m, false) > 0;
	f->n_add++;
	snprintf(f->method, sizeof(f->method), "AddService");
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->type, sizeof(f->type), "%s", type);
	snprintf(f->domain, sizeof(f->domain), "%s", domain);
	snprintf(f->host, sizeof(f->host), "%s", host);
	f->port = port;
	if (f->refuse)
		return sd_bus_error_set(e, AVAHI ".InvalidServiceNameError",
					"Invalid service name");
	return sd_bus_reply_method_return(m, NULL);
}

/* As avahi-daemon: registering, then established or a collision. */
static int fake_commit(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;
	int r;

	f->n_commit++;
	r = sd_bus_reply_method_return(m, NULL);
	emit_group(f, MDNS_AVAHI_GROUP_REGISTERING);
	if (f->collide) {
		f->collide--;
		emit_group(f, MDNS_AVAHI_GROUP_COLLISION);
	} else if (!f->hold) {
		emit_group(f, MDNS_AVAHI_GROUP_ESTABLISHED);
	}
	return r;
}

static int fake_reset(sd_bus_message *m, void *data, sd_bus_error *e)
{
	struct fixture *f = data;

	f->n_reset++;
	return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable fake_server_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("EntryGroupNew", "", "o", fake_group_new, 0),
	SD_BUS_METHOD("GetState", "", "i", fake_get_state, 0),
	SD_BUS_METHOD("GetAlternativeServiceName", "s", "s", fake_alternative, 0),
	SD_BUS_SIGNAL("StateChanged", "is", 0),
	SD_BUS_VTABLE_END
};

static const sd_bus_vtable fake_group_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("AddAddress", "iiuss", "", fake_add_address, 0),
	SD_BUS_METHOD("AddService", "iiussssqaay", "", fake_add_service, 0),
	SD_BUS_METHOD("Commit", "", "", fake_commit, 0),
	SD_BUS_METHOD("Reset", "", "", fake_reset, 0),
	SD_BUS_SIGNAL("StateChanged", "is", 0),
	SD_BUS_VTABLE_END
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_mdns.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	start_daemon(f);
	assert_int_equal(sd_bus_open_system(&f->bus), 0);
	assert_true(sd_bus_add_object_vtable(f->bus, NULL, "/", SERVER_IFACE,
					     fake_server_vtable, f) >= 0);
	assert_true(sd_bus_add_object_vtable(f->bus, NULL, GROUP_PATH, GROUP_IFACE,
					     fake_group_vtable, f) >= 0);
	assert_true(sd_bus_request_name(f->bus, AVAHI, 0) >= 0);
	f->server_state = MDNS_AVAHI_SERVER_RUNNING;
	f->err = -1;
	f->status = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	if (f->pid > 0 && f->status < 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
	}
	if (f->err >= 0)
		close(f->err);
	sd_bus_flush_close_unref(f->bus);
	fake_bus_stop(&f->daemon);
	snprintf(path, sizeof(path), "%s/bus.conf", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bus", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* The helper with these arguments in a child, its output into a pipe;
 * nothing of the test's but that (the fake's bus connection closed). */
static void run(struct fixture *f, const char *const *args)
{
	char *argv[16] = { "gadgetd-mdns" };
	int p[2], i;

	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fflush(stdout);
	fflush(stderr);
	f->pid = fork();
	assert_true(f->pid >= 0);
	if (f->pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close_range(3, ~0u, 0);
		exit(mdns_main(i + 1, argv));
	}
	close(p[1]);
	f->err = p[0];
	assert_int_equal(fcntl(f->err, F_SETFL, O_NONBLOCK), 0);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One round: the fake's bus, the helper's output, its exit. */
static void pump_once(struct fixture *f)
{
	ssize_t n;

	while (sd_bus_process(f->bus, NULL) > 0)
		;
	while (f->err >= 0 && f->out_len < sizeof(f->out) - 1 &&
	       (n = read(f->err, f->out + f->out_len, sizeof(f->out) - 1 - f->out_len)) > 0)
		f->out_len += n;
	f->out[f->out_len] = '\0';
	if (f->status < 0 && f->pid > 0 && waitpid(f->pid, &f->status, WNOHANG) != f->pid)
		f->status = -1;
	sd_bus_wait(f->bus, 10000);
}

/* Until the helper said text (true) or ms passed. */
static bool wait_text(struct fixture *f, const char *text, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (!strstr(f->out, text) && now_ms() < end)
		pump_once(f);
	return strstr(f->out, text) != NULL;
}

/* Until the helper exited (its exit code) or ms passed (-1). */
static int wait_exit(struct fixture *f, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (f->status < 0 && now_ms() < end)
		pump_once(f);
	pump_once(f);
	if (f->status < 0)
		return -1;
	return WIFEXITED(f->status) ? WEXITSTATUS(f->status) : 128 + WTERMSIG(f->status);
}

static void pump_ms(struct fixture *f, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end)
		pump_once(f);
}

/* SIGTERM: it leaves at once with 0 (and no sanitizer report). */
static void stop_clean(struct fixture *f)
{
	kill(f->pid, SIGTERM);
	assert_int_equal(wait_exit(f, RUN_UNTIL_MS), 0);
}

static void assert_said(struct fixture *f, const char *text)
{
	if (!strstr(f->out, text))
		fail_msg("the helper did not say \"%s\"; it said:\n%s", text, f->out);
}

static const char *const address_args[] = { "--interface", "lo", "--address",
					     "gadgetd.local", "192.168.77.1", NULL };
static const char *const service_args[] = { "--interface", "lo", "--service", "adb-gadgetd",
					     "_adb._tcp", "5555", "--host", "gadgetd.local",
					     NULL };

/* NAME.local -> the link's address, on the link's interface only (its
 * index, both IP protocols), no reverse record. */
static void test_address(void **state)
{
	struct fixture *f = *state;

	run(f, address_args);
	assert_true(wait_text(f, MDNS_READY_TEXT " 'gadgetd.local'", RUN_UNTIL_MS));
	assert_string_equal(f->method, "AddAddress");
	assert_int_equal(f->iface, (int32_t)if_nametoindex("lo"));
	assert_int_equal(f->proto, MDNS_AVAHI_PROTO_UNSPEC);
	assert_int_equal(f->flags, MDNS_AVAHI_PUBLISH_NO_REVERSE);
	assert_string_equal(f->name, "gadgetd.local");
	assert_string_equal(f->address, "192.168.77.1");
	assert_int_equal(f->n_add, 1);
	assert_int_equal(f->n_commit, 1);
	assert_said(f, "on lo (interface ");
	stop_clean(f);
}

/* A service on the link's interface only, pointing at the link's name. */
static void test_service(void **state)
{
	struct fixture *f = *state;

	run(f, service_args);
	assert_true(wait_text(f, MDNS_READY_TEXT " 'adb-gadgetd'", RUN_UNTIL_MS));
	assert_string_equal(f->method, "AddService");
	assert_int_equal(f->iface, (int32_t)if_nametoindex("lo"));
	assert_int_equal(f->proto, MDNS_AVAHI_PROTO_UNSPEC);
	assert_int_equal(f->flags, 0);
	assert_string_equal(f->name, "adb-gadgetd");
	assert_string_equal(f->type, "_adb._tcp");
	assert_string_equal(f->domain, "");
	assert_string_equal(f->host, "gadgetd.local");
	assert_int_equal(f->port, 5555);
	assert_true(f->txt_empty);
	assert_int_equal(f->n_commit, 1);
	stop_clean(f);
}

/* A service name taken on the link: avahi's alternative, registered
 * again in the same group, as avahi-publish does. */
static void test_service_collision(void **state)
{
	struct fixture *f = *state;

	f->collide = 1;
	run(f, service_args);
	assert_true(wait_text(f, MDNS_READY_TEXT " 'adb-gadgetd #2'", RUN_UNTIL_MS));
	assert_int_equal(f->n_alt, 1);
	assert_int_equal(f->n_add, 2);
	assert_int_equal(f->n_commit, 2);
	assert_string_equal(f->name, "adb-gadgetd #2");
	assert_int_equal(f->iface, (int32_t)if_nametoindex("lo"));
	assert_said(f, "picking new name 'adb-gadgetd #2'");
	stop_clean(f);
}

/* The board's name taken by another host: never renamed (the host would
 * reach another board under it), the helper fails. */
static void test_address_collision(void **state)
{
	struct fixture *f = *state;

	f->collide = 1;
	run(f, address_args);
	assert_int_equal(wait_exit(f, RUN_UNTIL_MS), MDNS_EXIT_FAIL);
	assert_null(strstr(f->out, MDNS_READY_TEXT));
	assert_int_equal(f->n_alt, 0);
	assert_said(f, "another host on lo has the name gadgetd.local");
}

/* avahi-daemon leaves the bus (stopped, crashed): the group went with
 * it, and the helper exits for netproc to start it again. */
static void test_avahi_gone(void **state)
{
	struct fixture *f = *state;

	run(f, address_args);
	assert_true(wait_text(f, MDNS_READY_TEXT, RUN_UNTIL_MS));
	assert_true(sd_bus_release_name(f->bus, AVAHI) >= 0);
	assert_int_equal(wait_exit(f, RUN_UNTIL_MS), MDNS_EXIT_FAIL);
	assert_said(f, "avahi-daemon left the system bus");
}

static void test_avahi_absent(void **state)
{
	struct fixture *f = *state;

	assert_true(sd_bus_release_name(f->bus, AVAHI) >= 0);
	run(f, address_args);
	assert_int_equal(wait_exit(f, RUN_UNTIL_MS), MDNS_EXIT_FAIL);
	assert_said(f, "avahi-daemon is not on the system bus");
	assert_int_equal(f->n_add, 0);
}

/* avahi-daemon's refusal is said, and fails the helper. */
static void test_avahi_refuses(void **state)
{
	struct fixture *f = *state;

	f->refuse = true;
	run(f, address_args);
	assert_int_equal(wait_exit(f, RUN_UNTIL_MS), MDNS_EXIT_FAIL);
	assert_said(f, "AddAddress failed: Invalid host name");
	assert_int_equal(f->n_commit, 0);
}

/* Nothing is added while avahi-daemon registers its own host name; once
 * it runs, the entry is. */
static void test_waits_for_server(void **state)
{
	struct fixture *f = *state;

	f->server_state = MDNS_AVAHI_SERVER_REGISTERING;
	run(f, address_args);
	assert_true(wait_text(f, "waiting for avahi-daemon", RUN_UNTIL_MS));
	pump_ms(f, 300);
	assert_int_equal(f->n_add, 0);
	f->server_state = MDNS_AVAHI_SERVER_RUNNING;
	assert_true(sd_bus_emit_signal(f->bus, "/", SERVER_IFACE, "StateChanged", "is",
				       (int32_t)MDNS_AVAHI_SERVER_RUNNING, "") >= 0);
	assert_true(wait_text(f, MDNS_READY_TEXT, RUN_UNTIL_MS));
	assert_int_equal(f->n_add, 1);
	stop_clean(f);
}

/* "Established" counts only from avahi-daemon: anyone on the system bus
 * may broadcast a signal with that path and interface. */
static void test_forged_signal(void **state)
{
	struct fixture *f = *state;
	sd_bus *other = NULL;
	uint64_t end = now_ms() + RUN_UNTIL_MS;

	f->hold = true;
	run(f, address_args);
	while (!f->n_commit && now_ms() < end)
		pump_once(f);
	assert_int_equal(f->n_commit, 1);
	assert_int_equal(sd_bus_open_system(&other), 0);
	assert_true(sd_bus_emit_signal(other, GROUP_PATH, GROUP_IFACE, "StateChanged", "is",
				       (int32_t)MDNS_AVAHI_GROUP_ESTABLISHED, "") >= 0);
	assert_true(sd_bus_emit_signal(other, "/", SERVER_IFACE, "StateChanged", "is",
				       (int32_t)MDNS_AVAHI_SERVER_FAILURE, "") >= 0);
	sd_bus_flush(other);
	pump_ms(f, 500);
	sd_bus_flush_close_unref(other);
	assert_null(strstr(f->out, MDNS_READY_TEXT));
	assert_int_equal(f->status, -1);
	emit_group(f, MDNS_AVAHI_GROUP_ESTABLISHED);
	assert_true(wait_text(f, MDNS_READY_TEXT, RUN_UNTIL_MS));
	stop_clean(f);
}

/* The command line: help, and a clear error for what is wrong. */
static void test_command_line(void **state)
{
	struct fixture *f = *state;
	static const char *const help[] = { "--help", NULL };
	static const char *const no_if[] = { "--address", "a.local", "10.0.0.1", NULL };
	static const char *const bad_port[] = { "--interface", "lo", "--service", "a",
						"_adb._tcp", "0", NULL };
	static const char *const bad_addr[] = { "--interface", "lo", "--address", "a.local",
						"10.0.0", NULL };
	static const char *const no_such[] = { "--interface", "gdnosuch0", "--address",
					       "a.local", "10.0.0.1", NULL };
	static const struct {
		const char *const *args;
		int code;
		const char *said;
	} cases[] = {
		{ help, 0, "usage: gadgetd-mdns --interface IFNAME --address NAME ADDRESS" },
		{ no_if, MDNS_EXIT_USAGE, "--interface IFNAME is required" },
		{ bad_port, MDNS_EXIT_USAGE, "\"0\" is not a port (1..65535)" },
		{ bad_addr, MDNS_EXIT_USAGE, "\"10.0.0\" is not an IPv4 or IPv6 address" },
		{ no_such, MDNS_EXIT_FAIL, "no network interface gdnosuch0" },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f->out_len = 0;
		f->out[0] = '\0';
		f->status = -1;
		run(f, cases[i].args);
		assert_int_equal(wait_exit(f, RUN_UNTIL_MS), cases[i].code);
		assert_said(f, cases[i].said);
		close(f->err);
		f->err = -1;
	}
	assert_int_equal(f->n_add, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_collision, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address_collision, setup, teardown),
		cmocka_unit_test_setup_teardown(test_avahi_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_avahi_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_avahi_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waits_for_server, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_line, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
