/*
 * adb_tcp: the TCP transport (adb_tcp.h). The wire is the same as over
 * USB: 24-byte headers and their payloads, as one byte stream each way.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "adb.h"
#include "adb_packet.h"
#include "adb_tcp.h"
#include "log.h"
#include "loop.h"
#include "plugin.h"
#include "wmsg.h"

#define ADB_TCP_RX_SIZE (64 * 1024)
#define ADB_TCP_TICK_MS 1000
/* A peer being closed gets this long to take what was queued for it. */
#define ADB_TCP_LINGER_MS 5000
#define ADB_TCP_LOG_BURST 10
#define ADB_TCP_LOG_WINDOW_S 10
/* Chunks one sendmsg() takes: a header and its payload, and more. */
#define ADB_TCP_IOV 32
/* adb tcpip may name a port below this only if it is the profile's tcp. */
#define ADB_TCP_PRIVILEGED 1024

/* One chunk of output: copied bytes, or a runtime buffer (pbuf). */
struct adb_tcp_out {
	struct adb_tcp_out *next;
	uint8_t *data;
	size_t len, off;
	bool pbuf;
};

struct adb_tcp_peer {
	struct adb_tcp *t;
	struct loop_watch *io;
	/*
	 * A message goes out as soon as it is whole (its header and its
	 * payload in one sendmsg): an OKAY before the file write that
	 * follows it, a pull's WRTE before the read of the next one. What
	 * the socket does not take, and any error, waits for flush_idle,
	 * which runs from the loop after the round's events.
	 */
	struct loop_watch *flush_idle;
	size_t msg_left; /* payload bytes of the last header still to come */
	bool pump_due;   /* a send from inside adb code drained the queue */
	bool out_armed;  /* EPOLLOUT asked for */
	struct adb *c;
	struct adb_tcp_out *head, *tail;
	size_t queued;
	size_t preauth_bytes;
	uint64_t accepted_ms, last_ms, closing_ms;
	bool closing;   /* flush what is queued, then close */
	char name[INET6_ADDRSTRLEN + 8];
	struct adb_tcp_peer *next;
};

struct adb_tcp {
	struct plugin *p;
	struct adb *main;
	struct loop_watch *ls[WMSG_MAX_FDS];
	unsigned n_ls;
	unsigned port;
	unsigned profile_port; /* the option tcp: may be below 1024 */
	bool tcpip;
	unsigned auth_timeout_ms;
	struct adb_tcp_peer *peers;
	unsigned n_peers;
	struct loop_watch *tick;
	struct log_burst log;
	uint8_t rx[ADB_TCP_RX_SIZE];
};

int adb_tcp_new(struct plugin *p, struct adb *main, struct adb_tcp **out)
{
	struct adb_tcp *t = calloc(1, sizeof(*t));
	long long port, timeout;
	int r;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->p = p;
	t->main = main;
	t->log = (struct log_burst)LOG_BURST_INIT(
		"messages about tcp peers", ADB_TCP_LOG_BURST,
		ADB_TCP_LOG_WINDOW_S);
	r = plugin_option_bool(p, "tcpip", &t->tcpip);
	r = r ? r : plugin_option_int(p, "tcp", &port);
	r = r ? r : plugin_option_int(p, "tcp_auth_timeout", &timeout);
	if (r < 0) {
		free(t);
		return -EINVAL;
	}
	/* In the declared ranges: 0..65535 and 1..3600. */
	t->profile_port = (unsigned)port;
	t->auth_timeout_ms = (unsigned)timeout * 1000;
	*out = t;
	return 0;
}

static void adb_tcp_status(struct adb_tcp *t)
{
	char buf[64];

	if (!t->n_ls) {
		plugin_set_status(t->p, "tcp", "off");
		return;
	}
	snprintf(buf, sizeof(buf), "port %u, %u peer%s", t->port, t->n_peers,
		 t->n_peers == 1 ? "" : "s");
	plugin_set_status(t->p, "tcp", buf);
}

static void adb_tcp_out_free(struct adb_tcp *t, struct adb_tcp_out *o)
{
	if (o->pbuf)
		plugin_buf_free(t->p, o->data);
	else
		free(o->data);
	free(o);
}

