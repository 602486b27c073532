/*
 * libFuzzer target: gadgetd's D-Bus methods (gadgetd/front/dbus*.c, as they
 * are) on a real sd-bus connection: how a call's arguments become a
 * request (ctl.h's type and argv, dbus_int.h's struct dbus_req), who may
 * make it (the caller's credentials, access.h's table, polkit), and the
 * answer. This harness is the bus daemon: gadgetd connects to it through
 * DBUS_SYSTEM_BUS_ADDRESS, and it answers Hello, RequestName,
 * GetConnectionCredentials and polkit's CheckAuthorization as the input
 * says, then sends gadgetd one call from ":1.99". The gadget is faked and
 * records what reaches it.
 *
 * Input: byte 0 picks the call (Switch, SwitchProfile, Reload, Off,
 * Command, ListProfiles, ListSets, the properties, a call with a wrong
 * signature, an unknown method); byte 1 the caller (bits 0-2: root,
 * admin_group, group, anyone, a caller the bus cannot name, credentials
 * without a uid; bit 3: polkit says yes; bit 4: polkit fails; bit 5:
 * interactive; bit 6: polkit asks for a password); byte 2 the gadget
 * (bit 0: it answers later, from the loop; bit 1: its message is not
 * UTF-8). The rest: the call's strings, split at NUL (a string that is
 * not UTF-8 makes no call, as the bus daemon would refuse it).
 *
 * What must hold, as gadgetd-dbus(7) and org.gadgetd1.xml say:
 *   - every call gets exactly one answer;
 *   - what reaches the gadget is the request the call's arguments make,
 *     the control socket's form of it: Switch(s) is a switch to set s of
 *     the active profile, SwitchProfile(p, s) to p's set s ("" for its
 *     default), Command(f, args) the plugin command f args[0]...;
 *   - a name that is empty or too long, more than 61 arguments or 4096
 *     bytes of them are InvalidArgs, and the gadget never sees them;
 *   - a call reaches the gadget only when access.h's table allows the
 *     caller, or polkit said yes; a caller the bus cannot name never.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "access.h"
#include "request.h"
#include "config.h"
#include "ctl.h"
#include "dbus.h"
#include "dispatch.h"
#include "fuzz_runtime.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "profile.h"
#include "status.h"
#include "udc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_GROUP_GID 46
#define FUZZ_ADMIN_GID 1234
#define FUZZ_STRS 80
/* More than any call may carry (DBUS_MAX_ARGS), so that a bound not
 * kept shows. */
#define DBUS_MAX_ARGS_FUZZ (FUZZ_STRS + 4)

/* ---- The gadget, faked: what reached it, and its answer. ---- */

enum fuzz_op { OP_NONE, OP_SWITCH, OP_RELOAD, OP_OFF, OP_COMMAND, OP_WAKEUP, OP_LOCK };

static struct {
	int calls;
	enum fuzz_op op;
	char *argv[DBUS_MAX_ARGS_FUZZ];
	int argc;
	bool failed;      /* it answered -ENOENT */
	bool later;       /* answer from the loop */
	bool raw;         /* a message that is not UTF-8 */
} gadget;

static struct loop *loop;
static struct {
	struct loop_watch *idle;
	gadget_done_fn fn;
	void *data;
	int r;
	char msg[128];
} pending;

static void fake_record(enum fuzz_op op, int argc, const char *const *argv)
{
	gadget.calls++;
	gadget.op = op;
	for (int i = 0; i < argc; i++)
		gadget.argv[i] = strdup(argv[i] ? argv[i] : "(null)");
	gadget.argc = argc;
}

static void fake_finish(struct loop_watch *w, void *p)
{
	loop_watch_remove(w);
	pending.idle = NULL;
	if (pending.fn)
		pending.fn(pending.r, pending.msg, pending.data);
}

/* "fail" as the first string: the gadget refuses (-ENOENT, as a set
 * that does not exist). */
static int fake_answer(const char *arg, char *msg, size_t size, gadget_done_fn fn,
		       void *data)
{
	int r = arg && !strcmp(arg, "fail") ? -ENOENT : 0;

	gadget.failed = r < 0;
	snprintf(msg, size, "done %s%s", arg ? arg : "-", gadget.raw ? "\xff" : "");
	if (!gadget.later || !fn)
		return r;
	if (pending.idle)
		abort(); /* one call at a time here */
	pending.idle = loop_add_idle(loop, fake_finish, NULL);
	if (!pending.idle)
		abort();
	pending.fn = fn;
	pending.data = data;
	pending.r = r;
	snprintf(pending.msg, sizeof(pending.msg), "%s", msg);
	return -EINPROGRESS;
}

