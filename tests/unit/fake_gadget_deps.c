/*
 * Fakes for the modules gadget.c drives: ConfigFS (composer), the worker
 * supervisor, UDCs and the state file. Each call is appended to
 * fake_calls as "name(arg) " so a test can check the exact sequence, and
 * fake_fail_at makes one call fail.
 */
#include "fake_gadget_deps.h"

#include "composer.h"
#include "config.h"
#include "console.h"
#include "console_system.h"
#include "event.h"
#include "gadget.h"
#include "inputfwd.h"
#include "loop.h"
#include "usblink.h"
#include "uplink.h"
#include "run_until.h"
#include "state.h"
#include "supervisor.h"
#include "status.h"
#include "supervisor_exec.h"
#include "tcplisten.h"
#include "udc.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char fake_calls[8192];
char fake_fail_at[128];
char fake_not_ready[64];
unsigned fake_not_ready_times;
static unsigned fake_not_ready_seen;
char fake_state_set[STATE_SET_MAX];
int fake_state_saves;
struct state fake_state_file;
int fake_state_load_r;
int fake_bind_busy;
/* How many udc_registered() calls answer false: a UDC still registering. */
int fake_udc_registering;
const char *fake_udc_holder;
bool fake_udc_stranded;
void (*fake_udc_fn)(void *data);
void *fake_udc_data;
static bool fake_bound;
static char fake_workers[32][PROFILE_NAME_MAX];
static unsigned fake_n_workers;

void fake_reset(void)
{
	fake_console_hold = false;
	fake_calls[0] = fake_fail_at[0] = fake_not_ready[0] = '\0';
	fake_not_ready_times = fake_not_ready_seen = 0;
	fake_state_set[0] = '\0';
	fake_state_saves = 0;
	memset(&fake_state_file, 0, sizeof(fake_state_file));
	fake_state_load_r = 0;
	fake_lock_marker = false;
	fake_lock_save_r = 0;
	fake_sup_locked = -1;
	fake_n_workers = 0;
	fake_bound = false;
	fake_bind_busy = 0;
	fake_udc_registering = 0;
	fake_udc_holder = NULL;
	fake_udc_stranded = false;
	fake_udc_state = "configured";
	fake_hold_ready = false;
	fake_hold_stop = false;
	fake_bus_suspended = false;
	fake_udc_wakeup_r = 0;
	fake_udc_wakeups = 0;
}

bool fake_is_bound(void)
{
	return fake_bound;
}

void fake_lose_binding(void)
{
	fake_bound = false;
}

void fake_clear_calls(void)
{
	fake_calls[0] = '\0';
}

static int fake_call(const char *name, const char *arg)
{
	char call[128];
	size_t n = strlen(fake_calls);

	snprintf(call, sizeof(call), "%s(%s)", name, arg ? arg : "");
	snprintf(fake_calls + n, sizeof(fake_calls) - n, "%s ", call);
	return strcmp(call, fake_fail_at) ? 0 : -EIO;
}

struct composer {
	int unused;
};
static struct composer fake_composer;

int composer_new(const char *gadget_name, struct composer **out)
{
	*out = &fake_composer;
	return 0;
}

void composer_free(struct composer *c) {}

int composer_destroy(struct composer *c)
{
	fake_bound = false;
	return fake_call("destroy", NULL);
}

int composer_identity(struct composer *c, const struct profile *p, unsigned set)
{
	char id[16];

	snprintf(id, sizeof(id), "%04x", p->sets[set].product_id);
	return fake_call("identity", id);
}

int composer_add_function(struct composer *c, const struct profile_function *f)
{
	return fake_call("add", f->name);
}

int composer_remove_function(struct composer *c, const char *name)
{
	return fake_call("remove", name);
}

/* No ConfigFS here: gadget_storage.c finds no folder. */
int composer_function_dir(struct composer *c, const struct ktype *type,
			  const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "/nonexistent/%s.%s", type->name, name);
	return 0;
}

int composer_unlink_all(struct composer *c)
{
	return fake_call("unlink_all", NULL);
}

/* link(acm) in c.1, link(rndis@2) in c.2 ... */
int composer_link(struct composer *c, unsigned config, const char *name)
{
	char arg[64];

	if (!config)
		return fake_call("link", name);
	snprintf(arg, sizeof(arg), "%s@%u", name, config + 1);
	return fake_call("link", arg);
}

