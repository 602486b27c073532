/*
 * libFuzzer target: the control socket's request handling (control.c and
 * ctl_parse_args), through a real socket and the real loop, against a
 * faked gadget that checks what reaches it.
 *
 * Input: byte 0 odd: the rest is one datagram. Even: the rest is a list
 * of datagrams, each a u16 little-endian length then its bytes, sent on
 * one connection. Every non-empty datagram must get exactly one well-formed
 * reply: a CTL_REPLY header whose length matches, a status of 0 or
 * -errno, and NUL-terminated text. The exception is a monitor: see
 * monitor_roundtrip().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "access.h"
#include "request.h"
#include "config.h"
#include "control.h"
#include "dispatch.h"
#include "fuzz_runtime.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What reaches the gadget must be strings the request carried. */
static void check_args(int argc, char **argv)
{
	size_t sum = 0;

	if (argc < 0 || argc > 64)
		abort();
	for (int i = 0; i < argc; i++)
		sum += strlen(argv[i]) + 1;
	if (sum > CTL_MSG_MAX)
		abort();
}

static struct loop *loop;

/* Requests whose argument starts with 's' finish later, from the loop, as
 * a real switch does; the client stays pending until then. */
struct fake_pending {
	struct loop_watch *idle;
	gadget_done_fn fn;
	void *data;
	int r;
	char msg[64];
};
static struct fake_pending pending[64];

static void fake_finish(struct loop_watch *w, void *p)
{
	struct fake_pending *fp = p;

	loop_watch_remove(w);
	fp->idle = NULL;
	if (fp->fn)
		fp->fn(fp->r, fp->msg, fp->data);
}

static int fake_msg(char *msg, size_t size, const char *what, const char *arg,
		    gadget_done_fn fn, void *data)
{
	int r = arg && !strcmp(arg, "fail") ? -EINVAL : 0;

	if (size == 0)
		abort();
	snprintf(msg, size, "%s %s", what, arg ? arg : "-");
	if (!fn || !arg || arg[0] != 's')
		return r;
	for (unsigned i = 0; i < sizeof(pending) / sizeof(*pending); i++) {
		struct fake_pending *fp = &pending[i];

		if (fp->idle)
			continue;
		fp->idle = loop_add_idle(loop, fake_finish, fp);
		if (!fp->idle)
			abort();
		fp->fn = fn;
		fp->data = data;
		fp->r = r;
		snprintf(fp->msg, sizeof(fp->msg), "%s", msg);
		return -EINPROGRESS;
	}
	return r;
}

void gadget_cancel(struct gadget *g, void *data)
{
	for (unsigned i = 0; i < sizeof(pending) / sizeof(*pending); i++)
		if (pending[i].idle && pending[i].data == data)
			pending[i].fn = NULL;
}

int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size, gadget_done_fn fn, void *data)
{
	if (!profile && !set)
		abort();
	return fake_msg(msg, size, "switched", set ? set : profile, fn, data);
}

int gadget_off(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
	       void *data)
{
	return fake_msg(msg, size, "off", NULL, NULL, NULL);
}

int gadget_reload(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	return fake_msg(msg, size, "reloaded", NULL, fn, data);
}

int gadget_wakeup(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		  void *data)
{
	return fake_msg(msg, size, "woken", NULL, fn, data);
}

int gadget_lock(struct gadget *g, bool locked, char *msg, size_t size)
{
	snprintf(msg, size, "%s", locked ? "locked" : "unlocked");
	return 0;
}

/* Long output, so that replies reach the size limit. */
void gadget_status(struct gadget *g, FILE *out, bool json)
{
	for (int i = 0; i < 2000; i++)
		fprintf(out, json ? "{\"line\":%d}\n" : "line %d\n", i);
}

int gadget_list_names(struct gadget *g, FILE *out, const char *what)
{
	if (strcmp(what, "sets"))
		return -EINVAL;
	fprintf(out, "acm\n");
	return 0;
}

