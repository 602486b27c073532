/* adb_stream: stream table, per-stream flow control, fair scheduling. */
#include "adb_stream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adb_packet.h"
#include "log.h"
#include "loop.h"

/* Longest service name we accept in OPEN. */
#define ADB_STREAM_NAME_MAX 4096

struct adb_stream {
	struct adb_stream_mux *t;
	struct adb_stream *prev, *next;
	uint32_t local, remote;
	const struct adb_service_ops *ops;
	void *svc;
	bool want;        /* the service has data */
	bool in_flight;   /* our WRTE awaits the host's OKAY */
	bool ack_pending; /* the service holds the host's last WRTE */
	bool acked_early; /* the host's WRTE on its way has had its OKAY */
	bool dead;        /* closed; freed once no call into it runs */
	bool linked;
	unsigned in_call;
	/*
	 * delayed_ack only. tx_avail: the bytes the host still lets us send
	 * (its OPEN's arg1, then plus the delta of each of its OKAYs, minus
	 * what we send; it may go below zero by one WRTE, as in adbd).
	 * rx_avail: the same for the host's WRTEs, from the window we grant.
	 * held_len: the bytes of the WRTE the service holds (ack_pending).
	 * rxq: host WRTEs that came while the service held one.
	 */
	int64_t tx_avail;
	int64_t rx_avail;
	size_t held_len;
	struct rx_chunk *rxq_head, *rxq_tail;
	struct loop_watch *rxq_idle;
	/*
	 * Bulk streams (those that fill half a payload or more) produce
	 * their next WRTE while the previous one is in flight, so that the
	 * host's OKAY is answered at once.
	 */
	uint8_t *ahead;
	size_t ahead_len;
	bool ahead_end;
};

/* A host WRTE kept for the service (delayed_ack). */
struct rx_chunk {
	struct rx_chunk *next;
	size_t len;
	uint8_t data[];
};

struct adb_stream_mux {
	struct loop *loop;
	adb_stream_mux_send_fn send;
	adb_stream_mux_room_fn room;
	adb_stream_mux_open_fn open;
	void *data;
	struct adb_stream *head, *tail;
	struct adb_stream *rr; /* whose turn it is */
	unsigned count;
	uint32_t next_id;
	size_t max_payload;
	const struct adb_stream_mux_bufs *bufs;
	bool pumping;
	bool hold; /* no sending while a host WRTE is handled */
	bool delayed_ack;
};

struct adb_stream_mux *
adb_stream_mux_new(struct loop *loop, adb_stream_mux_send_fn send,
		   const struct adb_stream_mux_bufs *bufs,
		   adb_stream_mux_room_fn room, adb_stream_mux_open_fn open,
		   void *data)
{
	struct adb_stream_mux *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->loop = loop;
	t->send = send;
	t->bufs = bufs;
	t->room = room;
	t->open = open;
	t->data = data;
	t->next_id = 1;
	t->max_payload = ADB_MAX_PAYLOAD_V1;
	return t;
}

void adb_stream_mux_free(struct adb_stream_mux *t)
{
	if (!t)
		return;
	adb_stream_mux_reset(t);
	free(t);
}

void adb_stream_mux_set_max_payload(struct adb_stream_mux *t, size_t max)
{
	t->max_payload = max > ADB_MAX_PAYLOAD ? ADB_MAX_PAYLOAD : max;
}

void adb_stream_mux_set_delayed_ack(struct adb_stream_mux *t, bool on)
{
	t->delayed_ack = on;
}

/* OKAY for stream s; under delayed_ack it carries the bytes the host may
 * send again (a little-endian int32 payload). */
static void stream_send_okay(struct adb_stream_mux *t, struct adb_stream *s,
			     uint32_t delta)
{
	uint8_t p[4] = { delta, delta >> 8, delta >> 16, delta >> 24 };

	if (!t->delayed_ack) {
		t->send(t->data, ADB_OKAY, s->local, s->remote, NULL, 0);
		return;
	}
	s->rx_avail += delta;
	t->send(t->data, ADB_OKAY, s->local, s->remote, p, sizeof(p));
}

/* Payload buffers are the transport's (see adb_stream_mux_bufs). */
static uint8_t *stream_buf_get(struct adb_stream_mux *t)
{
	return t->bufs->get(t->data, t->max_payload);
}

static void stream_buf_put(struct adb_stream_mux *t, uint8_t *buf)
{
	t->bufs->put(t->data, buf);
}