static void adb_tcp_peer_free(struct adb_tcp_peer *pe)
{
	struct adb_tcp *t = pe->t;
	struct adb_tcp_peer **pp;

	for (pp = &t->peers; *pp != pe; pp = &(*pp)->next)
		;
	*pp = pe->next;
	t->n_peers--;
	adb_detach(pe->c);
	loop_watch_remove(pe->flush_idle);
	while (pe->head) {
		struct adb_tcp_out *o = pe->head;

		pe->head = o->next;
		adb_tcp_out_free(t, o);
	}
	loop_watch_remove(pe->io);
	free(pe);
	if (!t->peers && t->tick) {
		loop_watch_remove(t->tick);
		t->tick = NULL;
	}
	adb_tcp_status(t);
}

/* Why a peer is cut off: said once, under the burst limit. */
static void adb_tcp_peer_drop(struct adb_tcp_peer *pe, const char *why)
{
	if (log_burst_ok(&pe->t->log))
		log_warnx("adb: tcp peer %s: %s; closing it", pe->name, why);
	adb_tcp_peer_free(pe);
}

/* Send what is queued, as far as the socket takes it: 0 or -errno. */
static int adb_tcp_flush(struct adb_tcp_peer *pe)
{
	int fd = loop_watch_fd(pe->io);
	bool want_out;

	while (pe->head) {
		struct iovec iov[ADB_TCP_IOV];
		struct msghdr mh = { .msg_iov = iov };
		struct adb_tcp_out *o;
		ssize_t n;

		for (o = pe->head; o && mh.msg_iovlen < ADB_TCP_IOV; o = o->next)
			iov[mh.msg_iovlen++] = (struct iovec){
				.iov_base = o->data + o->off,
				.iov_len = o->len - o->off };
		n = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0)
			return -errno;
		pe->queued -= n;
		pe->last_ms = loop_now_ms();
		while (n > 0) {
			size_t left = pe->head->len - pe->head->off;

			if ((size_t)n < left) {
				pe->head->off += n;
				break;
			}
			n -= left;
			o = pe->head;
			pe->head = o->next;
			adb_tcp_out_free(pe->t, o);
		}
		if (pe->head && pe->head->off)
			break; /* the socket is full */
	}
	if (!pe->head)
		pe->tail = NULL;
	want_out = pe->head != NULL;
	if (want_out != pe->out_armed) {
		loop_watch_set_events(pe->io, want_out ? EPOLLIN | EPOLLOUT
						       : EPOLLIN);
		pe->out_armed = want_out;
	}
	return 0;
}

/* As USB's tx_drained: the queue fell below the low mark, or emptied. */
static void adb_tcp_drained(struct adb_tcp_peer *pe, size_t before)
{
	if ((before >= PLUGIN_TX_LOW && pe->queued < PLUGIN_TX_LOW) ||
	    (before && !pe->queued))
		adb_pump(pe->c);
}

static void adb_tcp_on_flush(struct loop_watch *w, void *data)
{
	struct adb_tcp_peer *pe = data;
	/* A send from inside adb code that drained the queue counts as
	 * draining now: only from here may streams be pumped. */
	size_t before = pe->pump_due ? PLUGIN_TX_LOW : pe->queued;
	int rc;

	pe->flush_idle = NULL;
	pe->pump_due = false;
	rc = adb_tcp_flush(pe);
	if (rc < 0) {
		if (log_burst_ok(&pe->t->log))
			log_info("adb: tcp peer %s: %s", pe->name, strerror(-rc));
		adb_tcp_peer_free(pe);
		return;
	}
	if (pe->closing && !pe->head) {
		adb_tcp_peer_free(pe);
		return;
	}
	adb_tcp_drained(pe, before);
}

static int adb_tcp_enqueue(struct adb_tcp_peer *pe, uint8_t *data,
			   size_t len, bool pbuf)
{
	struct adb_tcp_out *o;

	/* Sent from the loop, never from inside the adb code that wrote,
	 * which may not see its peer freed. */
	if (!pe->flush_idle) {
		pe->flush_idle = loop_add_idle(plugin_loop(pe->t->p),
					       adb_tcp_on_flush, pe);
		if (!pe->flush_idle)
			return -ENOMEM;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct adb_tcp_out){ .data = data, .len = len, .pbuf = pbuf };
	if (pe->tail)
		pe->tail->next = o;
	else
		pe->head = o;
	pe->tail = o;
	pe->queued += len;
	return 0;
}