int composer_bind(struct composer *c, const char *udc)
{
	int r = fake_call("bind", udc);

	if (!r && fake_bind_busy > 0) {
		fake_bind_busy--;
		r = -EBUSY;
	}
	fake_bound = !r;
	return r;
}

int composer_unbind(struct composer *c)
{
	if (!fake_bound)
		return 0;
	fake_bound = false;
	return fake_call("unbind", NULL);
}

const char *composer_bound_udc(struct composer *c)
{
	return fake_bound ? "dummy_udc.0" : NULL;
}

bool fake_bus_suspended;
int fake_udc_wakeup_r;
unsigned fake_udc_wakeups;
const struct supervisor_bus_ops *fake_bus_ops;
void *fake_bus_data;

void supervisor_bus_set_ops(struct supervisor *s,
			    const struct supervisor_bus_ops *ops, void *data)
{
	fake_bus_ops = ops;
	fake_bus_data = data;
}

bool supervisor_bus_suspended(struct supervisor *s)
{
	return fake_bus_suspended;
}

int udc_wakeup(const char *name)
{
	fake_udc_wakeups++;
	return fake_udc_wakeup_r;
}

/* No input forwarding here (inputfwd.c follows udev): what netsvc.c
 * asks of it last. */
static int fake_inputfwd_token;
unsigned fake_inputfwd_wants;

struct inputfwd *inputfwd_new(struct loop *l, struct supervisor *sup)
{
	return (struct inputfwd *)&fake_inputfwd_token;
}

void inputfwd_free(struct inputfwd *f)
{
}

void inputfwd_sync(struct inputfwd *f, const struct inputfwd_want *want, unsigned n,
		   uint16_t vendor, uint16_t product)
{
	fake_inputfwd_wants = n;
}

void supervisor_input_set_fn(struct supervisor *s, supervisor_input_fn fn, void *data)
{
}

/* No TCP here: netsvc.c finds nothing to do. */
void supervisor_tcp_set_fn(struct supervisor *s, supervisor_tcp_fn fn,
			   void *data)
{
}

unsigned supervisor_tcp_port(struct supervisor *s, const char *name,
			     const char **iface)
{
	return 0;
}

bool supervisor_tcp_due(struct supervisor *s, const char *name,
			const char *what)
{
	return false;
}

int supervisor_tcp_listen(struct supervisor *s, const char *name,
			  unsigned port, int *fds, unsigned n, const char *what)
{
	return -ESRCH;
}

unsigned supervisor_tcp_listening(struct supervisor *s, const char *name)
{
	return 0;
}

int tcplisten_open(const char *ifname, unsigned port, int *fd)
{
	return -ENOSYS;
}

struct fake_cmd {
	char name[PROFILE_NAME_MAX];
	supervisor_reply_fn fn;
	void *data;
};

struct supervisor {
	struct loop *loop;
	supervisor_switch_fn on_switch;
	supervisor_restart_fn on_restart;
	void *data;
	supervisor_ready_fn ready_fn;
	void *ready_data;
	unsigned timeout_ms;
	struct loop_watch *ready_idle;
	struct fake_cmd cmds[8];
	unsigned n_cmds;
	/* Stopped workers not reaped yet, and the wait for them. */
	unsigned n_stopping;
	supervisor_stopped_fn stopped_fn;
	void *stopped_data;
	struct loop_watch *stopped_idle;
	bool any_failed;
	char failed[PROFILE_NAME_MAX];
};
static struct supervisor fake_sup;
bool fake_hold_ready;
bool fake_hold_stop;

struct supervisor *supervisor_new(struct loop *l, const struct config *cfg,
				  supervisor_switch_fn on_switch,
				  supervisor_restart_fn on_restart, void *data)
{
	memset(&fake_sup, 0, sizeof(fake_sup));
	fake_sup.loop = l;
	fake_sup.on_switch = on_switch;
	fake_sup.on_restart = on_restart;
	fake_sup.data = data;
	return &fake_sup;
}

static void fake_cmd_finish(unsigned i, int rc, const char *text)
{
	struct fake_cmd c = fake_sup.cmds[i];

	memmove(&fake_sup.cmds[i], &fake_sup.cmds[i + 1],
		(--fake_sup.n_cmds - i) * sizeof(c));
	c.fn(rc, text, c.data);
}