static void stream_send_wrte(struct adb_stream_mux *t, struct adb_stream *s,
			     uint8_t *buf, size_t len)
{
	s->tx_avail -= len;
	t->bufs->send(t->data, ADB_WRTE, s->local, s->remote, buf, len);
}

unsigned adb_stream_mux_count(const struct adb_stream_mux *t)
{
	return t->count;
}

static void stream_link_stream(struct adb_stream_mux *t, struct adb_stream *s)
{
	s->prev = t->tail;
	s->next = NULL;
	if (t->tail)
		t->tail->next = s;
	else
		t->head = s;
	t->tail = s;
	s->linked = true;
	t->count++;
}

static void stream_unlink_stream(struct adb_stream_mux *t, struct adb_stream *s)
{
	if (!s->linked)
		return;
	if (t->rr == s)
		t->rr = s->next;
	if (s->prev)
		s->prev->next = s->next;
	else
		t->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		t->tail = s->prev;
	s->linked = false;
	t->count--;
}

static void stream_rxq_clear(struct adb_stream *s)
{
	while (s->rxq_head) {
		struct rx_chunk *c = s->rxq_head;

		s->rxq_head = c->next;
		free(c);
	}
	s->rxq_tail = NULL;
	if (s->rxq_idle) {
		loop_watch_remove(s->rxq_idle);
		s->rxq_idle = NULL;
	}
}

static void stream_destroy(struct adb_stream *s)
{
	stream_rxq_clear(s);
	if (s->ops && s->ops->free)
		s->ops->free(s->svc);
	if (s->ahead)
		stream_buf_put(s->t, s->ahead);
	free(s);
}

/* Forget s; the service is freed now unless a call into it is running. */
static void stream_kill_stream(struct adb_stream *s)
{
	if (s->dead)
		return;
	s->dead = true;
	stream_rxq_clear(s);
	stream_unlink_stream(s->t, s);
	if (s->in_call == 0)
		stream_destroy(s);
}

static void stream_call_begin(struct adb_stream *s)
{
	s->in_call++;
}

static void stream_call_end(struct adb_stream *s)
{
	if (--s->in_call == 0 && s->dead)
		stream_destroy(s);
}

void adb_stream_mux_reset(struct adb_stream_mux *t)
{
	while (t->head)
		stream_kill_stream(t->head);
	t->rr = NULL;
}

static struct adb_stream *stream_find(struct adb_stream_mux *t, uint32_t local)
{
	for (struct adb_stream *s = t->head; s; s = s->next)
		if (s->local == local)
			return s;
	return NULL;
}

static uint32_t stream_new_id(struct adb_stream_mux *t)
{
	uint32_t id;

	do {
		id = t->next_id++;
	} while (id == 0 || stream_find(t, id));
	return id;
}

static struct adb_stream *stream_new_stream(struct adb_stream_mux *t)
{
	struct adb_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->t = t;
	s->local = stream_new_id(t);
	/* Ask every new service once whether it has something to say. */
	s->want = true;
	return s;
}

/*
 * The service name of an OPEN, as a C string in name[]: current hosts send
 * it without a trailing NUL, adb 29 with one. Like AOSP adbd we strip any
 * trailing NULs; what is left must be non-empty, at most
 * ADB_STREAM_NAME_MAX bytes and free of NULs (a NUL inside would make the
 * name we log differ from the one we route). Returns the name's length,
 * or -EINVAL.
 */
static int stream_open_name(const uint8_t *payload, size_t len,
			    char name[ADB_STREAM_NAME_MAX + 1])
{
	while (len && payload[len - 1] == '\0')
		len--;
	if (len == 0 || len > ADB_STREAM_NAME_MAX ||
	    memchr(payload, '\0', len))
		return -EINVAL;
	memcpy(name, payload, len);
	name[len] = '\0';
	return (int)len;
}

