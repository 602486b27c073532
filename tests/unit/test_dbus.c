/*
 * gadgetd's D-Bus API (gadgetd/front/dbus*.c) on a private dbus-daemon, with
 * the gadget's ConfigFS and workers faked (fake_gadget_deps.c). The test
 * is the caller: an sd-bus connection of its own, pumped with the loop.
 * A fake polkit (this test owning org.freedesktop.PolicyKit1) answers for
 * a caller that is not root: a child that drops to uid 65534.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"
#include "config.h"
#include "dbus.h"
#include "dispatch.h"
#include "fake_bus.h"
#include "event.h"
#include "fake_gadget_deps.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "run_until.h"

#include <errno.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define TEST_DEST "org.gadgetd1"
#define TEST_PATH "/org/gadgetd1"
#define TEST_IFACE "org.gadgetd1.Manager"

static const char test_profile[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;\n"
	"  strings: { lang = 0x409; manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: {\n"
	"  acm: { type = \"acm\"; };\n"
	"  ecm: { type = \"ecm\"; };\n"
	"  ncm: { type = \"ncm\"; };\n"
	"  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; };\n"
	"  tty: { type = \"gser\"; console = \"getty\"; };\n"
	"};\n"
	"sets = (\n"
	"  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },\n"
	"  { functions = [ \"ncm\" ]; product_id = 0x0106; },\n"
	"  { functions = [ \"acm\", \"adb\" ]; product_id = 0x0107; },\n"
	"  { functions = [ \"tty\", \"ecm\" ]; product_id = 0x0108; }\n"
	");\n"
	"default = \"acm,ecm\";\n";

struct fixture {
	char dir[64];
	pid_t daemon;
	struct config cfg;
	struct loop *loop;
	struct gadget *g;
	struct dispatch *disp;
	struct dbus *d;
	sd_bus *cli;
	char changed[1024];   /* "PATH:Prop " for every PropertiesChanged */
	int polkit_yes;       /* the fake polkit's answer; -1: not asked */
	char polkit_action[64];
	unsigned polkit_asked;
	/* Held questions, answered by polkit_release(). */
	bool polkit_hold;
	unsigned n_held;
	sd_bus_message *held[64];
};

static char test_log[8192];

static void test_tap(enum log_level level, const char *msg)
{
	size_t n = strlen(test_log);

	snprintf(test_log + n, sizeof(test_log) - n, "%s\n", msg);
}

static void pump(struct fixture *f)
{
	loop_dispatch(f->loop, 5);
	while (f->cli && sd_bus_process(f->cli, NULL) > 0)
		;
}

static int on_changed(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct fixture *f = data;
	const char *iface, *name;
	size_t n;

	if (sd_bus_message_read(m, "s", &iface) < 0 ||
	    sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
		return 0;
	while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
		if (sd_bus_message_read(m, "s", &name) < 0)
			return 0;
		n = strlen(f->changed);
		snprintf(f->changed + n, sizeof(f->changed) - n, "%s:%s ",
			 sd_bus_message_get_path(m), name);
		sd_bus_message_skip(m, "v");
		sd_bus_message_exit_container(m);
	}
	return 0;
}

/* The fake polkit: CheckAuthorization says f->polkit_yes. */
static int on_polkit(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct fixture *f = data;
	const char *kind, *action;
	int r;

	r = sd_bus_message_enter_container(m, 'r', "sa{sv}");
	if (r >= 0)
		r = sd_bus_message_read(m, "s", &kind);
	if (r >= 0)
		r = sd_bus_message_skip(m, "a{sv}");
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = sd_bus_message_read(m, "s", &action);
	assert_true(r >= 0);
	assert_string_equal(kind, "system-bus-name");
	snprintf(f->polkit_action, sizeof(f->polkit_action), "%s", action);
	f->polkit_asked++;
	if (f->polkit_hold && f->n_held < 64) {
		f->held[f->n_held++] = sd_bus_message_ref(m);
		return 1;
	}
	return sd_bus_reply_method_return(m, "(bba{ss})", f->polkit_yes, 0, 0);
}