void supervisor_free(struct supervisor *s)
{
	fake_n_workers = 0;
	supervisor_wait_cancel(s);
	supervisor_wait_stopped_cancel(s);
	while (s->n_cmds)
		fake_cmd_finish(0, -ECANCELED, "stopped");
}

int supervisor_start(struct supervisor *s, const struct profile_function *f)
{
	int r = fake_call("start", f->name);

	if (!r)
		snprintf(fake_workers[fake_n_workers++], PROFILE_NAME_MAX, "%s", f->name);
	return r;
}

static void fake_cmds_fail(const char *name, int rc, const char *why)
{
	unsigned i = 0;

	while (i < fake_sup.n_cmds) {
		if (strcmp(fake_sup.cmds[i].name, name))
			i++;
		else
			fake_cmd_finish(i, rc, why);
	}
}

void supervisor_stop(struct supervisor *s, const char *name)
{
	unsigned i;

	for (i = 0; i < fake_n_workers; i++) {
		if (!strcmp(fake_workers[i], name)) {
			fake_call("stop", name);
			s->n_stopping++;
			memcpy(fake_workers[i], fake_workers[--fake_n_workers],
			       PROFILE_NAME_MAX);
			fake_cmds_fail(name, -ECANCELED, "the function was stopped");
			return;
		}
	}
}

const char *supervisor_start_error(struct supervisor *s)
{
	return "";
}

static bool fake_sup_has(struct supervisor *s, const char *name)
{
	unsigned i;

	for (i = 0; i < fake_n_workers; i++)
		if (!strcmp(fake_workers[i], name))
			return true;
	return false;
}

static void fake_ready_report(int r, const char *err)
{
	supervisor_ready_fn fn = fake_sup.ready_fn;
	void *data = fake_sup.ready_data;

	supervisor_wait_cancel(&fake_sup);
	fn(r, err, data);
}

static void fake_ready_idle(struct loop_watch *w, void *data)
{
	char err[256];

	fake_sup.ready_idle = NULL;
	if (fake_not_ready[0] && fake_sup_has(&fake_sup, fake_not_ready) &&
	    (!fake_not_ready_times || fake_not_ready_seen++ < fake_not_ready_times)) {
		snprintf(err, sizeof(err), "function %s: plugin not ready after %u ms",
			 fake_not_ready, fake_sup.timeout_ms);
		fake_ready_report(-ETIMEDOUT, err);
		return;
	}
	fake_ready_report(0, "");
}

int supervisor_wait_ready(struct supervisor *s, unsigned timeout_ms,
			  supervisor_ready_fn fn, void *data)
{
	if (s->ready_fn)
		return -EBUSY;
	s->ready_fn = fn;
	s->ready_data = data;
	s->timeout_ms = timeout_ms;
	if (!fake_hold_ready)
		s->ready_idle = loop_add_idle(s->loop, fake_ready_idle, NULL);
	return 0;
}

bool supervisor_stopping(struct supervisor *s)
{
	return s->n_stopping > 0;
}

/* The stopped workers are reaped: "reaped()" in the calls, then fn. */
static void fake_stopped_idle(struct loop_watch *w, void *data)
{
	supervisor_stopped_fn fn = fake_sup.stopped_fn;

	fake_sup.stopped_idle = NULL;
	if (fake_sup.n_stopping)
		fake_call("reaped", NULL);
	fake_sup.n_stopping = 0;
	fake_sup.stopped_fn = NULL;
	fn(fake_sup.stopped_data);
}

int supervisor_wait_stopped(struct supervisor *s, supervisor_stopped_fn fn,
			    void *data)
{
	if (s->stopped_fn)
		return -EBUSY;
	s->stopped_fn = fn;
	s->stopped_data = data;
	if (!fake_hold_stop || !s->n_stopping)
		s->stopped_idle = loop_add_idle(s->loop, fake_stopped_idle, NULL);
	return 0;
}

void supervisor_wait_stopped_cancel(struct supervisor *s)
{
	loop_watch_remove(s->stopped_idle);
	s->stopped_idle = NULL;
	s->stopped_fn = NULL;
}

bool fake_waiting_stopped(void)
{
	return fake_sup.stopped_fn != NULL;
}

void fake_release_stop(void)
{
	fake_sup.stopped_idle = loop_add_idle(fake_sup.loop, fake_stopped_idle, NULL);
}