int gadget_boot_wait(struct gadget *g, char *msg, size_t size,
		     gadget_done_fn fn, void *data)
{
	return fake_msg(msg, size, "up", NULL, fn, data);
}

void gadget_list(struct gadget *g, FILE *out)
{
	fprintf(out, "sets:\n  acm\n");
}

int gadget_command(struct gadget *g, int argc, char **argv,
			    char *reply, size_t size, gadget_done_fn fn,
			    void *data)
{
	check_args(argc, argv);
	return fake_msg(reply, size, "function", argc ? argv[0] : NULL, fn, data);
}

int gadget_storage(struct gadget *g, const struct storage_cred *member,
		   const struct storage_req *req, char *msg, size_t size, FILE *out)
{
	snprintf(msg, size, "storage %d %s", (int)req->op,
		 req->function ? req->function : "-");
	return 0;
}

bool gadget_storage_group_open(const struct gadget *g, const char *function)
{
	return function && !strcmp(function, "media");
}

const char *gadget_profile_name(const struct gadget *g)
{
	return "fuzz";
}

/* "adb" and "mtp" are plugins; other names are kernel functions. */
const char *gadget_function_plugin(const struct gadget *g,
				   const char *function)
{
	if (!strcmp(function, "adb") || !strcmp(function, "mtp"))
		return function;
	return NULL;
}

static char path[200];
/* The fuzzer runs as root: every request passes the access check and
 * reaches the parser and the handlers. */
static const struct access_policy policy = { .group = NULL,
					     .admin_group = NULL };

static const struct config cfg = { .switch_queue = 8, .switch_queue_timeout_ms = 60000 };
static struct dispatch *dispatch;

static void setup_once(void)
{
	if (loop)
		return;
	log_init("fuzz_control", true, LOG_LEVEL_ERROR);
	snprintf(path, sizeof(path), "%s/sock", fuzz_rt_scratch("fuzz_control"));
	loop = loop_new();
	dispatch = loop ? dispatch_new(loop, &cfg, &policy, (struct gadget *)&loop) : NULL;
	if (!dispatch || !control_new(loop, path, &policy, (struct gadget *)&loop, dispatch))
		abort();
}

/* Returns the reply's status. */
static int32_t check_reply(const uint8_t *buf, ssize_t n)
{
	struct ctl_hdr h;
	struct ctl_reply_body b;

	if (n < (ssize_t)(sizeof(h) + sizeof(b) + 1))
		abort();
	memcpy(&h, buf, sizeof(h));
	memcpy(&b, buf + sizeof(h), sizeof(b));
	if (h.type != CTL_REPLY || h.len != n - sizeof(h) || buf[n - 1] != '\0')
		abort();
	if (b.status > 0 || b.status < -4095)
		abort();
	return b.status;
}

/*
 * The socket's peer is root here; the rules for everyone else are a pure
 * function: ask it about the same request for a group member, an admin
 * and an outsider. A refusal says why; an outsider may only look.
 */
static void check_access(const uint8_t *d, size_t len)
{
	static const struct access_policy policy = {
		.group = "plugdev", .group_gid = 46,
		.admin_group = "gadgetadm", .admin_gid = 1234,
	};
	static const struct access_peer peers[] = {
		{ .uid = 1000, .in_group = true },
		{ .uid = 1000, .in_admin = true },
		{ .uid = 1000 },
	};
	static char copy[CTL_MSG_MAX];
	char *argv[64], why[256];
	struct request req;
	struct ctl_hdr h;
	int argc;

	if (len < sizeof(h))
		return;
	memcpy(&h, d, sizeof(h));
	if (h.len != len - sizeof(h) || h.len > sizeof(copy))
		return;
	memcpy(copy, d + sizeof(h), h.len);
	argc = ctl_parse_args(copy, h.len, argv, 64);
	if (argc < 0)
		return;
	request_from_ctl(h.type, argc, argv, &req);
	for (unsigned i = 0; i < sizeof(peers) / sizeof(*peers); i++) {
		struct access_view view = {
			.active = gadget_profile_name(NULL),
			.plugin = req.function ? gadget_function_plugin(NULL, req.function)
					       : NULL,
		};
		int rc;

		why[0] = '\0';
		rc = access_check(&policy, &peers[i], &req, &view, why, sizeof(why));
		if (rc != 0 && (rc != -EACCES || !why[0]))
			abort();
		if (i == 2 && rc == 0 && h.type >= CTL_SWITCH &&
		    h.type <= CTL_FUNCTION && h.type != CTL_STATUS &&
		    h.type != CTL_LIST)
			abort();
	}
}