void adb_stream_mux_on_open(struct adb_stream_mux *t, uint32_t remote,
			    uint32_t window, const uint8_t *payload, size_t len)
{
	char name[ADB_STREAM_NAME_MAX + 1];
	struct adb_stream *s;
	int rc;

	if (remote == 0 || stream_open_name(payload, len, name) < 0) {
		log_warnx("adb: refusing OPEN with a malformed service name");
		if (remote)
			t->send(t->data, ADB_CLSE, 0, remote, NULL, 0);
		return;
	}
	/* As adbd: the OPEN carries the host's window exactly when both
	 * sides announced delayed_ack; a mismatch refuses the stream. */
	if (t->delayed_ack != (window != 0)) {
		log_warnx("adb: refusing OPEN with window %u (delayed_ack %s)",
			  window, t->delayed_ack ? "on" : "off");
		t->send(t->data, ADB_CLSE, 0, remote, NULL, 0);
		return;
	}
	s = stream_new_stream(t);
	if (!s) {
		t->send(t->data, ADB_CLSE, 0, remote, NULL, 0);
		return;
	}
	s->remote = remote;
	s->tx_avail = window;
	stream_call_begin(s);
	rc = t->open(t->data, s, name, &s->ops, &s->svc);
	if (rc < 0) {
		log_info("adb: cannot open \"%s\": %s", name, strerror(-rc));
		s->ops = NULL;
		t->send(t->data, ADB_CLSE, 0, remote, NULL, 0);
		free(s);
		return;
	}
	stream_send_okay(t, s, ADB_STREAM_WINDOW);
	stream_link_stream(t, s);
	stream_call_end(s);
	adb_stream_mux_pump(t);
}

int adb_stream_mux_connect(struct adb_stream_mux *t, const char *name,
			   const struct adb_service_ops *ops, void *svc,
			   struct adb_stream **out)
{
	struct adb_stream *s = stream_new_stream(t);
	int rc;

	if (!s)
		return -ENOMEM;
	/* Under delayed_ack the host may send as soon as it answers: the
	 * window we grant is counted from here. Ours starts at 0 and opens
	 * with the host's OKAY. */
	if (t->delayed_ack)
		s->rx_avail = ADB_STREAM_WINDOW;
	rc = t->send(t->data, ADB_OPEN, s->local,
		     t->delayed_ack ? ADB_STREAM_WINDOW : 0, name,
		     strlen(name) + 1);
	if (rc < 0) {
		free(s);
		return rc;
	}
	s->ops = ops;
	s->svc = svc;
	stream_link_stream(t, s);
	*out = s;
	return 0;
}

void adb_stream_mux_on_okay(struct adb_stream_mux *t, uint32_t remote,
			    uint32_t local, const uint8_t *payload, size_t len)
{
	struct adb_stream *s = stream_find(t, local);
	int32_t delta = 0;

	if (!s || remote == 0)
		return;
	/* adbd ignores an OKAY whose payload does not fit the mode. */
	if (len != (t->delayed_ack ? 4u : 0u)) {
		log_warnx("adb: OKAY with a %zu-byte payload on stream %u "
			  "(delayed_ack %s): ignored", len, local,
			  t->delayed_ack ? "on" : "off");
		return;
	}
	if (s->remote == 0)
		s->remote = remote; /* the host accepted our OPEN */
	else if (s->remote != remote)
		return;
	if (t->delayed_ack) {
		delta = (int32_t)((uint32_t)payload[0] |
				  (uint32_t)payload[1] << 8 |
				  (uint32_t)payload[2] << 16 |
				  (uint32_t)payload[3] << 24);
		/* Signed, as in adbd: a negative delta shrinks the window. A
		 * 64-bit sum of 32-bit deltas cannot overflow in practice,
		 * but a host could try for ever: clamp it. */
		s->tx_avail += delta;
		if (s->tx_avail > INT32_MAX)
			s->tx_avail = INT32_MAX;
		if (s->tx_avail < INT32_MIN)
			s->tx_avail = INT32_MIN;
	}
	s->in_flight = false;
	adb_stream_mux_pump(t);
}

static void stream_close_stream(struct adb_stream *s)
{
	if (s->dead)
		return;
	s->t->send(s->t->data, ADB_CLSE, s->local, s->remote, NULL, 0);
	stream_kill_stream(s);
}

/* Hand one host WRTE to the service and acknowledge it as the service
 * says. The caller holds a call reference on s. */
static void stream_deliver(struct adb_stream_mux *t, struct adb_stream *s,
			   const uint8_t *data, size_t len)
{
	int rc;

	/* Hold back replies the write triggers so that our OKAY goes out
	 * before them, as adbd does. */
	if (s->acked_early)
		s->acked_early = false;
	else if (s->ops->ack_first)
		stream_send_okay(t, s, len);
	t->hold = true;
	rc = s->ops->write(s->svc, data, len);
	t->hold = false;
	if (s->dead)
		return;
	if (rc < 0)
		stream_close_stream(s);
	else if (s->ops->ack_first)
		; /* acknowledged above */
	else if (rc == 0)
		stream_send_okay(t, s, len);
	else {
		s->ack_pending = true;
		s->held_len = len;
	}
}