int supervisor_revive(struct supervisor *s)
{
	if (s->any_failed)
		fake_call("revive", NULL);
	s->any_failed = false;
	return 0;
}

bool supervisor_any_failed(struct supervisor *s)
{
	return s->any_failed;
}

bool supervisor_failed(struct supervisor *s, const char *name)
{
	return s->any_failed && !strcmp(s->failed, name);
}

void fake_plugin_failed(const char *name)
{
	fake_sup.any_failed = true;
	snprintf(fake_sup.failed, sizeof(fake_sup.failed), "%s", name);
}

void supervisor_wait_cancel(struct supervisor *s)
{
	loop_watch_remove(s->ready_idle);
	s->ready_idle = NULL;
	s->ready_fn = NULL;
	s->ready_data = NULL;
}

bool fake_waiting_ready(void)
{
	return fake_sup.ready_fn != NULL;
}

void fake_release_ready(int r, const char *err)
{
	fake_ready_report(r, err);
}

int supervisor_command(struct supervisor *s, const char *name, int argc,
		       char **argv, char *reply, size_t reply_size,
		       supervisor_reply_fn fn, void *data)
{
	struct fake_cmd *c;

	if (!fake_sup_has(s, name)) {
		snprintf(reply, reply_size, "function %s is not live", name);
		return -ENOENT;
	}
	if (s->n_cmds == sizeof(s->cmds) / sizeof(s->cmds[0]))
		return -ENOSPC;
	c = &s->cmds[s->n_cmds++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fn = fn;
	c->data = data;
	fake_call("command", name);
	return -EINPROGRESS;
}

unsigned fake_commands_pending(void)
{
	return fake_sup.n_cmds;
}

void fake_command_reply(int rc, const char *text)
{
	fake_cmd_finish(0, rc, text);
}

void fake_worker_dies(const char *name)
{
	fake_cmds_fail(name, -EPIPE, "plugin worker exited before it replied");
}

void fake_plugin_request(const char *function, const char *request)
{
	fake_sup.on_switch(function, request, fake_sup.data);
}

void fake_restart_due(const char *function)
{
	fake_sup.on_restart(function, fake_sup.data);
}

unsigned supervisor_restarts(struct supervisor *s, const char *name) { return 1; }

int supervisor_respawn(struct supervisor *s, const char *name)
{
	int r = fake_call("respawn", name);

	return r ? r : supervisor_failed(s, name) ? -ENOTRECOVERABLE : 0;
}
void supervisor_exec_clean_mounts(const struct config *cfg) {}
void supervisor_status(struct supervisor *s, struct status *st) { st->n_plugins = 0; }

int udc_pick(const char *policy, char *buf, size_t size)
{
	snprintf(buf, size, "dummy_udc.0");
	return 0;
}

bool udc_registered(const char *name)
{
	if (fake_udc_registering > 0) {
		fake_udc_registering--;
		return false;
	}
	return true;
}

const char *fake_udc_state = "configured";

void udc_state(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s", fake_udc_state);
}

/* No UDC but the one bound, if any. */
unsigned udc_list(char *names, size_t size, unsigned max)
{
	return 0;
}

void udc_speed(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "high-speed");
}

void udc_function(const char *name, char *buf, size_t size)
{
	const char *who = fake_bound && !fake_udc_stranded ? "gadgetd" : "";

	snprintf(buf, size, "%s", fake_udc_holder ? fake_udc_holder : who);
}

struct udc_monitor *udc_monitor_new(struct loop *l, udc_change_fn fn, void *data)
{
	fake_udc_fn = fn;
	fake_udc_data = data;
	return NULL;
}

void udc_monitor_free(struct udc_monitor *m) {}

int state_load(const char *path, struct state *st, char *err, size_t err_size)
{
	memset(st, 0, sizeof(*st));
	if (fake_state_load_r) {
		snprintf(err, err_size, "%s:1: fake", path);
		return fake_state_load_r;
	}
	if (!fake_state_file.profile[0])
		return -ENOENT;
	*st = fake_state_file;
	return 0;
}

int state_save(const char *path, const struct state *st)
{
	snprintf(fake_state_set, sizeof(fake_state_set), "%s", st->set);
	fake_state_file = *st;
	fake_state_saves++;
	return 0;
}