/* The connection's CTL_MONITOR was answered 0: it is a monitor now. */
static bool monitoring;

/*
 * A datagram on a monitor's connection is not a request, and gets no
 * reply. ctl.h makes a monitor one-way: one CTL_REPLY (subscribed), then
 * CTL_EVENTs until a last CTL_REPLY that ends it (gadgetd stops, or the
 * monitor fell behind), and control.c reads and drops whatever such a
 * client sends. An answer there would be read by gadgetctl monitor as
 * that last reply. So nothing may come back (the fake gadget emits no
 * events), and the monitor must stay: a socket closed here would read
 * as 0. An empty datagram is a hang-up and ends it, as on any
 * connection. (Issue 37: this harness had waited for a reply to a
 * request sent after CTL_MONITOR, and aborted after 2 s every time;
 * corpus_control/monitor_then_requests is that input.)
 */
static void monitor_roundtrip(int fd, const uint8_t *d, size_t len)
{
	uint8_t buf[256];

	if (send(fd, d, len, MSG_NOSIGNAL) != (ssize_t)len)
		return;
	/* A unix socket queues the datagram at once: the first dispatch
	 * reads it, and a reply, had one been sent, would be queued. */
	loop_dispatch(loop, 0);
	loop_dispatch(loop, 0);
	if (len == 0)
		return;
	if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		abort(); /* a monitor answered, or closed, on a datagram */
}

static void roundtrip(int fd, const uint8_t *d, size_t len)
{
	static uint8_t buf[CTL_MSG_MAX + 16];
	struct ctl_hdr h = { 0 };
	ssize_t n = -1;

	check_access(d, len);
	if (monitoring) {
		monitor_roundtrip(fd, d, len);
		return;
	}
	if (send(fd, d, len, MSG_NOSIGNAL) != (ssize_t)len)
		return; /* the server closed: an empty datagram did that */
	for (int i = 0; i < 20 && n < 0; i++) {
		loop_dispatch(loop, 100);
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	}
	if (len == 0)
		return; /* read as a hang-up: no reply */
	if (n < 0)
		abort(); /* a request without an answer */
	if (len >= sizeof(h))
		memcpy(&h, d, sizeof(h));
	/* Only a well-formed CTL_MONITOR that passed every check gets 0. */
	if (check_reply(buf, n) == 0 && h.type == CTL_MONITOR)
		monitoring = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t off = 1;
	int fd;

	if (size == 0 || size > CTL_MSG_MAX * 2)
		return 0;
	setup_once();
	monitoring = false;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	strcpy(sa.sun_path, path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	loop_dispatch(loop, 0); /* accept */
	if (data[0] & 1) {
		roundtrip(fd, data + 1, size - 1 < CTL_MSG_MAX ? size - 1
							      : CTL_MSG_MAX);
	} else {
		while (off + 2 <= size) {
			size_t len = data[off] | data[off + 1] << 8;

			off += 2;
			if (len > size - off)
				len = size - off;
			roundtrip(fd, data + off, len);
			off += len;
		}
	}
	close(fd);
	loop_dispatch(loop, 0); /* let the server see the hang-up */
	return 0;
}
