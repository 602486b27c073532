#include "control.h"
#include "access.h"
#include "dispatch.h"
#include "event.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "ctl.h"
#include "request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_MAX_ARGS 64

/* One datagram waiting for a monitor that does not read fast enough. */
struct control_out {
	struct control_out *next;
	size_t len;
	char buf[];
};

struct control_client {
	struct control *ctl;
	struct control_client *next;
	struct loop_watch *io;
	struct loop_watch *idle;
	struct access_peer peer;
	/* Its request goes on after control_request() returned (a switch
	 * waits for plugins): the reply comes from control_client_done(). */
	bool pending;
	char *early;              /* text printed before the request went on */
	/* A monitor (CTL_MONITOR): its subscription, and what the socket
	 * did not take yet, at most CONTROL_MONITOR_QUEUE datagrams. */
	struct event_sub *monitor;
	struct control_out *out_head, **out_tail;
	unsigned n_out;
	/* Fell behind (or its socket failed): the last datagram queued says
	 * so, and the client goes once it is sent (or after idle_ms). */
	bool dropping;
};

struct control {
	struct loop *loop;
	struct gadget *gadget;
	struct dispatch *dispatch;
	struct loop_watch *listen;
	struct loop_watch *retry;  /* armed while accept() is paused */
	bool paused;
	char *path;
	struct access_policy policy;
	struct control_client *clients;
	unsigned n_clients;
	unsigned max_clients, idle_ms, retry_ms;
	unsigned per_uid, reserved;
	struct log_burst full_log, accept_log, denied_log, monitor_log;
};

static void control_client_done(int r, const char *msg, void *data);
static void control_client_free(struct control_client *cl);

static void control_out_clear(struct control_client *cl)
{
	while (cl->out_head) {
		struct control_out *o = cl->out_head;

		cl->out_head = o->next;
		free(o);
	}
	cl->out_tail = &cl->out_head;
	cl->n_out = 0;
}

static int control_out_push(struct control_client *cl, const char *buf, size_t len)
{
	struct control_out *o = malloc(sizeof(*o) + len);

	if (!o)
		return -ENOMEM;
	o->next = NULL;
	o->len = len;
	memcpy(o->buf, buf, len);
	if (!cl->out_tail)
		cl->out_tail = &cl->out_head;
	*cl->out_tail = o;
	cl->out_tail = &o->next;
	cl->n_out++;
	return 0;
}

/* Send what waits: 0 once all is sent, -EAGAIN while the socket is
 * full, another -errno when the client is gone. */