/* The lock marker (state.h): saved, and what the workers were told. */
bool fake_lock_marker;
int fake_lock_save_r;
int fake_sup_locked = -1;

bool state_lock_load(const char *run_dir)
{
	return fake_lock_marker;
}

int state_lock_save(const char *run_dir, bool locked)
{
	if (fake_lock_save_r)
		return fake_lock_save_r;
	fake_lock_marker = locked;
	return 0;
}

void supervisor_set_locked(struct supervisor *s, bool locked)
{
	fake_sup_locked = locked;
}

void fake_on_done(int r, const char *msg, void *data)
{
	struct fake_result *res = data;

	assert_false(res->done);
	res->done = true;
	res->r = r;
	snprintf(res->msg, sizeof(res->msg), "%s", msg);
}

int fake_wait_done(struct loop *l, struct fake_result *res)
{
	RUN_UNTIL(l, res->done);
	assert_true(res->done);
	return res->r;
}

char fake_heard[4096];

void fake_hear(const struct event *ev, void *data)
{
	size_t n = strlen(fake_heard);

	snprintf(fake_heard + n, sizeof(fake_heard) - n, "%s%s%s:%s:%d;",
		 event_kind_name(ev->kind), ev->function ? "/" : "",
		 ev->function ? ev->function : "", ev->detail, ev->code);
}

int fake_finish(struct loop *l, int r, struct fake_result *res)
{
	if (r != -EINPROGRESS)
		return r;
	assert_false(res->done);
	return fake_wait_done(l, res);
}

/* The network links: each sync that wants links is recorded as
 * "net(FUNCTION@IFNAME,...)", one that takes live links down as "net()";
 * one that changes nothing from none (every teardown of a gadget without
 * addresses) is not, so that those sequences stay as they were. */
struct usblink {
	unsigned unused; /* the links live now */
};

struct usblink *usblink_new(struct loop *l, const struct config *cfg)
{
	return calloc(1, sizeof(struct usblink));
}

void usblink_free(struct usblink *nl)
{
	free(nl);
}

void usblink_sync(struct usblink *nl, const struct usblink_want *want, unsigned n,
		  const struct usblink_service *svc, unsigned n_svc)
{
	char arg[256];
	size_t len = 0;
	unsigned i;

	/* Down is recorded as "net()" only when links were up. */
	if (!n && nl->unused)
		fake_call("net", NULL);
	nl->unused = n;
	if (!n)
		return;
	arg[0] = '\0';
	for (i = 0; i < n && len < sizeof(arg); i++)
		len += snprintf(arg + len, sizeof(arg) - len, "%s%s@%s", i ? "," : "",
				want[i].function, want[i].ifname);
	fake_call("net", arg);
}

/* The console's backend: "console(+N)" for a start on ttyGSN,
 * "console(-N)" for a stop. */
static int fake_console_start(void *be, unsigned port)
{
	char arg[16];

	snprintf(arg, sizeof(arg), "+%u", port);
	fake_call("console", arg);
	return 0;
}

bool fake_console_hold;
static struct console *fake_console;
static unsigned fake_console_held[CONSOLE_MAX], fake_console_n_held;

static void fake_console_stop(void *be, unsigned port)
{
	char arg[16];

	snprintf(arg, sizeof(arg), "-%u", port);
	fake_call("console", arg);
	if (fake_console_hold && fake_console_n_held < CONSOLE_MAX)
		fake_console_held[fake_console_n_held++] = port;
	else
		console_stopped(fake_console, port);
}

void fake_console_release(void)
{
	fake_call("console", "stopped");
	while (fake_console_n_held)
		console_stopped(fake_console, fake_console_held[--fake_console_n_held]);
}

static void fake_console_free(void *be)
{
	fake_console_n_held = 0;
}

static const struct console_ops fake_console_ops = {
	.name = "fake",
	.start = fake_console_start,
	.stop = fake_console_stop,
	.free = fake_console_free,
};

struct console *console_system_new(struct loop *l, const struct config *cfg)
{
	fake_console = console_new(&fake_console_ops, NULL);
	return fake_console;
}

/* Every serial function is ttyGS3. */
int composer_serial_port(struct composer *c, const struct ktype *type,
			 const char *name, unsigned *port)
{
	*port = 3;
	return 0;
}

unsigned usblink_ifaces(const struct usblink *nl, const char **names, unsigned max)
{
	return 0;
}