static void polkit_release(struct fixture *f)
{
	while (f->n_held) {
		sd_bus_message *m = f->held[--f->n_held];

		sd_bus_reply_method_return(m, "(bba{ss})", f->polkit_yes, 0, 0);
		sd_bus_message_unref(m);
	}
}

static const sd_bus_vtable test_polkit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", on_polkit, 0),
	SD_BUS_VTABLE_END
};

struct test_reply {
	bool done;
	sd_bus_message *m;
};

static int on_reply(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct test_reply *r = data;

	r->m = sd_bus_message_ref(m);
	r->done = true;
	return 0;
}

/* Send m and pump until the answer; the reply (an error is a reply
 * too) is the caller's to unref. */
static sd_bus_message *call_msg(struct fixture *f, sd_bus_message *m)
{
	struct test_reply r = { 0 };

	assert_true(sd_bus_call_async(f->cli, NULL, m, on_reply, &r, 0) >= 0);
	sd_bus_message_unref(m);
	WAIT_UNTIL(r.done, pump(f));
	assert_true(r.done);
	return r.m;
}

/* Call a method of the manager. */
static sd_bus_message *call(struct fixture *f, const char *method,
			    const char *sig, ...)
{
	sd_bus_message *m = NULL;
	va_list ap;

	assert_int_equal(sd_bus_message_new_method_call(f->cli, &m, TEST_DEST, TEST_PATH,
							TEST_IFACE, method), 0);
	va_start(ap, sig);
	assert_true(sd_bus_message_appendv(m, sig, ap) >= 0);
	va_end(ap);
	return call_msg(f, m);
}

static const char *error_name(sd_bus_message *m)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	return e ? e->name : "";
}

static const char *error_text(sd_bus_message *m)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	return e && e->message ? e->message : "";
}

/* A string property, read as a client does (Properties.Get). */
static void get_str(struct fixture *f, const char *path, const char *iface,
		    const char *prop, char *buf, size_t size)
{
	struct test_reply r = { 0 };
	const char *s;

	assert_true(sd_bus_call_method_async(f->cli, NULL, TEST_DEST, path,
					     "org.freedesktop.DBus.Properties", "Get",
					     on_reply, &r, "ss", iface, prop) >= 0);
	WAIT_UNTIL(r.done, pump(f));
	assert_true(r.done);
	if (sd_bus_message_get_error(r.m)) {
		snprintf(buf, size, "error: %s", error_name(r.m));
	} else {
		assert_true(sd_bus_message_read(r.m, "v", "s", &s) >= 0);
		snprintf(buf, size, "%s", s);
	}
	sd_bus_message_unref(r.m);
}

static void get_mgr(struct fixture *f, const char *prop, char *buf, size_t size)
{
	get_str(f, TEST_PATH, TEST_IFACE, prop, buf, size);
}

/* A system-bus-like daemon: everyone may call; root owns org.gadgetd1 as
 * the shipped policy file says, and the test may own polkit's name. */
static void start_daemon(struct fixture *f)
{
	char after[256 + PATH_MAX], policy[PATH_MAX];

	assert_non_null(realpath("gadgetd/front/org.gadgetd1.conf", policy));
	snprintf(after, sizeof(after),
		 "<policy user=\"root\"><allow own=\"org.freedesktop.PolicyKit1\"/></policy>"
		 "<include>%s</include>", policy);
	f->daemon = fake_bus_start(f->dir, NULL, after);
}

static void stop_daemon(struct fixture *f)
{
	fake_bus_stop(&f->daemon);
}

/* Until gadgetd owns its name (at most RUN_UNTIL_MS). */
static void wait_named(struct fixture *f)
{
	uint64_t end = loop_now_ms() + RUN_UNTIL_MS;
	char buf[256] = "";

	while (loop_now_ms() < end) {
		get_mgr(f, "Set", buf, sizeof(buf));
		if (strncmp(buf, "error:", 6))
			return;
		usleep(20000);
	}
	fail_msg("gadgetd never appeared on the bus: %s", buf);
}