void adb_stream_mux_on_write_head(struct adb_stream_mux *t, uint32_t remote,
				  uint32_t local)
{
	struct adb_stream *s = stream_find(t, local);

	/* Only where on_write would hand the WRTE straight to a service that
	 * acknowledges first; the host cannot send the next WRTE before this
	 * one's payload, which is already on its way. */
	if (t->delayed_ack || !s || s->dead || remote == 0 ||
	    s->remote != remote || s->ack_pending || s->acked_early ||
	    !s->ops->ack_first)
		return;
	stream_send_okay(t, s, 0);
	s->acked_early = true;
}

/* Keep a host WRTE until the service takes the one it holds. The window
 * bounds what is kept: rx_avail was positive when it came. */
static int stream_rxq_push(struct adb_stream *s, const uint8_t *data,
			   size_t len)
{
	struct rx_chunk *c = malloc(sizeof(*c) + len);

	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->len = len;
	if (len)
		memcpy(c->data, data, len);
	if (s->rxq_tail)
		s->rxq_tail->next = c;
	else
		s->rxq_head = c;
	s->rxq_tail = c;
	return 0;
}

/* Give the service the kept WRTEs, in order, until it holds one. */
static void stream_rxq_run(struct loop_watch *w, void *data)
{
	struct adb_stream *s = data;
	struct adb_stream_mux *t = s->t;

	s->rxq_idle = NULL;
	stream_call_begin(s);
	while (!s->dead && !s->ack_pending && s->rxq_head) {
		struct rx_chunk *c = s->rxq_head;

		s->rxq_head = c->next;
		if (!s->rxq_head)
			s->rxq_tail = NULL;
		stream_deliver(t, s, c->data, c->len);
		free(c);
	}
	stream_call_end(s);
	adb_stream_mux_pump(t);
}

void adb_stream_mux_on_write(struct adb_stream_mux *t, uint32_t remote,
			     uint32_t local, const uint8_t *data, size_t len)
{
	struct adb_stream *s = stream_find(t, local);

	if (!s || s->remote != remote || remote == 0) {
		log_debug("adb: WRTE to unknown stream %u", local);
		if (remote)
			t->send(t->data, ADB_CLSE, 0, remote, NULL, 0);
		return;
	}
	if (t->delayed_ack) {
		/*
		 * The host may send while its window is open; the WRTE
		 * that closes it may overshoot by up to one payload, as
		 * adbd's own sender does. A WRTE after that is a broken or
		 * hostile host: adbd would queue it without limit, we close
		 * the stream so that what a host makes us keep stays below
		 * the window plus one payload.
		 */
		if (s->rx_avail <= 0) {
			log_warnx("adb: host overran the delayed_ack window on "
				  "stream %u by %zu bytes; closing it", local,
				  len);
			stream_close_stream(s);
			return;
		}
		s->rx_avail -= len;
		if (s->ack_pending || s->rxq_head) {
			if (stream_rxq_push(s, data, len) < 0)
				stream_close_stream(s);
			return;
		}
	} else if (s->ack_pending) {
		log_warnx("adb: host sent a second WRTE before our OKAY on "
			  "stream %u; closing it", local);
		stream_close_stream(s);
		return;
	}
	stream_call_begin(s);
	stream_deliver(t, s, data, len);
	stream_call_end(s);
	adb_stream_mux_pump(t);
}

void adb_stream_mux_on_close(struct adb_stream_mux *t, uint32_t remote,
			     uint32_t local)
{
	struct adb_stream *s = stream_find(t, local);

	if (!s)
		return;
	if (remote != 0 && s->remote != 0 && s->remote != remote)
		return;
	stream_kill_stream(s);
}

/* Produce the next WRTE of a bulk stream into s->ahead. */
static void stream_prefetch(struct adb_stream_mux *t, struct adb_stream *s)
{
	ssize_t n;

	if (!s->ahead) {
		s->ahead = stream_buf_get(t);
		if (!s->ahead)
			return; /* then produce() is called after the OKAY */
	}
	s->want = false;
	n = s->ops->produce(s->svc, s->ahead, t->max_payload);
	if (s->dead)
		return;
	if (n > 0) {
		s->ahead_len = n;
		s->want = true;
	} else if (n < 0) {
		s->ahead_end = true;
		s->want = true;
	}
}