unsigned fake_n_shares;
struct uplink_info fake_shares[2];

unsigned usblink_shares(const struct usblink *nl, struct uplink_info *out, unsigned max)
{
	unsigned i;

	for (i = 0; i < fake_n_shares && i < max; i++)
		out[i] = fake_shares[i];
	return i;
}

int composer_net_ifname(struct composer *c, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "usb0");
	return 0;
}

/* The host's side of the UDC: fake_host_state() tells the gadget's watch
 * a new state, as the kernel's notification would. */
struct udc_watch {
	char name[64];
	char last[32];
	udc_state_fn fn;
	void *data;
};
static struct udc_watch *fake_watch;

struct udc_watch *udc_watch_new(struct loop *l, const char *name,
				udc_state_fn fn, void *data)
{
	struct udc_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->fn = fn;
	w->data = data;
	fake_watch = w;
	fake_host_state("default");
	return w;
}

void fake_host_state(const char *state)
{
	if (!fake_watch || !strcmp(fake_watch->last, state))
		return;
	snprintf(fake_watch->last, sizeof(fake_watch->last), "%s", state);
	fake_watch->fn(state, fake_watch->data);
}

void udc_watch_check(struct udc_watch *w) {}

const char *udc_watch_name(const struct udc_watch *w)
{
	return w->name;
}

const char *udc_watch_state(const struct udc_watch *w)
{
	return w->last;
}

void udc_watch_free(struct udc_watch *w)
{
	if (w == fake_watch)
		fake_watch = NULL;
	free(w);
}

/* test_gadget's profile "t" (fake_gadget_deps.h). */
const char fake_gadget_profile[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;\n"
	"  strings: { lang = 0x409; manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };\n"
	"};\n"
	"functions: {\n"
	"  acm: { type = \"acm\"; };\n"
	"  ecm: { type = \"ecm\"; };\n"
	"  ncm: { type = \"ncm\"; };\n"
	"  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; };\n"
	"  mtp: { type = \"ffs\"; plugin = \"mtp\"; user = \"root\"; };\n"
	"  aoa: { type = \"ffs\"; plugin = \"accessory\"; user = \"root\";\n"
	"         options: { mode = \"control\"; accessory_set = \"ncm\"; }; };\n"
	"  rndis: { type = \"rndis\"; address = \"10.77.0.1/24\"; dhcp = true; };\n"
	"  tty: { type = \"gser\"; console = \"getty\"; };\n"
	"};\n"
	"sets = (\n"
	"  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },\n"
	"  { functions = [ \"ncm\" ]; product_id = 0x0106; },\n"
	"  { functions = [ \"acm\", \"adb\" ]; product_id = 0x0107; },\n"
	"  { functions = [ \"mtp\", \"adb\" ]; product_id = 0x0108; },\n"
	"  { functions = [ \"mtp\", \"adb\", \"aoa\" ]; product_id = 0x0109; },\n"
	"  { configs = ( { functions = [ \"ncm\", \"acm\" ]; },\n"
	"                { functions = [ \"ecm\", \"acm\" ]; name = \"ECM\"; } ); product_id = 0x010a; },\n"
	"  { configs = ( { functions = [ \"ecm\" ]; }, { functions = [ \"acm\", \"adb\" ]; } ); product_id = 0x010b; },\n"
	"  { functions = [ \"rndis\", \"adb\" ]; product_id = 0x010c; },\n"
	"  { functions = [ \"tty\", \"ecm\" ]; product_id = 0x010d; },\n"
	"  { functions = [ \"tty\", \"ncm\" ]; product_id = 0x010e; }\n"
	");\n"
	"default = \"acm,ecm\";\n";

void fake_profile_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/%s.XXXXXX", name);
	assert_non_null(mkdtemp(dir));
}

void fake_profile_put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.conf", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

void fake_profile_dir_remove(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *dp = opendir(dir);

	assert_non_null(dp);
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(dp);
	assert_int_equal(rmdir(dir), 0);
}

void fake_config(struct config *cfg, char *dir)
{
	cfg->profile = "t";
	cfg->profile_dir = dir;
	cfg->udc = "auto";
	cfg->state_file = "/nonexistent/state";
	cfg->gadget_name = "g";
	cfg->ffs_dir = "/nonexistent";
	cfg->ready_timeout_ms = 100;
}