int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	const char *argv[2] = { profile, set };

	fake_record(OP_SWITCH, 2, argv);
	return fake_answer(set ? set : profile, msg, size, fn, data);
}

int gadget_off(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
	       void *data)
{
	fake_record(OP_OFF, 0, NULL);
	return fake_answer(NULL, msg, size, NULL, NULL);
}

int gadget_reload(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	fake_record(OP_RELOAD, 0, NULL);
	return fake_answer(NULL, msg, size, fn, data);
}

/* Not among the calls fuzzed: reaching it fails check_gadget(). */
int gadget_wakeup(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	fake_record(OP_WAKEUP, 0, NULL);
	return fake_answer(NULL, msg, size, fn, data);
}

/* Not among the calls fuzzed either. */
int gadget_lock(struct gadget *g, bool locked, char *msg, size_t size)
{
	fake_record(OP_LOCK, 0, NULL);
	snprintf(msg, size, "%s", locked ? "locked" : "unlocked");
	return 0;
}

int gadget_command(struct gadget *g, int argc, char **argv, char *reply,
		   size_t size, gadget_done_fn fn, void *data)
{
	fake_record(OP_COMMAND, argc, (const char *const *)argv);
	return fake_answer(argc > 1 ? argv[1] : NULL, reply, size, fn, data);
}

void gadget_cancel(struct gadget *g, void *data)
{
	if (pending.idle && pending.data == data)
		pending.fn = NULL;
}

/* D-Bus has no storage method (the gadget is never busy here:
 * fake_gadget_idle.c). */
int gadget_storage(struct gadget *g, const struct storage_cred *member,
		   const struct storage_req *req, char *msg, size_t size, FILE *out)
{
	abort();
}

bool gadget_storage_group_open(const struct gadget *g, const char *function)
{
	abort();
}

void gadget_list_sets(struct gadget *g, gadget_list_fn fn, void *data)
{
	fn("acm", true, true, data);
	fn("acm,adb", false, false, data);
}

void gadget_status_fill(struct gadget *g, struct status *st,
			struct gadget_status_buf *buf)
{
	memset(st, 0, sizeof(*st));
	st->profile = "fuzz";
	st->set = "acm";
	st->udc_state = "unbound";
	st->speed = "-";
	st->boot = "";
	st->failed = "";
}

const char *gadget_profile_name(const struct gadget *g)
{
	return "fuzz";
}

/* "adb", "hid" and "mtp" are plugins; other names kernel functions. */
const char *gadget_function_plugin(const struct gadget *g, const char *function)
{
	if (!strcmp(function, "adb") || !strcmp(function, "hid") ||
	    !strcmp(function, "mtp"))
		return function;
	return NULL;
}

void udc_state(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "not attached");
}

void udc_speed(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "UNKNOWN");
}

int config_profile_scan(const struct config *c, config_profile_fn fn, void *data)
{
	struct config_profile_entry e = { .file = "fuzz.conf", .name = "fuzz",
					  .regular = true };

	fn(&e, data);
	return 1;
}

/* ---- The bus daemon, and polkit, as the input says. ---- */

enum fuzz_caller { C_ROOT, C_ADMIN, C_MEMBER, C_OTHER, C_UNKNOWN, C_NO_UID };

static struct {
	enum fuzz_caller who;
	bool polkit_yes, polkit_fails, challenge;
	int polkit_asked;
	bool named;       /* gadgetd asked for org.gadgetd1 */
} bus;

static sd_bus *srv;
static const char *const gadgetd_name = ":1.1", *const caller = ":1.99";

static int daemon_creds(sd_bus_message *m)
{
	sd_bus_message *r = NULL;
	uint32_t uid = bus.who == C_ROOT ? 0 : 1000;
	int rc;

	if (bus.who == C_UNKNOWN)
		return sd_bus_reply_method_errorf(m, "org.freedesktop.DBus.Error.NameHasNoOwner",
						  "no such name");
	rc = sd_bus_message_new_method_return(m, &r);
	if (rc >= 0)
		rc = sd_bus_message_open_container(r, 'a', "{sv}");
	if (rc >= 0 && bus.who != C_NO_UID)
		rc = sd_bus_message_append(r, "{sv}", "UnixUserID", "u", uid);
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}", "ProcessID", "u", 4242);
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}", "UnixGroupIDs", "au", 2, 100,
					   bus.who == C_ADMIN ? FUZZ_ADMIN_GID :
					   bus.who == C_MEMBER ? FUZZ_GROUP_GID : 100);
	if (rc >= 0)
		rc = sd_bus_message_append(r, "{sv}", "LinuxSecurityLabel", "ay", 0);
	if (rc >= 0)
		rc = sd_bus_message_close_container(r);
	if (rc >= 0)
		rc = sd_bus_send(NULL, r, NULL);
	sd_bus_message_unref(r);
	return rc;
}