/* Give s one WRTE if its service has something. Returns 1 if sent. The
 * caller holds a call reference on s. */
static int stream_send_one(struct adb_stream_mux *t, struct adb_stream *s)
{
	uint8_t *buf;
	ssize_t n;

	if (s->ahead_len) {
		buf = s->ahead;
		s->ahead = NULL;
		stream_send_wrte(t, s, buf, s->ahead_len);
		s->in_flight = true;
		s->ahead_len = 0;
		stream_prefetch(t, s);
		return 1;
	}
	if (s->ahead_end) {
		stream_close_stream(s);
		return 0;
	}
	s->want = false;
	buf = stream_buf_get(t);
	if (!buf) {
		s->want = true; /* out of memory: try again on the next pump */
		return 0;
	}
	n = s->ops->produce(s->svc, buf, t->max_payload);
	if (s->dead || n <= 0) {
		stream_buf_put(t, buf);
		if (!s->dead && n < 0)
			stream_close_stream(s);
		return 0; /* dead: closed from inside produce */
	}
	s->want = true;
	s->in_flight = true;
	stream_send_wrte(t, s, buf, n);
	if ((size_t)n >= t->max_payload / 2)
		stream_prefetch(t, s);
	return 1;
}

static bool stream_can_send(const struct adb_stream *s)
{
	bool window = s->t->delayed_ack ? s->tx_avail > 0 : !s->in_flight;

	return s->want && window && s->remote != 0 && !s->dead;
}

void adb_stream_mux_pump(struct adb_stream_mux *t)
{
	bool sent = true;

	/* A service may call adb_stream_ready() from produce(): the loop
	 * below picks that up. */
	if (t->pumping || t->hold)
		return;
	t->pumping = true;
	while (sent && t->count) {
		struct adb_stream *s = t->rr ? t->rr : t->head;
		unsigned n = t->count;

		sent = false;
		for (unsigned i = 0; i < n && s; i++) {
			struct adb_stream *next;

			if (stream_can_send(s) && !t->room(t->data)) {
				t->rr = s;
				goto out;
			}
			/* Keep s allocated while we step past it, even if
			 * produce() closed it. */
			stream_call_begin(s);
			if (stream_can_send(s) && stream_send_one(t, s))
				sent = true;
			next = s->next ? s->next : t->head;
			stream_call_end(s);
			s = next;
		}
		t->rr = s;
	}
out:
	t->pumping = false;
}

struct loop *adb_stream_loop(const struct adb_stream *s)
{
	return s->t->loop;
}

void adb_stream_ready(struct adb_stream *s)
{
	if (s->dead)
		return;
	s->want = true;
	if (s->linked)
		adb_stream_mux_pump(s->t);
}

void adb_stream_ack(struct adb_stream *s)
{
	if (s->dead || !s->ack_pending)
		return;
	s->ack_pending = false;
	stream_send_okay(s->t, s, s->held_len);
	s->held_len = 0;
	/* Not from here: the service is in one of its own callbacks. */
	if (s->rxq_head && !s->rxq_idle)
		s->rxq_idle = loop_add_idle(s->t->loop, stream_rxq_run, s);
	if (s->rxq_head && !s->rxq_idle)
		stream_close_stream(
		    s); /* out of memory: we cannot go on in order */
}

void adb_stream_close(struct adb_stream *s)
{
	stream_close_stream(s);
}

struct oneshot {
	size_t len;
	bool sent;
	uint8_t data[];
};

static int stream_oneshot_write(void *svc, const uint8_t *data, size_t len)
{
	return 0; /* nothing to do with host data */
}

static ssize_t stream_oneshot_produce(void *svc, uint8_t *buf, size_t max)
{
	struct oneshot *o = svc;

	if (o->sent || o->len == 0)
		return -EPIPE;
	if (o->len > max)
		return -EMSGSIZE;
	memcpy(buf, o->data, o->len);
	o->sent = true;
	return o->len;
}

static const struct adb_service_ops oneshot_ops = {
	.write = stream_oneshot_write,
	.produce = stream_oneshot_produce,
	.free = free,
};

int adb_stream_oneshot(const void *data, size_t len,
		       const struct adb_service_ops **ops, void **svc)
{
	struct oneshot *o = malloc(sizeof(*o) + len);

	if (!o)
		return -ENOMEM;
	o->len = len;
	o->sent = false;
	memcpy(o->data, data, len);
	*ops = &oneshot_ops;
	*svc = o;
	return 0;
}