/*
 * Called from inside adb code once len more bytes are queued: when they
 * end a message, send what the socket takes now. Nothing is freed here
 * (the caller may not see its peer go): an error is left for flush_idle,
 * which meets it again and drops the peer from the loop.
 */
static void adb_tcp_queued_more(struct adb_tcp_peer *pe, const uint8_t *buf,
				size_t len)
{
	size_t before = pe->queued;

	if (pe->msg_left) {
		/* The payload of the header before it, in one call. */
		pe->msg_left -= len < pe->msg_left ? len : pe->msg_left;
	} else if (len == ADB_HDR_SIZE) {
		struct adb_hdr h;

		adb_packet_decode(buf, &h);
		pe->msg_left = h.len;
	}
	if (pe->msg_left || adb_tcp_flush(pe) < 0)
		return;
	if ((before >= PLUGIN_TX_LOW && pe->queued < PLUGIN_TX_LOW) ||
	    (before && !pe->queued))
		pe->pump_due = true;
}

static int adb_tcp_write(void *data, const void *buf, size_t len)
{
	struct adb_tcp_peer *pe = data;
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	rc = adb_tcp_enqueue(pe, copy, len, false);
	if (rc < 0) {
		free(copy);
		return rc;
	}
	adb_tcp_queued_more(pe, copy, len);
	return 0;
}

static int adb_tcp_write_buf(void *data, void *buf, size_t len)
{
	struct adb_tcp_peer *pe = data;
	int rc = adb_tcp_enqueue(pe, buf, len, true);

	if (rc < 0) {
		plugin_buf_free(pe->t->p, buf);
		return rc;
	}
	adb_tcp_queued_more(pe, buf, len);
	return 0;
}

static size_t adb_tcp_queued(void *data)
{
	struct adb_tcp_peer *pe = data;

	return pe->queued;
}

static const struct adb_transport adb_tcp_transport = {
	.write = adb_tcp_write,
	.write_buf = adb_tcp_write_buf,
	.queued = adb_tcp_queued,
};

/*
 * What the peer sent; 0, or -1 when the peer was freed. The rest of a
 * payload whose header is in is received straight into the message
 * (never past its end); headers and what follows them go through rx.
 * Only from an authorized peer: before that, each read stays within rx,
 * so the pre-authorization limit is overshot by at most one rx.
 */
static int adb_tcp_peer_read(struct adb_tcp_peer *pe)
{
	struct adb_tcp *t = pe->t;
	size_t want = 0;
	uint8_t *room = pe->closing || !adb_online(pe->c)
				? NULL
				: adb_feed_room(pe->c, &want);
	ssize_t n;
	int rc;

	/* At most rx's size a call, as before: one recv of a whole MiB
	 * holds the socket (and the peer's ACKs) for the whole copy. */
	if (want > sizeof(t->rx))
		want = sizeof(t->rx);
	n = recv(loop_watch_fd(pe->io), room ? room : t->rx,
		 room ? want : sizeof(t->rx), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		if (n < 0 && log_burst_ok(&t->log))
			log_info("adb: tcp peer %s: %s", pe->name,
				 strerror(errno));
		else if (log_burst_ok(&t->log))
			log_info("adb: tcp peer %s left", pe->name);
		adb_tcp_peer_free(pe);
		return -1;
	}
	pe->last_ms = loop_now_ms();
	if (pe->closing)
		return 0; /* going away: what it says no longer matters */
	if (!adb_online(pe->c)) {
		pe->preauth_bytes += n;
		if (pe->preauth_bytes > ADB_TCP_PREAUTH_BYTES) {
			adb_tcp_peer_drop(pe, "sent too much before it was "
					  "authorized");
			return -1;
		}
	}
	rc = room ? adb_feed_filled(pe->c, (size_t)n)
		  : adb_feed(pe->c, t->rx, n);
	if (rc < 0) {
		adb_tcp_peer_drop(pe, rc == -EMSGSIZE ? "oversized message"
						      : "malformed message header");
		return -1;
	}
	return 0;
}