static int control_out_flush(struct control_client *cl)
{
	int fd = loop_watch_fd(cl->io);

	while (cl->out_head) {
		struct control_out *o = cl->out_head;

		if (send(fd, o->buf, o->len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
			       ? -EAGAIN : -errno;
		cl->out_head = o->next;
		if (!cl->out_head)
			cl->out_tail = &cl->out_head;
		cl->n_out--;
		free(o);
	}
	return 0;
}

/*
 * A monitor that fell behind is dropped, not allowed to grow gadgetd's
 * memory: it hears no more events, its queue ends with a reply saying
 * why (-ENOBUFS), and it is closed once that is sent, or after idle_ms
 * if it never reads. A monitor whose socket failed (err) just goes, from
 * the loop rather than from inside the event's delivery.
 */
static void control_monitor_drop(struct control_client *cl, int err)
{
	struct control *c = cl->ctl;
	char buf[256], text[160];
	int n;

	cl->dropping = true;
	event_unsubscribe(cl->monitor);
	cl->monitor = NULL;
	if (err) {
		control_out_clear(cl);
	} else {
		snprintf(text, sizeof(text), "gadgetd: this monitor fell behind by %u "
			 "events and was dropped\n", cl->n_out);
		n = ctl_build_reply(buf, sizeof(buf), -ENOBUFS, text, strlen(text));
		if (n > 0)
			control_out_push(cl, buf, n);
		if (log_burst_ok(&c->monitor_log))
			log_warnx("control: dropped the monitor of uid %u (pid %d): it fell "
				  "behind by %u events", (unsigned)cl->peer.uid,
				  (int)cl->peer.pid, CONTROL_MONITOR_QUEUE);
	}
	loop_watch_set_events(cl->io, EPOLLIN | EPOLLOUT);
	loop_timer_rearm(cl->idle, c->idle_ms);
}

static void control_monitor_event(const struct event *ev, void *data)
{
	static char buf[8192];
	struct control_client *cl = data;
	struct timespec now;
	struct ctl_event ce = {
		.kind = event_name(ev),
		.function = ev->function ? ev->function : "",
		.detail = ev->detail, .code = ev->code,
	};
	int n;

	clock_gettime(CLOCK_REALTIME, &now);
	ce.time_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	n = ctl_build_event(buf, sizeof(buf), &ce);
	if (n < 0 || cl->dropping)
		return;
	if (!cl->out_head) {
		if (send(loop_watch_fd(cl->io), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0)
			return;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			control_monitor_drop(cl, errno);
			return;
		}
	}
	if (cl->n_out >= CONTROL_MONITOR_QUEUE || control_out_push(cl, buf, n) < 0) {
		control_monitor_drop(cl, 0);
		return;
	}
	loop_watch_set_events(cl->io, EPOLLIN | EPOLLOUT);
}

/* From now on cl hears every event; it sends nothing more. */
static int control_monitor_start(struct control_client *cl, FILE *out)
{
	cl->monitor = event_subscribe(control_monitor_event, cl);
	if (!cl->monitor) {
		fprintf(out, "%s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	cl->out_tail = &cl->out_head;
	return 0;
}

/* A monitor's socket: its queue drains, and a hang-up ends it. Whatever
 * it sends is read and ignored. */
static void control_monitor_io(struct control_client *cl, int fd, uint32_t events)
{
	char buf[256];
	ssize_t n;
	int r;

	if (events & (EPOLLHUP | EPOLLERR)) {
		control_client_free(cl);
		return;
	}
	if (events & EPOLLIN) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			control_client_free(cl);
			return;
		}
	}
	r = control_out_flush(cl);
	if (r == -EAGAIN)
		return;
	if (r < 0 || cl->dropping) {
		control_client_free(cl);
		return;
	}
	loop_watch_set_events(cl->io, EPOLLIN);
}

static int control_dispatch(struct control *c, struct control_client *cl,
			    const struct request *req, FILE *out)
{
	char msg[4096] = "";
	int r = 0;

	if (req->bad[0]) {
		fprintf(out, "%s\n", req->bad);
		return -EINVAL;
	}
	switch (req->op) {
	case REQUEST_SWITCH:
	case REQUEST_OFF:
	case REQUEST_RELOAD:
	case REQUEST_STORAGE:
	case REQUEST_COMMAND:
	case REQUEST_WAKEUP:
	case REQUEST_LOCK:
	case REQUEST_UNKNOWN:
		r = dispatch_submit(c->dispatch, &cl->peer, req, msg, sizeof(msg), out,
				    control_client_done, cl);
		break;
	case REQUEST_LIST:
		if (!req->what) {
			gadget_list(c->gadget, out);
			return 0;
		}
		r = gadget_list_names(c->gadget, out, req->what);
		if (r < 0)
			snprintf(msg, sizeof(msg), "list takes sets, profiles or functions");
		break;
	case REQUEST_STATUS:
		gadget_status(c->gadget, out, req->json);
		return 0;
	case REQUEST_MONITOR:
		return control_monitor_start(cl, out);
	case REQUEST_WAIT:
		r = gadget_boot_wait(c->gadget, msg, sizeof(msg), control_client_done, cl);
		break;
	}
	if (r == -EINPROGRESS)
		return r;
	if (msg[0])
		fprintf(out, "%s\n", msg);
	return r;
}

static void control_reply(int fd, int32_t status, const char *text, size_t len)
{
	char buf[CTL_MSG_MAX];
	int n = ctl_build_reply(buf, sizeof(buf), status, text, len);

	if (send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("control: cannot send reply: %s", strerror(errno));
}

static int control_authorize(struct control *c, struct control_client *cl,
			     const struct request *req, FILE *out)
{
	char why[512];
	int r = dispatch_check(c->dispatch, &cl->peer, req, why, sizeof(why));

	if (!r)
		return 0;
	fprintf(out, "%s\n", why);
	if (log_burst_ok(&c->denied_log))
		log_info("control: refused uid %u (pid %d): %s", (unsigned)cl->peer.uid,
			 (int)cl->peer.pid, why);
	return r;
}

static int control_request(struct control *c, struct control_client *cl,
			   char *buf, ssize_t n, FILE *out)
{
	struct ctl_hdr h = { 0 };
	char *argv[CONTROL_MAX_ARGS];
	struct request req;
	int argc, r;

	argc = ctl_parse_request(buf, n, &h, argv, CONTROL_MAX_ARGS);
	if (argc == -EBADMSG && n < (ssize_t)sizeof(h)) {
		fprintf(out, "malformed request: %zd bytes\n", n);
		return -EBADMSG;
	}
	if (argc == -EBADMSG) {
		fprintf(out, "malformed request: length %u, got %zd\n", h.len,
			n - (ssize_t)sizeof(h));
		return -EBADMSG;
	}
	if (argc < 0) {
		fprintf(out, "malformed request: arguments are not NUL-terminated strings\n");
		return -EBADMSG;
	}
	request_from_ctl(h.type, argc, argv, &req);
	r = control_authorize(c, cl, &req, out);
	if (r < 0)
		return r;
	return control_dispatch(c, cl, &req, out);
}

static void control_resume(struct control *c)
{
	if (!c->paused)
		return;
	c->paused = false;
	loop_timer_rearm(c->retry, 0);
	loop_watch_set_events(c->listen, EPOLLIN);
}

static void control_client_free(struct control_client *cl)
{
	struct control *c = cl->ctl;
	struct control_client **pp;

	for (pp = &c->clients; *pp; pp = &(*pp)->next)
		if (*pp == cl) {
			*pp = cl->next;
			break;
		}
	/* The request goes on (or waits) without it. */
	if (cl->pending)
		dispatch_cancel(c->dispatch, cl);
	event_unsubscribe(cl->monitor);
	control_out_clear(cl);
	loop_watch_remove(cl->io);
	loop_watch_remove(cl->idle);
	c->n_clients--;
	free(cl->early);
	free(cl);
	/* A descriptor came free: accept() may work again. */
	control_resume(c);
}

static void control_client_idle(struct loop_watch *w, void *data)
{
	struct control_client *cl = data;

	log_debug("control: closing uid %u (pid %d): no request within %u ms",
		  (unsigned)cl->peer.uid, (int)cl->peer.pid, cl->ctl->idle_ms);
	control_client_free(cl);
}

/* Ready for the next request. */
static void control_client_rearm(struct control_client *cl)
{
	struct control *c = cl->ctl;

	cl->pending = false;
	if (loop_watch_set_events(cl->io, EPOLLIN) < 0) {
		control_client_free(cl);
		return;
	}
	/* A monitor says nothing and stays. */
	loop_timer_rearm(cl->idle, cl->monitor ? 0 : c->idle_ms);
}

static void control_client_done(int r, const char *msg, void *data)
{
	struct control_client *cl = data;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (out) {
		fprintf(out, "%s%s%s", cl->early ? cl->early : "", msg, msg[0] ? "\n" : "");
		fclose(out);
	}
	control_reply(loop_watch_fd(cl->io), r, text ? text : "", text ? len : 0);
	free(text);
	free(cl->early);
	cl->early = NULL;
	control_client_rearm(cl);
}

static void control_client_io(struct loop_watch *w, int fd, uint32_t events,
			      void *data)
{
	struct control_client *cl = data;
	struct control *c = cl->ctl;
	char buf[CTL_MSG_MAX];
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	ssize_t n;
	int r;

	if (cl->monitor || cl->dropping) {
		control_monitor_io(cl, fd, events);
		return;
	}
	/* Waiting for its reply, a client is not read (it is not watched for
	 * input); only a hang-up or an error arrives, and ends it. */
	if (cl->pending) {
		control_client_free(cl);
		return;
	}
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		control_client_free(cl);
		return;
	}
	/* One request at a time: no input until the reply is sent, and no
	 * idle clock, which is for clients that say nothing. */
	loop_timer_rearm(cl->idle, 0);
	if (loop_watch_set_events(w, 0) < 0) {
		control_client_free(cl);
		return;
	}
	cl->pending = true;
	out = open_memstream(&text, &len);
	r = out ? control_request(c, cl, buf, n, out) : -ENOMEM;
	if (out)
		fclose(out);
	if (r == -EINPROGRESS) {
		cl->early = text;
		return;
	}
	control_reply(fd, r, text ? text : "", text ? len : 0);
	free(text);
	control_client_rearm(cl);
}

/* Out of descriptors (or memory): stop watching the socket, or the loop
 * would wake at once for the same pending connection, forever. */
static void control_pause(struct control *c, int err)
{
	if (log_burst_ok(&c->accept_log))
		log_warnx("control: cannot accept a client: %s; not accepting for "
			  "%u ms or until a client leaves", strerror(err), c->retry_ms);
	c->paused = true;
	loop_watch_set_events(c->listen, 0);
	loop_timer_rearm(c->retry, c->retry_ms);
}

static void control_retry(struct loop_watch *w, void *data)
{
	control_resume(data);
}

/*
 * Answer a refused client and close it. What it sent already is read
 * first: closing a unix socket with unread data makes the peer's next
 * recv fail with ECONNRESET before it sees the reply.
 */
static void control_refuse(int cfd, const char *msg)
{
	char buf[256];
	int i;

	for (i = 0; i < 8 && recv(cfd, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++)
		;
	control_reply(cfd, -EBUSY, msg, strlen(msg));
	close(cfd);
}

static void control_refuse_full(struct control *c, int cfd)
{
	control_refuse(cfd, "gadgetd is serving too many clients; try again\n");
	if (log_burst_ok(&c->full_log))
		log_warnx("control: %u clients connected; refusing more",
			  c->n_clients);
}

/*
 * Whether peer may take one more slot: no user but root holds more than
 * per_uid, and the last `reserved` slots are for root and admin_group, so
 * that members of group, however many connections they hold, cannot lock
 * an administrator out. 0, or -EBUSY with the reason for the client in
 * msg and for the log in why.
 */
static int control_admit(const struct control *c, const struct access_peer *peer,
			 char *msg, size_t size, char *why, size_t why_size)
{
	enum access_role role = access_role(peer);
	const struct control_client *cl;
	unsigned mine = 0;

	switch (role) {
	case ACCESS_ROOT:
		return 0;
	case ACCESS_ADMIN:
	case ACCESS_GROUP:
	case ACCESS_OTHER:
		break;
	}
	for (cl = c->clients; cl; cl = cl->next)
		mine += cl->peer.uid == peer->uid;
	if (mine >= c->per_uid) {
		snprintf(msg, size, "gadgetd: uid %u already has %u connections open "
			 "(at most %u per user); close one and try again\n",
			 (unsigned)peer->uid, mine, c->per_uid);
		snprintf(why, why_size, "uid %u already has %u connections",
			 (unsigned)peer->uid, mine);
		return -EBUSY;
	}
	if (role != ACCESS_ADMIN && c->n_clients + c->reserved >= c->max_clients) {
		snprintf(msg, size, "gadgetd: the connections open to non-administrators "
			 "are all taken (%u of %u are kept for root and admin_group); "
			 "try again\n", c->reserved, c->max_clients);
		snprintf(why, why_size, "uid %u is no administrator and only the %u "
			 "reserved slots are free", (unsigned)peer->uid,
			 c->max_clients - c->n_clients);
		return -EBUSY;
	}
	return 0;
}

static void control_refuse_peer(struct control *c, int cfd, const char *msg,
				const char *why)
{
	control_refuse(cfd, msg);
	if (log_burst_ok(&c->full_log))
		log_warnx("control: refusing a client: %s", why);
}

static void control_accept(struct loop_watch *w, int fd, uint32_t events,
			   void *data)
{
	struct control *c = data;
	struct control_client *cl;
	char msg[256], why[128];
	int cfd, r;

	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (cfd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			control_pause(c, errno);
		return;
	}
	if (c->n_clients >= c->max_clients) {
		control_refuse_full(c, cfd);
		return;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		close(cfd);
		return;
	}
	cl->ctl = c;
	r = access_peer_identify(cfd, &c->policy, &cl->peer);
	if (r < 0) {
		log_warnx("control: cannot identify a client: %s", strerror(-r));
		close(cfd);
		free(cl);
		return;
	}
	if (control_admit(c, &cl->peer, msg, sizeof(msg), why, sizeof(why)) < 0) {
		control_refuse_peer(c, cfd, msg, why);
		free(cl);
		return;
	}
	cl->idle = loop_add_timer(c->loop, c->idle_ms, control_client_idle, cl);
	cl->io = cl->idle ? loop_add_fd(c->loop, cfd, EPOLLIN, control_client_io, cl) : NULL;
	if (!cl->io) {
		loop_watch_remove(cl->idle);
		close(cfd);
		free(cl);
		return;
	}
	cl->next = c->clients;
	c->clients = cl;
	c->n_clients++;
}

/* 0660 root:group, 0600 without a group; never a moment wider. */
static int control_listen(const char *path, const struct access_policy *p)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_warnx("control socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r == 0 && p->group && (chown(path, -1, p->group_gid) < 0 || chmod(path, 0660) < 0))
		r = -1;
	if (r < 0 || listen(fd, 16) < 0) {
		r = -errno;
		log_warn("cannot listen on %s", path);
		unlink(path);
		close(fd);
		return r;
	}
	return fd;
}

static char *control_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct control *control_new(struct loop *l, const char *path,
			    const struct access_policy *policy, struct gadget *g,
			    struct dispatch *d)
{
	struct control *c = calloc(1, sizeof(*c));
	int fd;

	if (!c)
		return NULL;
	c->loop = l;
	c->gadget = g;
	c->dispatch = d;
	c->max_clients = CONTROL_MAX_CLIENTS;
	c->per_uid = CONTROL_MAX_PER_UID;
	c->reserved = CONTROL_RESERVED_CLIENTS;
	c->idle_ms = CONTROL_IDLE_MS;
	c->retry_ms = CONTROL_RETRY_MS;
	c->full_log = (struct log_burst)LOG_BURST_INIT("lines about refused clients", 1,
						       CONTROL_LOG_S);
	c->accept_log = (struct log_burst)LOG_BURST_INIT("lines about failed accepts", 1,
							 CONTROL_LOG_S);
	c->denied_log = (struct log_burst)LOG_BURST_INIT("lines about denied requests", 1,
							 CONTROL_LOG_S);
	c->monitor_log = (struct log_burst)LOG_BURST_INIT("lines about dropped monitors", 1,
							  CONTROL_LOG_S);
	c->policy = *policy;
	c->policy.group = control_strdup(policy->group);
	c->policy.admin_group = control_strdup(policy->admin_group);
	c->path = strdup(path);
	c->retry = loop_add_timer(l, 0, control_retry, c);
	fd = c->path && c->retry ? control_listen(path, policy) : -ENOMEM;
	if (fd >= 0) {
		c->listen = loop_add_fd(l, fd, EPOLLIN, control_accept, c);
		if (!c->listen)
			close(fd);
	}
	if (!c->listen) {
		if (fd >= 0)
			unlink(path);
		loop_watch_remove(c->retry);
		free((char *)c->policy.group);
		free((char *)c->policy.admin_group);
		free(c->path);
		free(c);
		return NULL;
	}
	return c;
}

void control_set_limits(struct control *c, unsigned max_clients,
			unsigned idle_ms, unsigned retry_ms)
{
	c->max_clients = max_clients;
	c->idle_ms = idle_ms;
	c->retry_ms = retry_ms;
}

void control_set_shares(struct control *c, unsigned per_uid, unsigned reserved)
{
	c->per_uid = per_uid;
	c->reserved = reserved;
}

/* gadgetd stops: each monitor gets what waits and a last reply (0), so
 * that it can tell a stop from a drop or a crash. */
static void control_monitor_bye(struct control_client *cl)
{
	static const char text[] = "gadgetd is stopping\n";
	char buf[128];
	int n;

	if (!cl->monitor)
		return;
	n = ctl_build_reply(buf, sizeof(buf), 0, text, sizeof(text) - 1);
	if (control_out_flush(cl) == 0 && n > 0)
		send(loop_watch_fd(cl->io), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void control_free(struct control *c)
{
	if (!c)
		return;
	while (c->clients) {
		control_monitor_bye(c->clients);
		control_client_free(c->clients);
	}
	loop_watch_remove(c->listen);
	loop_watch_remove(c->retry);
	unlink(c->path);
	free(c->path);
	free((char *)c->policy.group);
	free((char *)c->policy.admin_group);
	free(c);
}