static int setup(void **state)
{
	struct access_policy policy = { 0 };
	struct fake_result res = { 0 };
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128];
	int r;

	fake_profile_dir(f->dir, sizeof(f->dir), "test_dbus");
	/* The caller that is not root reaches the bus's socket in it. */
	assert_int_equal(chmod(f->dir, 0755), 0);
	fake_profile_put(f->dir, "t", test_profile);
	start_daemon(f);
	fake_config(&f->cfg, f->dir);
	fake_reset();
	test_log[0] = '\0';
	log_set_tap(test_tap);
	f->loop = loop_new();
	assert_int_equal(gadget_new(f->loop, &f->cfg, &f->g), 0);
	r = gadget_boot_start(f->g, path, sizeof(path), fake_on_done, &res);
	if (r == -EINPROGRESS)
		r = fake_wait_done(f->loop, &res);
	assert_int_equal(r, 0);
	f->disp = dispatch_new(f->loop, &f->cfg, &policy, f->g);
	assert_non_null(f->disp);
	f->d = dbus_new(f->loop, &f->cfg, &policy, f->g, f->disp);
	assert_non_null(f->d);
	assert_int_equal(sd_bus_open_system(&f->cli), 0);
	assert_true(sd_bus_match_signal(f->cli, NULL, TEST_DEST, NULL,
					"org.freedesktop.DBus.Properties",
					"PropertiesChanged", on_changed, f) >= 0);
	f->polkit_yes = 0;
	wait_named(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	sd_bus_flush_close_unref(f->cli);
	dbus_free(f->d);
	dispatch_free(f->disp);
	gadget_free(f->g);
	loop_free(f->loop);
	stop_daemon(f);
	log_set_tap(NULL);
	snprintf(path, sizeof(path), "%s/t.conf", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bus.conf", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Until PropertiesChanged named what (at most RUN_UNTIL_MS). */
static bool wait_changed(struct fixture *f, const char *what)
{

	WAIT_UNTIL(strstr(f->changed, what), pump(f));
	return strstr(f->changed, what) != NULL;
}

static void test_properties(void **state)
{
	struct fixture *f = *state;
	char buf[256];

	get_mgr(f, "Profile", buf, sizeof(buf));
	assert_string_equal(buf, "t");
	get_mgr(f, "Set", buf, sizeof(buf));
	assert_string_equal(buf, "acm,ecm");
	get_mgr(f, "State", buf, sizeof(buf));
	assert_string_equal(buf, "up");
	get_mgr(f, "UDCState", buf, sizeof(buf));
	assert_string_equal(buf, "configured");
	get_str(f, "/org/gadgetd1/function/ecm", "org.gadgetd1.Function", "State",
		buf, sizeof(buf));
	assert_string_equal(buf, "kernel");
	/* Not in the active set: no object. */
	get_str(f, "/org/gadgetd1/function/ncm", "org.gadgetd1.Function", "State",
		buf, sizeof(buf));
	assert_string_equal(buf, "error: org.freedesktop.DBus.Error.UnknownObject");
}

/* Switch answers when the switch is done; the properties and the signal
 * say the same. */
static void test_switch(void **state)
{
	struct fixture *f = *state;
	sd_bus_message *m;
	char buf[256];

	f->changed[0] = '\0';
	m = call(f, "Switch", "s", "ncm");
	assert_string_equal(error_name(m), "");
	sd_bus_message_unref(m);
	get_mgr(f, "Set", buf, sizeof(buf));
	assert_string_equal(buf, "ncm");
	assert_true(wait_changed(f, "/org/gadgetd1:Set "));
	assert_non_null(strstr(f->changed, "/org/gadgetd1:Functions "));
	assert_non_null(strstr(fake_calls, "bind"));
}

/* A serial function's login, on its Function object; "" on another's. */
static void test_console_property(void **state)
{
	struct fixture *f = *state;
	sd_bus_message *m;
	char buf[256];

	m = call(f, "Switch", "s", "tty,ecm");
	assert_string_equal(error_name(m), "");
	sd_bus_message_unref(m);
	get_str(f, "/org/gadgetd1/function/tty", "org.gadgetd1.Function", "Console",
		buf, sizeof(buf));
	assert_string_equal(buf, "starting");
	get_str(f, "/org/gadgetd1/function/ecm", "org.gadgetd1.Function", "Console",
		buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* A network function's uplink share, on its Function object; "" on
 * another's. */
static void test_uplink_property(void **state)
{
	struct fixture *f = *state;
	sd_bus_message *m;
	char buf[256];

	fake_n_shares = 1;
	fake_shares[0] = (struct uplink_info){ .function = "ecm", .link = "usb0",
					       .uplink = "eth0", .state = UPLINK_FAILED,
					       .why = "no such uplink interface eth0" };
	m = call(f, "Switch", "s", "tty,ecm");
	assert_string_equal(error_name(m), "");
	sd_bus_message_unref(m);
	get_str(f, "/org/gadgetd1/function/ecm", "org.gadgetd1.Function", "Uplink",
		buf, sizeof(buf));
	assert_string_equal(buf, "failed");
	get_str(f, "/org/gadgetd1/function/tty", "org.gadgetd1.Function", "Uplink",
		buf, sizeof(buf));
	assert_string_equal(buf, "");
	fake_n_shares = 0;
}

/* A failure names the reason; bad calls change nothing. */
static void test_bad_calls(void **state)
{
	struct fixture *f = *state;
	char *args[201], buf[256];
	sd_bus_message *m, *q;
	int i;

	m = call(f, "Switch", "s", "nope");
	assert_string_equal(error_name(m), "org.gadgetd1.Error.NotFound");
	assert_non_null(strstr(error_text(m), "nope"));
	sd_bus_message_unref(m);
	m = call(f, "Switch", "s", "");
	assert_string_equal(error_name(m), "org.freedesktop.DBus.Error.InvalidArgs");
	sd_bus_message_unref(m);
	m = call(f, "Switch", "i", 5);
	assert_string_equal(error_name(m), "org.freedesktop.DBus.Error.InvalidArgs");
	sd_bus_message_unref(m);
	m = call(f, "SwitchProfile", "ss", "../etc/passwd", "");
	assert_non_null(strstr(error_name(m), "Error"));
	sd_bus_message_unref(m);
	/* A huge array: refused before any plugin hears of it. */
	for (i = 0; i < 200; i++)
		args[i] = "keys";
	args[200] = NULL;
	assert_int_equal(sd_bus_message_new_method_call(f->cli, &q, TEST_DEST, TEST_PATH,
							TEST_IFACE, "Command"), 0);
	assert_true(sd_bus_message_append(q, "s", "adb") >= 0);
	assert_true(sd_bus_message_append_strv(q, args) >= 0);
	m = call_msg(f, q);
	assert_string_equal(error_name(m), "org.freedesktop.DBus.Error.InvalidArgs");
	sd_bus_message_unref(m);
	assert_int_equal(fake_commands_pending(), 0);
	get_mgr(f, "Set", buf, sizeof(buf));
	assert_string_equal(buf, "acm,ecm");
}

/* An event (event.h) re-reads the status: the UDC's new state is
 * announced without anyone reading it first. */
static void test_event(void **state)
{
	struct fixture *f = *state;

	f->changed[0] = '\0';
	fake_udc_state = "suspended";
	event_emit(EVENT_HOST, NULL, "suspended", 0);
	assert_true(wait_changed(f, "/org/gadgetd1:UDCState "));
	assert_true(wait_changed(f, ":State "));
}

/* adb up, and "adb keys" sent and waiting for its plugin; r gets the
 * reply. */
static void command_waiting(struct fixture *f, struct test_reply *r)
{
	sd_bus_message *m = call(f, "Switch", "s", "acm,adb");

	assert_string_equal(error_name(m), "");
	sd_bus_message_unref(m);
	assert_true(sd_bus_call_method_async(f->cli, NULL, TEST_DEST, TEST_PATH, TEST_IFACE,
					     "Command", on_reply, r, "sas", "adb", 1,
					     "keys") >= 0);
	WAIT_UNTIL(fake_commands_pending(), pump(f));
	assert_int_equal(fake_commands_pending(), 1);
}

static void test_command(void **state)
{
	struct fixture *f = *state;
	struct test_reply r = { 0 };
	const char *s;

	command_waiting(f, &r);
	fake_command_reply(0, "no keys\n");
	WAIT_UNTIL(r.done, pump(f));
	assert_true(r.done);
	assert_true(sd_bus_message_read(r.m, "s", &s) >= 0);
	assert_string_equal(s, "no keys\n");
	sd_bus_message_unref(r.m);
}

/* The socket's busy rule, by construction: a Command while another one
 * waits for its plugin is Busy, with what the gadget is busy with. */
static void test_command_busy(void **state)
{
	struct fixture *f = *state;
	struct test_reply r = { 0 };
	sd_bus_message *m;

	command_waiting(f, &r);
	m = call(f, "Command", "sas", "adb", 1, "keys");
	assert_string_equal(error_name(m), "org.gadgetd1.Error.Busy");
	assert_non_null(strstr(sd_bus_message_get_error(m)->message,
			       "a plugin command is in progress"));
	sd_bus_message_unref(m);
	assert_int_equal(fake_commands_pending(), 1);
	fake_command_reply(0, "no keys\n");
	WAIT_UNTIL(r.done, pump(f));
	assert_true(r.done);
	sd_bus_message_unref(r.m);
}

/* A caller as uid 65534 (a child process): the table refuses Off, polkit
 * is asked with org.gadgetd1.off and its answer holds; Switch among the
 * sets is org.gadgetd1.switch. Exit status: 0 done, 1 denied, 2 other. */
static pid_t as_uid(uid_t uid, const char *method, const char *arg)
{
	pid_t pid = fork();
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	sd_bus *b = NULL;
	int r;

	assert_true(pid >= 0);
	if (pid)
		return pid;
	if (setresgid(65534, 65534, 65534) < 0 || setgroups(0, NULL) < 0 ||
	    setresuid(uid, uid, uid) < 0 || sd_bus_open_system(&b) < 0)
		_exit(2);
	if (arg)
		r = sd_bus_call_method(b, TEST_DEST, TEST_PATH, TEST_IFACE, method, &e, &m,
				       "s", arg);
	else
		r = sd_bus_call_method(b, TEST_DEST, TEST_PATH, TEST_IFACE, method, &e, &m, "");
	if (r < 0)
		fprintf(stderr, "as nobody: %s: %s\n", e.name, e.message);
	_exit(r >= 0 ? 0 : sd_bus_error_has_name(&e, SD_BUS_ERROR_ACCESS_DENIED) ? 1 :
	      sd_bus_error_has_name(&e, "org.gadgetd1.Error.Busy") ? 3 : 2);
}

static pid_t as_nobody(const char *method, const char *arg)
{
	return as_uid(65534, method, arg);
}

static int wait_child(struct fixture *f, pid_t pid)
{
	uint64_t t0 = loop_now_ms();
	int st = 0;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (loop_now_ms() - t0 > RUN_UNTIL_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		pump(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_polkit(void **state)
{
	struct fixture *f = *state;
	char buf[256];

	/* No polkit on the bus: refused, and nothing changed. */
	assert_int_equal(wait_child(f, as_nobody("Off", NULL)), 1);
	get_mgr(f, "Set", buf, sizeof(buf));
	assert_string_equal(buf, "acm,ecm");
	/* polkit says no. */
	assert_true(sd_bus_add_object_vtable(f->cli, NULL, "/org/freedesktop/PolicyKit1/Authority",
					     "org.freedesktop.PolicyKit1.Authority",
					     test_polkit_vtable, f) >= 0);
	assert_true(sd_bus_request_name(f->cli, "org.freedesktop.PolicyKit1", 0) >= 0);
	f->polkit_yes = 0;
	assert_int_equal(wait_child(f, as_nobody("Off", NULL)), 1);
	assert_string_equal(f->polkit_action, "org.gadgetd1.off");
	get_mgr(f, "Set", buf, sizeof(buf));
	assert_string_equal(buf, "acm,ecm");
	assert_int_equal(wait_child(f, as_nobody("Switch", "ncm")), 1);
	assert_string_equal(f->polkit_action, "org.gadgetd1.switch");
	/* Wakeup is a typed key's: org.gadgetd1.drive. */
	assert_int_equal(wait_child(f, as_nobody("Wakeup", NULL)), 1);
	assert_string_equal(f->polkit_action, "org.gadgetd1.drive");
	/* polkit says yes. */
	f->polkit_yes = 1;
	/* The gadget refuses it (the set lacks remote_wakeup): an error. */
	get_mgr(f, "Bus", buf, sizeof(buf));
	assert_string_equal(buf, "awake");
	assert_int_equal(wait_child(f, as_nobody("Wakeup", NULL)), 2);
	assert_int_equal(wait_child(f, as_nobody("Off", NULL)), 0);
	get_mgr(f, "State", buf, sizeof(buf));
	assert_string_equal(buf, "off");
	get_mgr(f, "Bus", buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(f->polkit_asked, 5);
}

/* Callers that wait (here for polkit) are bounded: one more is told to
 * try again, and the others are answered once polkit is. */
static void test_limit(void **state)
{
	struct fixture *f = *state;
	pid_t pids[40];
	uid_t users[7];
	struct passwd *pw;
	int i, busy = 0, denied = 0, st;

	assert_true(sd_bus_add_object_vtable(f->cli, NULL, "/org/freedesktop/PolicyKit1/Authority",
					     "org.freedesktop.PolicyKit1.Authority",
					     test_polkit_vtable, f) >= 0);
	assert_true(sd_bus_request_name(f->cli, "org.freedesktop.PolicyKit1", 0) >= 0);
	f->polkit_hold = true;
	/* One user: 4 calls wait for polkit, the next two are told to try
	 * again, each on a connection of its own. */
	for (i = 0; i < 4; i++)
		pids[i] = as_nobody("Off", NULL);
	WAIT_UNTIL(f->polkit_asked >= 4, pump(f));
	assert_int_equal(f->polkit_asked, 4);
	for (i = 4; i < 6; i++)
		assert_int_equal(wait_child(f, as_nobody("Off", NULL)), 3);
	/* Other users fill the rest: 32 in all, then one more is busy. The
	 * bus wants users it can look up. */
	for (i = 0; i < 7; i++) {
		do
			pw = getpwent();
		while (pw && (pw->pw_uid == 0 || pw->pw_uid == 65534));
		assert_non_null(pw);
		users[i] = pw->pw_uid;
	}
	endpwent();
	for (i = 4; i < 32; i++)
		pids[i] = as_uid(users[i / 4 - 1], "Off", NULL);
	WAIT_UNTIL(f->polkit_asked >= 32, pump(f));
	assert_int_equal(f->polkit_asked, 32);
	for (i = 32; i < 40; i++)
		pids[i] = as_uid(users[i % 7], "Off", NULL);
	for (i = 32; i < 40; i++)
		busy += wait_child(f, pids[i]) == 3;
	assert_int_equal(busy, 8);
	f->polkit_hold = false;
	polkit_release(f);
	for (i = 0; i < 32; i++) {
		st = wait_child(f, pids[i]);
		denied += st == 1;
	}
	assert_int_equal(denied, 32);
}

/* The bus goes away: logged once, and the gadget goes on; when the bus
 * is back, so is gadgetd on it. */
static void test_bus_lost(void **state)
{
	struct fixture *f = *state;
	struct fake_result res = { 0 };
	char msg[256];
	int r;

	dbus_set_retry_ms(f->d, 50);
	stop_daemon(f);
	sd_bus_flush_close_unref(f->cli);
	f->cli = NULL;
	WAIT_UNTIL(strstr(test_log, "lost the system bus"), pump(f));
	assert_non_null(strstr(test_log, "lost the system bus"));
	r = gadget_switch(f->g, NULL, "ncm", msg, sizeof(msg), fake_on_done, &res);
	if (r == -EINPROGRESS)
		r = fake_wait_done(f->loop, &res);
	assert_int_equal(r, 0);
	/* Tries in the meantime fail without a line each. */
	for (r = 0; r < 20; r++)
		pump(f);
	assert_null(strstr(strstr(test_log, "lost the system bus") + 1, "dbus:"));
	start_daemon(f);
	assert_int_equal(sd_bus_open_system(&f->cli), 0);
	wait_named(f);
	get_mgr(f, "Set", msg, sizeof(msg));
	assert_string_equal(msg, "ncm");
}

/* No bus at all: one line (at info level, on stderr), and gadgetd goes
 * on; no second line when it tries again. */
static void test_no_bus(void **state)
{
	struct access_policy policy = { 0 };
	struct loop *l = loop_new();
	char path[] = "/tmp/test_dbus_err.XXXXXX", text[4096] = "";
	int fd = mkstemp(path), saved = dup(2);
	struct dbus *d;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
	log_init("gadgetd", true, LOG_LEVEL_INFO);
	dup2(fd, 2);
	d = dbus_new(l, NULL, &policy, NULL, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_non_null(d);
	dbus_free(d);
	loop_free(l);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	assert_non_null(strstr(text, "dbus: no system bus"));
}

/* XML without comments, each line trimmed, empty lines dropped; only
 * the org.gadgetd1 interfaces. Appended to out. */
static void xml_ours(const char *xml, char *out, size_t size)
{
	const char *p = xml, *e, *end;
	bool in = false;
	size_t n;

	while (*p) {
		e = strchr(p, '\n');
		end = e ? e : p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (!strncmp(p, "<!--", 4)) {
			p = strstr(p, "-->");
			assert_non_null(p);
			p += 3;
			continue;
		}
		if (!strncmp(p, "<interface name=\"org.gadgetd1.",
			     strlen("<interface name=\"org.gadgetd1.")))
			in = true;
		if (in && p < end) {
			n = strlen(out);
			snprintf(out + n, size - n, "%.*s\n", (int)(end - p), p);
		}
		if (!strncmp(p, "</interface>", 12))
			in = false;
		p = e ? e + 1 : end;
	}
}

static void introspect(struct fixture *f, const char *path, char *out, size_t size)
{
	struct test_reply r = { 0 };
	const char *xml;

	assert_true(sd_bus_call_method_async(f->cli, NULL, TEST_DEST, path,
					     "org.freedesktop.DBus.Introspectable",
					     "Introspect", on_reply, &r, "") >= 0);
	WAIT_UNTIL(r.done, pump(f));
	assert_true(r.done);
	assert_true(sd_bus_message_read(r.m, "s", &xml) >= 0);
	xml_ours(xml, out, size);
	sd_bus_message_unref(r.m);
}

/* The committed interface (gadgetd/front/org.gadgetd1.xml, installed, and
 * documented in gadgetd-dbus(7)) is what the objects say they are. */
static void test_introspect(void **state)
{
	static char want[32768], got[32768], file[32768];
	struct fixture *f = *state;
	FILE *fp = fopen("gadgetd/front/org.gadgetd1.xml", "r");
	size_t n;

	assert_non_null(fp);
	n = fread(file, 1, sizeof(file) - 1, fp);
	fclose(fp);
	file[n] = '\0';
	want[0] = got[0] = '\0';
	xml_ours(file, want, sizeof(want));
	introspect(f, "/org/gadgetd1", got, sizeof(got));
	introspect(f, "/org/gadgetd1/function/acm", got, sizeof(got));
	introspect(f, "/org/gadgetd1/udc/dummy_5fudc_2e0", got, sizeof(got));
	assert_non_null(strstr(got, "org.gadgetd1.Manager"));
	assert_non_null(strstr(got, "org.gadgetd1.Function"));
	assert_non_null(strstr(got, "org.gadgetd1.UDC"));
	if (strcmp(want, got)) {
		fprintf(stderr, "---- gadgetd/front/org.gadgetd1.xml\n%s---- what the objects "
			"say\n%s----\n", want, got);
		fail_msg("gadgetd/front/org.gadgetd1.xml differs from what the objects say");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_properties, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_property, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uplink_property, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polkit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bus_lost, setup, teardown),
		cmocka_unit_test(test_no_bus),
		cmocka_unit_test_setup_teardown(test_introspect, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