static void adb_tcp_peer_io(struct loop_watch *w, int fd, uint32_t events,
			    void *data)
{
	struct adb_tcp_peer *pe = data;
	size_t before = pe->queued;

	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		if (adb_tcp_peer_read(pe) < 0)
			return;
	}
	if (!(events & EPOLLOUT))
		return;
	if (adb_tcp_flush(pe) < 0 || (pe->closing && !pe->head)) {
		adb_tcp_peer_free(pe);
		return;
	}
	adb_tcp_drained(pe, before);
}

/* Deadlines, checked once a second while there are peers. */
static void adb_tcp_on_tick(struct loop_watch *w, void *data)
{
	struct adb_tcp *t = data;
	struct adb_tcp_peer *pe, *next;
	uint64_t now = loop_now_ms();

	for (pe = t->peers; pe; pe = next) {
		next = pe->next;
		if (pe->closing) {
			if (now - pe->closing_ms >= ADB_TCP_LINGER_MS)
				adb_tcp_peer_free(pe);
		} else if (!adb_online(pe->c)) {
			if (now - pe->accepted_ms >= t->auth_timeout_ms)
				adb_tcp_peer_drop(pe, "not authorized in time");
		} else if (!adb_streams(pe->c) &&
			   now - pe->last_ms >= ADB_TCP_IDLE_S * 1000ull) {
			adb_tcp_peer_drop(pe, "idle");
		}
	}
	if (t->tick)
		loop_timer_rearm(t->tick, ADB_TCP_TICK_MS);
}

static void adb_tcp_name(const struct sockaddr_storage *ss, char *buf,
			 size_t size)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		port = ntohs(s6->sin6_port);
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		port = ntohs(s4->sin_port);
	}
	/* Show v4-mapped peers of a dual-stack socket as plain v4. */
	snprintf(buf, size, "%s:%u",
		 strncmp(a, "::ffff:", 7) || !strchr(a, '.') ? a : a + 7, port);
}

static void adb_tcp_accepted(struct adb_tcp *t, int fd,
			     const struct sockaddr_storage *ss)
{
	struct adb_tcp_peer *pe;

	if (t->n_peers >= ADB_TCP_MAX_PEERS) {
		if (log_burst_ok(&t->log))
			log_warnx("adb: %u tcp peers already; refusing "
				  "another", t->n_peers);
		close(fd);
		return;
	}
	pe = calloc(1, sizeof(*pe));
	if (!pe) {
		close(fd);
		return;
	}
	pe->t = t;
	/* Small messages (a shell's bytes, OKAYs) must not wait for an ACK. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	adb_tcp_name(ss, pe->name, sizeof(pe->name));
	pe->accepted_ms = pe->last_ms = loop_now_ms();
	pe->io = loop_add_fd(plugin_loop(t->p), fd, EPOLLIN, adb_tcp_peer_io, pe);
	if (!pe->io) {
		close(fd);
		free(pe);
		return;
	}
	pe->c = adb_attach(t->main, &adb_tcp_transport, pe);
	if (!t->tick)
		t->tick = loop_add_timer(plugin_loop(t->p), ADB_TCP_TICK_MS,
					 adb_tcp_on_tick, t);
	if (!pe->c || !t->tick) {
		loop_watch_remove(pe->io);
		adb_detach(pe->c);
		free(pe);
		return;
	}
	pe->next = t->peers;
	t->peers = pe;
	t->n_peers++;
	if (log_burst_ok(&t->log))
		log_info("adb: tcp peer %s connected", pe->name);
	adb_tcp_status(t);
}

static void adb_tcp_on_listen(struct loop_watch *w, int fd, uint32_t events,
			      void *data)
{
	struct adb_tcp *t = data;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int c;

	/* One a round: a flood of connections cannot starve USB. */
	memset(&ss, 0, sizeof(ss));
	c = accept4(fd, (struct sockaddr *)&ss, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED &&
		    log_burst_ok(&t->log))
			log_warn("adb: tcp accept");
		return;
	}
	adb_tcp_accepted(t, c, &ss);
}

static void adb_tcp_close_listeners(struct adb_tcp *t)
{
	while (t->n_ls)
		loop_watch_remove(t->ls[--t->n_ls]);
}

/* The interface gadgetd bound fd to, for the log ("" for none). */
static void adb_tcp_device(int fd, char *dev, size_t size)
{
	socklen_t sl = size;

	dev[0] = '\0';
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &sl) < 0)
		dev[0] = '\0';
	dev[size - 1] = '\0';
}