static int daemon_filter(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const char *dest = sd_bus_message_get_destination(m);
	const char *member = sd_bus_message_get_member(m);
	uint8_t type = 0;

	sd_bus_message_get_type(m, &type);
	/* Our only calls are the one to gadgetd, whose answer its callback
	 * took: an answer that comes here is a second one. */
	if (type == SD_BUS_MESSAGE_METHOD_RETURN || type == SD_BUS_MESSAGE_METHOD_ERROR)
		abort();
	if (type != SD_BUS_MESSAGE_METHOD_CALL)
		return 1; /* PropertiesChanged and the like */
	if (dest && !strcmp(dest, "org.freedesktop.PolicyKit1")) {
		bus.polkit_asked++;
		if (bus.polkit_fails)
			return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_SERVICE_UNKNOWN,
							  "polkit is not running");
		return sd_bus_reply_method_return(m, "(bba{ss})", bus.polkit_yes,
						  !bus.polkit_yes && bus.challenge, 0);
	}
	if (!dest || strcmp(dest, "org.freedesktop.DBus") || !member)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_METHOD, "no");
	if (!strcmp(member, "Hello"))
		return sd_bus_reply_method_return(m, "s", gadgetd_name);
	if (!strcmp(member, "RequestName")) {
		bus.named = true;
		return sd_bus_reply_method_return(m, "u", 1);
	}
	if (!strcmp(member, "GetConnectionCredentials"))
		return daemon_creds(m);
	if (!strcmp(member, "AddMatch") || !strcmp(member, "RemoveMatch"))
		return sd_bus_reply_method_return(m, "");
	return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_METHOD, "no");
}

static void pump(void)
{
	loop_dispatch(loop, 0);
	while (sd_bus_process(srv, NULL) > 0)
		;
}

static void setup_once(void)
{
	static const struct access_policy policy = {
		.group = "plugdev", .group_gid = FUZZ_GROUP_GID,
		.admin_group = "gadgetadm", .admin_gid = FUZZ_ADMIN_GID,
	};
	static struct config cfg;
	struct dispatch *dispatch;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char addr[160];
	int lfd, cfd;

	if (loop)
		return;
	log_init("fuzz_dbus", true, LOG_LEVEL_ERROR);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/bus", fuzz_rt_scratch("fuzz_dbus"));
	snprintf(addr, sizeof(addr), "unix:path=%s", sa.sun_path);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", addr, 1);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1) < 0)
		abort();
	loop = loop_new();
	dispatch = loop ? dispatch_new(loop, &cfg, &policy, (struct gadget *)&gadget) : NULL;
	if (!dispatch || !dbus_new(loop, &cfg, &policy, (struct gadget *)&gadget, dispatch))
		abort();
	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	close(lfd);
	if (cfd < 0 || sd_bus_new(&srv) < 0 || sd_bus_set_fd(srv, cfd, cfd) < 0 ||
	    sd_bus_set_server(srv, 1, SD_ID128_MAKE(6f,75,7a,7a,64,62,75,73,66,75,7a,7a,64,62,75,73)) < 0 ||
	    sd_bus_add_filter(srv, NULL, daemon_filter, NULL) < 0 || sd_bus_start(srv) < 0)
		abort();
	for (int i = 0; i < 1000 && !bus.named; i++)
		pump();
	if (!bus.named)
		abort(); /* gadgetd never got on the fake bus */
	pump();
}

/* ---- One call, and what must come of it. ---- */

enum fuzz_call {
	CALL_SWITCH, CALL_SWITCH_PROFILE, CALL_RELOAD, CALL_OFF, CALL_COMMAND,
	CALL_LIST_PROFILES, CALL_LIST_SETS, CALL_PROPERTIES, CALL_WRONG_SIG,
	CALL_UNKNOWN, CALL_N,
};

static const char *const members[CALL_N] = {
	"Switch", "SwitchProfile", "Reload", "Off", "Command", "ListProfiles",
	"ListSets", "GetAll", "Switch", "Format",
};

static struct {
	int n;
	char error[256];
} answer;

static int on_answer(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	answer.n++;
	snprintf(answer.error, sizeof(answer.error), "%s", e ? e->name : "");
	return 1;
}