void adb_tcp_listen(struct adb_tcp *t, const int *fds, unsigned n,
		    unsigned port)
{
	char devs[WMSG_MAX_FDS * (IFNAMSIZ + 1) + 1] = "", dev[IFNAMSIZ + 1];
	struct adb_tcp_peer *pe, *next;
	bool was = t->n_ls > 0;
	unsigned i;

	adb_tcp_close_listeners(t);
	t->port = port;
	for (i = 0; i < n && i < WMSG_MAX_FDS; i++) {
		t->ls[t->n_ls] = loop_add_fd(plugin_loop(t->p), fds[i], EPOLLIN,
					     adb_tcp_on_listen, t);
		if (!t->ls[t->n_ls]) {
			close(fds[i]);
			continue;
		}
		adb_tcp_device(fds[i], dev, sizeof(dev));
		snprintf(devs + strlen(devs), sizeof(devs) - strlen(devs),
			 "%s%s", t->n_ls ? "," : "", dev[0] ? dev : "*");
		t->n_ls++;
	}
	if (t->n_ls) {
		log_info("adb: listening on tcp port %u (%s)", port, devs);
		adb_tcp_status(t);
		return;
	}
	if (was)
		log_info("adb: no longer listening on tcp");
	for (pe = t->peers; pe; pe = next) {
		next = pe->next;
		pe->closing = true;
		pe->closing_ms = loop_now_ms();
		if (!pe->head)
			adb_tcp_peer_free(pe);
	}
	adb_tcp_status(t);
}

void adb_tcp_free(struct adb_tcp *t)
{
	if (!t)
		return;
	while (t->peers)
		adb_tcp_peer_free(t->peers);
	adb_tcp_close_listeners(t);
	loop_watch_remove(t->tick);
	free(t);
}

void adb_tcp_foreach(struct adb_tcp *t, adb_tcp_each_fn fn, void *data)
{
	struct adb_tcp_peer *pe;

	for (pe = t ? t->peers : NULL; pe; pe = pe->next)
		if (!pe->closing)
			fn(pe->c, data);
}

/* "5555": a port 1..65535, digits only. */
static int adb_tcp_parse_port(const char *s, unsigned *port)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5 || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	v = strtoul(s, NULL, 10);
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

static int adb_tcp_reply(const char *text, const struct adb_service_ops **ops,
			 void **svc)
{
	return adb_stream_oneshot(text, strlen(text), ops, svc);
}

int adb_tcp_open(struct adb_tcp *t, const char *name,
		 const struct adb_service_ops **ops, void **svc)
{
	char reply[96];
	unsigned port = 0;
	bool tcpip = !strncmp(name, "tcpip:", 6);
	int rc;

	if (!tcpip && strcmp(name, "usb:"))
		return -ENOENT;
	if (!t || !t->tcpip) {
		log_info("adb: %s refused: the profile does not allow it "
			 "(tcpip = true)", name);
		return adb_tcp_reply("refused: this device's profile does not "
				     "allow adb tcpip/usb\n", ops, svc);
	}
	if (tcpip && adb_tcp_parse_port(name + 6, &port) < 0)
		return adb_tcp_reply("invalid port\n", ops, svc);
	/* gadgetd binds as root, and refuses the same (supervisor_tcp.c). */
	if (port && port < ADB_TCP_PRIVILEGED && port != t->profile_port) {
		log_info("adb: %s refused: a privileged port, not the "
			 "profile's tcp", name);
		snprintf(reply, sizeof(reply), "refused: port %u is below %u "
			 "and not this device's tcp port\n", port,
			 ADB_TCP_PRIVILEGED);
		return adb_tcp_reply(reply, ops, svc);
	}
	rc = plugin_request_tcp(t->p, port);
	if (rc < 0) {
		snprintf(reply, sizeof(reply), "cannot ask gadgetd: %s\n",
			 strerror(-rc));
		return adb_tcp_reply(reply, ops, svc);
	}
	log_info("adb: %s asked gadgetd to %s", name,
		 port ? "listen" : "stop listening");
	/* What adbd answers; the host prints it. */
	if (port)
		snprintf(reply, sizeof(reply), "restarting in TCP mode port: %u\n",
			 port);
	else
		snprintf(reply, sizeof(reply), "restarting in USB mode\n");
	return adb_tcp_reply(reply, ops, svc);
}