/* The arguments, as the call carries them; < 0: no such D-Bus message
 * (a string that is not UTF-8), so no call. */
static int append_args(sd_bus_message *m, enum fuzz_call call, int n, char **s)
{
	int r = 0;

	switch (call) {
	case CALL_SWITCH:
		return sd_bus_message_append(m, "s", n > 0 ? s[0] : "");
	case CALL_SWITCH_PROFILE:
		return sd_bus_message_append(m, "ss", n > 0 ? s[0] : "", n > 1 ? s[1] : "");
	case CALL_COMMAND:
		r = sd_bus_message_append(m, "s", n > 0 ? s[0] : "");
		if (r >= 0)
			r = sd_bus_message_open_container(m, 'a', "s");
		for (int i = 1; r >= 0 && i < n; i++)
			r = sd_bus_message_append(m, "s", s[i]);
		if (r >= 0)
			r = sd_bus_message_close_container(m);
		return r;
	case CALL_PROPERTIES:
		return sd_bus_message_append(m, "s", "org.gadgetd1.Manager");
	case CALL_WRONG_SIG:
		/* Switch(ss): sd-bus refuses it against the vtable. */
		return sd_bus_message_append(m, "ss", n > 0 ? s[0] : "", "x");
	case CALL_RELOAD:
	case CALL_OFF:
	case CALL_LIST_PROFILES:
	case CALL_LIST_SETS:
	case CALL_UNKNOWN:
	case CALL_N:
		break;
	}
	return 0;
}

/*
 * The request the arguments make, as the control socket carries it, or
 * false with the call refused as InvalidArgs: the documented bounds
 * (org.gadgetd1.xml).
 */
static bool want_request(enum fuzz_call call, int n, char **s, uint16_t *type,
			 int *argc, char **argv)
{
	static char dash_profile[] = "--profile", empty[] = "";
	size_t bytes = 0;

	*argc = 0;
	switch (call) {
	case CALL_SWITCH:
		*type = CTL_SWITCH;
		argv[(*argc)++] = n > 0 ? s[0] : empty;
		return argv[0][0] && strlen(argv[0]) < 256;
	case CALL_SWITCH_PROFILE:
		*type = CTL_SWITCH;
		argv[(*argc)++] = dash_profile;
		argv[(*argc)++] = n > 0 ? s[0] : empty;
		argv[(*argc)++] = n > 1 ? s[1] : empty;
		return argv[1][0] && strlen(argv[1]) < PROFILE_NAME_MAX &&
		       strlen(argv[2]) < 256;
	case CALL_RELOAD:
		*type = CTL_RELOAD;
		return true;
	case CALL_OFF:
		*type = CTL_OFF;
		return true;
	case CALL_COMMAND:
		*type = CTL_FUNCTION;
		argv[(*argc)++] = n > 0 ? s[0] : empty;
		for (int i = 1; i < n; i++) {
			bytes += strlen(s[i]) + 1;
			argv[(*argc)++] = s[i];
		}
		return argv[0][0] && strlen(argv[0]) < PROFILE_NAME_MAX && n >= 2 &&
		       n - 1 <= 61 && bytes <= 4096;
	case CALL_LIST_PROFILES:
	case CALL_LIST_SETS:
	case CALL_PROPERTIES:
	case CALL_WRONG_SIG:
	case CALL_UNKNOWN:
	case CALL_N:
		break;
	}
	return false;
}

/* May the caller make it: the table, else polkit. */
static bool want_allowed(uint16_t type, int argc, char **argv)
{
	static const struct access_policy policy = {
		.group = "plugdev", .group_gid = FUZZ_GROUP_GID,
		.admin_group = "gadgetadm", .admin_gid = FUZZ_ADMIN_GID,
	};
	struct access_peer peer = {
		.uid = bus.who == C_ROOT ? 0 : 1000,
		.in_group = bus.who == C_MEMBER,
		.in_admin = bus.who == C_ADMIN,
	};
	struct access_view view = {
		.active = "fuzz",
		.plugin = type == CTL_FUNCTION ? gadget_function_plugin(NULL, argv[0]) : NULL,
	};
	struct request req;
	char why[512];

	if (bus.who == C_UNKNOWN || bus.who == C_NO_UID)
		return false;
	request_from_ctl(type, argc, argv, &req);
	if (!access_check(&policy, &peer, &req, &view, why, sizeof(why)))
		return true;
	return bus.polkit_yes && !bus.polkit_fails;
}

/* What reached the gadget is the request, in the gadget's terms. */
static void check_gadget(enum fuzz_call call, int argc, char **argv)
{
	if (gadget.calls != 1)
		abort();
	switch (call) {
	case CALL_SWITCH:
		if (gadget.op != OP_SWITCH || strcmp(gadget.argv[0], "(null)") ||
		    strcmp(gadget.argv[1], argv[0]))
			abort();
		return;
	case CALL_SWITCH_PROFILE:
		if (gadget.op != OP_SWITCH || strcmp(gadget.argv[0], argv[1]) ||
		    strcmp(gadget.argv[1], argv[2][0] ? argv[2] : "(null)"))
			abort();
		return;
	case CALL_RELOAD:
		if (gadget.op != OP_RELOAD)
			abort();
		return;
	case CALL_OFF:
		if (gadget.op != OP_OFF)
			abort();
		return;
	case CALL_COMMAND:
		if (gadget.op != OP_COMMAND || gadget.argc != argc)
			abort();
		for (int i = 0; i < argc; i++)
			if (strcmp(gadget.argv[i], argv[i]))
				abort();
		return;
	case CALL_LIST_PROFILES:
	case CALL_LIST_SETS:
	case CALL_PROPERTIES:
	case CALL_WRONG_SIG:
	case CALL_UNKNOWN:
	case CALL_N:
		break;
	}
	abort();
}

static void check(enum fuzz_call call, int n, char **s)
{
	char *argv[DBUS_MAX_ARGS_FUZZ];
	uint16_t type = 0;
	int argc;
	bool valid = want_request(call, n, s, &type, &argc, argv);
	bool acts = call <= CALL_COMMAND;

	if (answer.n != 1)
		abort(); /* a call without an answer */
	if (!acts) {
		/* Lists and properties answer; the rest are refused by sd-bus. */
		if (gadget.calls || (call >= CALL_WRONG_SIG) != !!answer.error[0])
			abort();
		return;
	}
	if (!valid) {
		if (gadget.calls || strcmp(answer.error, SD_BUS_ERROR_INVALID_ARGS))
			abort();
		return;
	}
	if (!want_allowed(type, argc, argv)) {
		if (gadget.calls || strcmp(answer.error, SD_BUS_ERROR_ACCESS_DENIED))
			abort();
		return;
	}
	check_gadget(call, argc, argv);
	/* The gadget's refusal (-ENOENT) is NotFound, its success a reply. */
	if (strcmp(answer.error, gadget.failed ? "org.gadgetd1.Error.NotFound" : ""))
		abort();
}

static void reset(const uint8_t *data)
{
	for (int i = 0; i < gadget.argc; i++)
		free(gadget.argv[i]);
	memset(&gadget, 0, sizeof(gadget));
	gadget.later = data[2] & 1;
	gadget.raw = data[2] & 2;
	memset(&answer, 0, sizeof(answer));
	bus.who = (enum fuzz_caller)((data[1] & 7) % 6);
	bus.polkit_yes = data[1] & 8;
	bus.polkit_fails = data[1] & 16;
	bus.challenge = data[1] & 64;
	bus.polkit_asked = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[16384];
	char *s[FUZZ_STRS];
	enum fuzz_call call;
	sd_bus_message *m = NULL;
	sd_bus_slot *slot = NULL;
	int n = 0, r;

	if (size < 3 || size - 3 >= sizeof(buf))
		return 0;
	setup_once();
	reset(data);
	call = (enum fuzz_call)(data[0] % CALL_N);
	memcpy(buf, data + 3, size - 3);
	buf[size - 3] = '\0';
	for (size_t k = 0, start = 0; k < size - 2 && n < FUZZ_STRS; k++)
		if (buf[k] == '\0') {
			s[n++] = buf + start;
			start = k + 1;
		}
	r = sd_bus_message_new_method_call(srv, &m, gadgetd_name, "/org/gadgetd1",
					   call == CALL_PROPERTIES ?
					   "org.freedesktop.DBus.Properties" :
					   "org.gadgetd1.Manager", members[call]);
	if (r >= 0)
		r = sd_bus_message_set_sender(m, caller);
	if (r >= 0)
		r = sd_bus_message_set_allow_interactive_authorization(m, data[1] & 32);
	if (r >= 0)
		r = append_args(m, call, n, s);
	if (r < 0) {
		sd_bus_message_unref(m);
		return 0; /* no such message: the bus would refuse it */
	}
	if (sd_bus_call_async(srv, &slot, m, on_answer, NULL, 0) < 0)
		abort();
	sd_bus_message_unref(m);
	for (int i = 0; i < 1000 && !answer.n; i++)
		pump();
	pump();
	sd_bus_slot_unref(slot);
	check(call, n, s);
	return 0;
}
