#include "epio.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define EPIO_SLOTS (EPIO_RX_SLOTS > EPIO_TX_SLOTS ? EPIO_RX_SLOTS : EPIO_TX_SLOTS)
#define EPIO_EVENTS (EPIO_MAX_EPS * EPIO_SLOTS)
/* Freed transfer buffers at least this big are kept for reuse... */
#define EPIO_POOL_MIN (64 * 1024)
/* ...this many of them: a bulk sender has one in flight and one being
 * filled, so two keep it off mmap; the idle trim (EPIO_TRIM_MS) unmaps
 * them. */
#define EPIO_POOL_MAX 2
/*
 * Read buffers an OUT endpoint may have: one a slot, and for big reads as
 * many spares again, so that every slot can be queued again while the
 * reads of one completion batch wait for (or are in) the plugin's hands.
 */
#define EPIO_RX_BUFS (2 * EPIO_RX_SLOTS)
/* Spares an endpoint has not needed for this long are unmapped: a
 * worker idle after a push would keep EPIO_RX_SLOTS of them (1 MiB for
 * adb's 128 KiB reads) until its function is disabled. */
#define EPIO_TRIM_MS 5000

struct epio_ep;

/*
 * One IN transfer. It stays allocated while it is queued (ref held by the
 * queue) and while any of its pieces is in flight (one ref each).
 */
struct epio_tx {
	struct epio_tx *next;
	size_t cap;
	size_t len;
	size_t off; /* how much of it is already in flight */
	unsigned refs;
	uint8_t data[];
};

struct epio_slot {
	struct iocb cb;
	struct epio_ep *ep;
	uint8_t *buf;       /* OUT: one of the ep's read buffers; IN: into tx */
	struct epio_tx *tx; /* IN only */
	size_t len;
	unsigned gen;
	bool busy;
};

/* A completed read the plugin has not had yet. */
struct epio_rx_done {
	uint8_t *buf;
	size_t len;
};

struct epio_ep {
	struct epio *io;
	unsigned idx;
	int fd;
	bool in;
	bool enabled;
	bool rx_on;
	unsigned max_packet;
	/* Bumped on disable: completions of older I/O are only reaped. */
	unsigned gen;
	/* Request size now; halved when the kernel runs short of memory. */
	size_t xfer;
	/*
	 * OUT endpoints with big reads: f_fs allocates (and, with the usual
	 * init_on_alloc, zeroes) a kernel buffer of the full size for every
	 * read, which a 24-byte command does not deserve. Reads stay at
	 * rx_small until one comes back full, and drop back after a short
	 * one. 0: fixed size.
	 */
	size_t rx_small;
	bool rx_big;
	unsigned n_slots;
	unsigned busy;
	struct epio_slot slots[EPIO_SLOTS];
	/*
	 * OUT: a read's buffer leaves its slot when the read completes, so
	 * the slot is queued again (with a free buffer) before the data is
	 * handed over. Buffers of rx_cap bytes, made when first needed, at
	 * most rx_bufs_max of them: in slots, in rx_q, in the plugin's
	 * hands, or free.
	 */
	size_t rx_cap;
	unsigned rx_bufs_max;
	unsigned n_rx_bufs;
	uint8_t *rx_free[EPIO_RX_BUFS];
	unsigned n_rx_free;
	/* Reads completed, and that count at the last trim check. */
	unsigned rx_reads, rx_reads_seen;
	/* Completed reads, in completion order; held while paused. */
	struct epio_rx_done rx_q[EPIO_RX_BUFS];
	unsigned n_rx_q;
	struct epio_tx *head;
	struct epio_tx *tail;
	size_t backlog;
	size_t inflight;
};

struct epio {
	struct loop *loop;
	struct loop_watch *watch;
	int efd;
	io_context_t ctx;
	const struct epio_ops *ops;
	void *data;
	struct epio_ep eps[EPIO_MAX_EPS];
	struct epio_tx *pool;
	unsigned n_pool;
	/* Armed while an OUT endpoint has spare read buffers or the pool
	 * holds any; IN pieces completed, and that count at the last look. */
	struct loop_watch *trim;
	bool trim_armed;
	unsigned tx_done, tx_done_seen;
};

static struct epio_tx *epio_tx_of(void *buf)
{
	return (struct epio_tx *)((uint8_t *)buf - offsetof(struct epio_tx, data));
}

/* Big buffers are mapped, not malloc'd: the idle trim (epio_on_trim)
 * gives their pages back at once, where malloc's heap would keep what
 * sits below a live chunk. NULL when out of memory. */
static void *epio_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void *epio_buf_alloc(struct epio *io, size_t len)
{
	struct epio_tx **pp, *t = NULL;

	/* Small ones (headers, responses) must not take a big buffer. */
	if (len >= EPIO_POOL_MIN)
		for (pp = &io->pool; (t = *pp); pp = &t->next)
			if (t->cap >= len) {
				*pp = t->next;
				io->n_pool--;
				break;
			}
	if (!t) {
		t = len >= EPIO_POOL_MIN ? epio_map(sizeof(*t) + len) : malloc(sizeof(*t) + len);
		if (!t)
			return NULL;
		t->cap = len;
	}
	/* The rest is set when it is queued (epio_write_buf). */
	return t->data;
}

static void epio_tx_free(struct epio_tx *t)
{
	if (t->cap >= EPIO_POOL_MIN)
		munmap(t, sizeof(*t) + t->cap);
	else
		free(t);
}

static void epio_trim_arm(struct epio *io);

static void epio_tx_release(struct epio *io, struct epio_tx *t)
{
	if (t->cap >= EPIO_POOL_MIN && io->n_pool < EPIO_POOL_MAX) {
		t->next = io->pool;
		io->pool = t;
		io->n_pool++;
		epio_trim_arm(io);
	} else {
		epio_tx_free(t);
	}
}

/* The pool's buffers, unmapped. */
static void epio_pool_trim(struct epio *io)
{
	while (io->pool) {
		struct epio_tx *t = io->pool;

		io->pool = t->next;
		io->n_pool--;
		epio_tx_free(t);
	}
}

void epio_buf_free(struct epio *io, void *buf)
{
	if (buf)
		epio_tx_release(io, epio_tx_of(buf));
}

static void epio_tx_unref(struct epio *io, struct epio_tx *t)
{
	if (--t->refs == 0)
		epio_tx_release(io, t);
}

static bool epio_quiet_error(long res)
{
	/* What disable, cancel and unplug look like; nothing to report. */
	return res == -ESHUTDOWN || res == -ECONNRESET || res == -ENODEV ||
	       res == -ECANCELED || res == -EINTR;
}

/* After -ENOMEM from the kernel, a request can be retried smaller. */
static bool epio_can_shrink(const struct epio_ep *ep, int r)
{
	return r == -ENOMEM && ep->xfer > EPIO_MIN_XFER;
}

static int epio_submit(struct epio_ep *ep, struct epio_slot *s, size_t len)
{
	struct iocb *cbp = &s->cb;
	int r;

	if (ep->in)
		io_prep_pwrite(&s->cb, ep->fd, s->buf, len, 0);
	else
		io_prep_pread(&s->cb, ep->fd, s->buf, len, 0);
	io_set_eventfd(&s->cb, ep->io->efd);
	s->cb.data = s;
	r = io_submit(ep->io->ctx, 1, &cbp);
	if (r != 1) {
		/* -EAGAIN: f_fs has disabled the ep, a DISABLE event follows.
		 * -ENOMEM: the caller retries with a smaller request. */
		if (r != -EAGAIN && !epio_can_shrink(ep, r))
			log_warnx("epio: ep%u: io_submit: %s", ep->idx + 1,
				  strerror(r < 0 ? -r : EIO));
		return r < 0 ? r : -EIO;
	}
	s->busy = true;
	s->len = len;
	s->gen = ep->gen;
	ep->busy++;
	return 0;
}

/* Smaller requests from now on, when that can help. */
static bool epio_shrink(struct epio_ep *ep, int r)
{
	if (!epio_can_shrink(ep, r))
		return false;
	ep->xfer /= 2;
	log_info("epio: ep%u: kernel short of memory, requests of %zu KiB now",
		 ep->idx + 1, ep->xfer / 1024);
	return true;
}

static struct epio_slot *epio_free_slot(struct epio_ep *ep)
{
	unsigned i;

	for (i = 0; i < ep->n_slots; i++)
		if (!ep->slots[i].busy)
			return &ep->slots[i];
	return NULL;
}

/* A free read buffer, made if the endpoint has fewer than its bound. */
static uint8_t *epio_rx_buf_get(struct epio_ep *ep)
{
	uint8_t *b;

	if (ep->n_rx_free)
		return ep->rx_free[--ep->n_rx_free];
	if (ep->n_rx_bufs >= ep->rx_bufs_max)
		return NULL;
	b = epio_map(ep->rx_cap);
	if (!b) {
		/* Reads already queued (or a later completion) retry. */
		log_warnx("epio: ep%u: no memory for a read buffer", ep->idx + 1);
		return NULL;
	}
	ep->n_rx_bufs++;
	if (ep->n_rx_bufs > ep->n_slots)
		epio_trim_arm(ep->io);
	return b;
}

static void epio_rx_buf_put(struct epio_ep *ep, uint8_t *b)
{
	ep->rx_free[ep->n_rx_free++] = b;
}

/* Free buffers are unmapped: when the endpoint stops, or idle (the
 * queued reads keep theirs). */
static void epio_rx_bufs_trim(struct epio_ep *ep)
{
	while (ep->n_rx_free) {
		munmap(ep->rx_free[--ep->n_rx_free], ep->rx_cap);
		ep->n_rx_bufs--;
	}
}

/* Whether count moved since the last look (and remember it). */
static bool epio_busy_since(unsigned count, unsigned *seen)
{
	if (count == *seen)
		return false;
	*seen = count;
	return true;
}

/* EPIO_TRIM_MS after spares were made or a buffer went to the pool: an
 * endpoint that read nothing since the last look gives its free buffers
 * back, and the pool goes when nothing was written; what was busy is
 * looked at again later. */
static void epio_on_trim(struct loop_watch *w, void *data)
{
	struct epio *io = data;
	bool again = false;
	unsigned i;

	(void)w;
	io->trim_armed = false;
	if (io->n_pool && epio_busy_since(io->tx_done, &io->tx_done_seen))
		again = true;
	else
		epio_pool_trim(io);
	for (i = 0; i < EPIO_MAX_EPS; i++) {
		struct epio_ep *ep = &io->eps[i];

		if (ep->fd < 0 || ep->in || ep->n_rx_bufs <= ep->n_slots)
			continue;
		if (epio_busy_since(ep->rx_reads, &ep->rx_reads_seen)) {
			again = true;
			continue;
		}
		epio_rx_bufs_trim(ep);
		/* Some may be in the plugin's hands or held by a pause. */
		again |= ep->n_rx_bufs > ep->n_slots;
	}
	if (again)
		epio_trim_arm(io);
}

static void epio_trim_arm(struct epio *io)
{
	if (io->trim_armed)
		return;
	if (io->trim)
		io->trim_armed = loop_timer_rearm(io->trim, EPIO_TRIM_MS) == 0;
	else
		io->trim_armed = (io->trim = loop_add_timer(io->loop, EPIO_TRIM_MS,
							    epio_on_trim, io)) != NULL;
}

static void epio_rx_fill(struct epio_ep *ep)
{
	struct epio_slot *s;
	int r;

	/* A refused read leaves its slot free: after a shrink the same slot
	 * is tried again. */
	while (ep->enabled && ep->rx_on && (s = epio_free_slot(ep))) {
		size_t len = ep->xfer;

		if (ep->rx_small && !ep->rx_big && ep->rx_small < len)
			len = ep->rx_small;
		s->buf = epio_rx_buf_get(ep);
		if (!s->buf)
			return;
		r = epio_submit(ep, s, len);
		if (r < 0) {
			epio_rx_buf_put(ep, s->buf);
			s->buf = NULL;
			if (!epio_shrink(ep, r))
				return;
		}
	}
}

static void epio_tx_pop(struct epio_ep *ep)
{
	struct epio_tx *t = ep->head;

	ep->head = t->next;
	if (!ep->head)
		ep->tail = NULL;
	epio_tx_unref(ep->io, t);
}

/* Move backlog into free slots; a ZLP only goes out on an idle ep. */
static void epio_tx_pump(struct epio_ep *ep)
{
	struct epio_slot *s;
	int r;

	while (ep->enabled && ep->head) {
		struct epio_tx *t = ep->head;
		size_t n = t->len - t->off;

		if (!t->len && ep->busy)
			return;
		s = epio_free_slot(ep);
		if (!s)
			return;
		if (n > ep->xfer)
			n = ep->xfer;
		s->buf = t->data + t->off;
		r = epio_submit(ep, s, n);
		if (r < 0) {
			if (epio_shrink(ep, r))
				continue;
			return;
		}
		s->tx = t;
		t->refs++;
		t->off += n;
		ep->backlog -= n;
		ep->inflight += n;
		if (t->off == t->len)
			epio_tx_pop(ep);
	}
}

/* A slot is idle again: an IN one drops its hold on the transfer, an
 * OUT one gives back a buffer still in it (a read that came to nothing). */
static void epio_slot_done(struct epio_ep *ep, struct epio_slot *s)
{
	s->busy = false;
	ep->busy--;
	if (ep->in && s->tx) {
		epio_tx_unref(ep->io, s->tx);
		s->tx = NULL;
		s->buf = NULL;
	} else if (!ep->in && s->buf) {
		epio_rx_buf_put(ep, s->buf);
		s->buf = NULL;
	}
}

/*
 * Hand completed reads to the plugin in order until it pauses. The slots
 * were queued again before (epio_on_event), so the bus keeps moving while
 * the plugin works on the data (e.g. writes it to a file); each buffer
 * given back lets one more slot be queued, where spares ran out.
 */
static void epio_rx_deliver(struct epio_ep *ep)
{
	while (ep->n_rx_q && ep->rx_on && ep->enabled) {
		struct epio_rx_done d = ep->rx_q[0];

		ep->n_rx_q--;
		memmove(ep->rx_q, ep->rx_q + 1, ep->n_rx_q * sizeof(ep->rx_q[0]));
		ep->io->ops->rx(ep->io->data, ep->idx, d.buf, d.len);
		epio_rx_buf_put(ep, d.buf);
		epio_rx_fill(ep);
	}
}

/* The plugin sees the data once the batch is reaped (epio_on_event). */
static void epio_complete_rx(struct epio_ep *ep, struct epio_slot *s, long res)
{
	uint8_t *buf = s->buf;

	s->buf = NULL;
	epio_slot_done(ep, s);
	if (s->gen != ep->gen || !ep->enabled || res < 0) {
		if (s->gen == ep->gen && ep->enabled && !epio_quiet_error(res))
			log_warnx("epio: ep%u: read: %s", ep->idx + 1,
				  strerror(-res));
		epio_rx_buf_put(ep, buf);
		return;
	}
	ep->rx_big = (size_t)res == s->len;
	ep->rx_reads++;
	/* Reads already queued keep completing after a pause. */
	ep->rx_q[ep->n_rx_q].buf = buf;
	ep->rx_q[ep->n_rx_q].len = res;
	ep->n_rx_q++;
	/* Queued again now, sized by this read: after the whole batch, a
	 * short read at its end (a header) would make every slot small. */
	epio_rx_fill(ep);
}

static void epio_complete_tx(struct epio_ep *ep, struct epio_slot *s, long res)
{
	size_t before;

	if (s->gen != ep->gen) {
		epio_tx_pump(ep);
		return;
	}
	before = ep->backlog + ep->inflight;
	ep->inflight -= s->len;
	ep->io->tx_done++;
	if (res < 0 && !epio_quiet_error(res))
		log_warnx("epio: ep%u: write: %s", ep->idx + 1, strerror(-res));
	else if (res >= 0 && (size_t)res != s->len)
		log_warnx("epio: ep%u: short write %ld of %zu", ep->idx + 1,
			  res, s->len);
	epio_tx_pump(ep);
	if (ep->io->ops->tx_done)
		ep->io->ops->tx_done(ep->io->data, ep->idx, res, before,
				     ep->backlog + ep->inflight);
}

static void epio_complete(struct io_event *ev)
{
	struct epio_slot *s = ev->data;
	struct epio_ep *ep = s->ep;

	if (ep->in) {
		epio_slot_done(ep, s);
		epio_complete_tx(ep, s, (long)ev->res);
	} else {
		epio_complete_rx(ep, s, (long)ev->res);
	}
}

static int epio_reap(struct epio *io, long min_nr, struct timespec *ts)
{
	struct io_event evs[EPIO_EVENTS];
	int n, i;

	n = io_getevents(io->ctx, min_nr, EPIO_EVENTS, evs, ts);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		epio_complete(&evs[i]);
	return n;
}

static void epio_on_event(struct loop_watch *w, int fd, uint32_t events,
			  void *data)
{
	struct epio *io = data;
	struct timespec zero = { 0, 0 };
	int n;

	/* Edge-triggered: every completion signals the eventfd anew, so its
	 * counter need not be read back (a syscall per wake-up saved). */
	unsigned i;

	do {
		n = epio_reap(io, 0, &zero);
	} while (n == EPIO_EVENTS);
	if (n < 0)
		log_warnx("epio: io_getevents: %s", strerror(-n));
	/* Reads go back on the bus before the plugin gets the data. */
	for (i = 0; i < EPIO_MAX_EPS; i++) {
		struct epio_ep *ep = &io->eps[i];

		if (ep->fd < 0 || ep->in)
			continue;
		epio_rx_fill(ep);
		epio_rx_deliver(ep);
	}
}

struct epio *epio_new(struct loop *l, const struct epio_ops *ops, void *data)
{
	struct epio *io = calloc(1, sizeof(*io));
	int r, i;

	if (!io)
		return NULL;
	io->loop = l;
	io->ops = ops;
	io->data = data;
	for (i = 0; i < EPIO_MAX_EPS; i++)
		io->eps[i].fd = -1;
	r = io_setup(EPIO_EVENTS, &io->ctx);
	if (r < 0) {
		log_warnx("epio: io_setup: %s", strerror(-r));
		free(io);
		return NULL;
	}
	io->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (io->efd < 0 || !(io->watch = loop_add_fd(l, io->efd, EPOLLIN | EPOLLET,
						      epio_on_event, io))) {
		log_warn("epio: eventfd");
		if (io->efd >= 0)
			close(io->efd);
		io_destroy(io->ctx);
		free(io);
		return NULL;
	}
	return io;
}

struct io_context *epio_context(const struct epio *io)
{
	return io->ctx;
}

static void epio_cancel_all(struct epio_ep *ep)
{
	struct io_event ev;
	unsigned i;

	for (i = 0; i < ep->n_slots; i++) {
		struct epio_slot *s = &ep->slots[i];

		/* Linux delivers the cancelled iocb through the ring
		 * (-EINPROGRESS); 0 means it was finished here. */
		if (s->busy && io_cancel(ep->io->ctx, &s->cb, &ev) == 0)
			epio_slot_done(ep, s);
	}
}

static void epio_drop_backlog(struct epio_ep *ep)
{
	while (ep->head)
		epio_tx_pop(ep);
	ep->backlog = 0;
	ep->inflight = 0;
}

static bool epio_busy(const struct epio *io)
{
	unsigned i;

	for (i = 0; i < EPIO_MAX_EPS; i++)
		if (io->eps[i].busy)
			return true;
	return false;
}

/* Buffers may only go once the kernel has let go of every iocb. */
static bool epio_quiesce(struct epio *io)
{
	uint64_t deadline = loop_now_ms() + 1000;
	unsigned i;

	for (i = 0; i < EPIO_MAX_EPS; i++) {
		io->eps[i].enabled = false;
		io->eps[i].gen++;
		epio_cancel_all(&io->eps[i]);
	}
	while (epio_busy(io) && loop_now_ms() < deadline) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (epio_reap(io, 1, &ts) < 0)
			break;
	}
	return !epio_busy(io);
}

static void epio_rx_drop(struct epio_ep *ep)
{
	while (ep->n_rx_q)
		epio_rx_buf_put(ep, ep->rx_q[--ep->n_rx_q].buf);
	epio_rx_bufs_trim(ep);
}

/* Only once every iocb is reaped: no slot holds a buffer then. */
static void epio_ep_finish(struct epio_ep *ep)
{
	epio_drop_backlog(ep);
	epio_rx_drop(ep);
	if (ep->fd >= 0)
		close(ep->fd);
}

void epio_free(struct epio *io)
{
	unsigned i;

	if (!io)
		return;
	if (epio_quiesce(io)) {
		io_destroy(io->ctx);
	} else {
		/* Leak rather than free buffers the kernel may still fill. */
		log_warnx("epio: endpoint I/O did not stop");
		loop_watch_remove(io->trim);
		loop_watch_remove(io->watch);
		return;
	}
	for (i = 0; i < EPIO_MAX_EPS; i++)
		epio_ep_finish(&io->eps[i]);
	epio_pool_trim(io);
	loop_watch_remove(io->trim);
	loop_watch_remove(io->watch);
	free(io);
}

/* The read size asked for, within bounds and in whole 512-byte packets. */
static size_t epio_rx_size(size_t asked)
{
	if (!asked)
		return EPIO_RX_XFER;
	if (asked > EPIO_RX_XFER_MAX)
		asked = EPIO_RX_XFER_MAX;
	asked -= asked % 512;
	return asked ? asked : 512;
}

int epio_add(struct epio *io, unsigned idx, int fd, bool in, size_t rx_xfer)
{
	struct epio_ep *ep;
	unsigned i;

	if (idx >= EPIO_MAX_EPS || io->eps[idx].fd >= 0)
		return -EINVAL;
	ep = &io->eps[idx];
	ep->n_slots = in ? EPIO_TX_SLOTS : EPIO_RX_SLOTS;
	ep->xfer = in ? EPIO_TX_PIECE : epio_rx_size(rx_xfer);
	/* Spares only where a read is big enough to be worth overlapping
	 * with the plugin's work; small ones wait for their buffer. */
	ep->rx_cap = in ? 0 : ep->xfer;
	ep->rx_bufs_max = in ? 0 : ep->n_slots;
	if (!in && ep->xfer > EPIO_RX_XFER) {
		ep->rx_small = EPIO_RX_SMALL;
		ep->rx_bufs_max = EPIO_RX_BUFS;
	}
	for (i = 0; i < ep->n_slots; i++)
		ep->slots[i].ep = ep;
	ep->io = io;
	ep->idx = idx;
	ep->fd = fd;
	ep->in = in;
	ep->rx_on = true;
	return 0;
}

static struct epio_ep *epio_ep(const struct epio *io, unsigned idx)
{
	if (idx >= EPIO_MAX_EPS || io->eps[idx].fd < 0)
		return NULL;
	return (struct epio_ep *)&io->eps[idx];
}

int epio_enable(struct epio *io, unsigned idx, unsigned max_packet)
{
	struct epio_ep *ep = epio_ep(io, idx);

	if (!ep || !max_packet)
		return -EINVAL;
	if (ep->enabled)
		epio_disable(io, idx);
	ep->enabled = true;
	ep->max_packet = max_packet;
	/* A pause does not outlive the configuration it was made in. */
	ep->rx_on = true;
	if (ep->in)
		epio_tx_pump(ep);
	else
		epio_rx_fill(ep);
	return 0;
}

void epio_disable(struct epio *io, unsigned idx)
{
	struct epio_ep *ep = epio_ep(io, idx);

	if (!ep)
		return;
	ep->enabled = false;
	ep->max_packet = 0;
	ep->gen++;
	epio_cancel_all(ep);
	epio_drop_backlog(ep);
	epio_rx_drop(ep);
}

bool epio_enabled(const struct epio *io, unsigned idx)
{
	const struct epio_ep *ep = epio_ep(io, idx);

	return ep && ep->enabled;
}

unsigned epio_max_packet(const struct epio *io, unsigned idx)
{
	const struct epio_ep *ep = epio_ep(io, idx);

	return ep ? ep->max_packet : 0;
}

int epio_write_buf(struct epio *io, unsigned idx, void *buf, size_t len)
{
	struct epio_ep *ep = epio_ep(io, idx);
	struct epio_tx *t = epio_tx_of(buf);

	if (!ep || !ep->in || len > t->cap) {
		epio_tx_release(io, t);
		return -EINVAL;
	}
	if (!ep->enabled) {
		epio_tx_release(io, t);
		return -ESHUTDOWN;
	}
	t->next = NULL;
	t->len = len;
	t->off = 0;
	t->refs = 1;
	if (ep->tail)
		ep->tail->next = t;
	else
		ep->head = t;
	ep->tail = t;
	ep->backlog += len;
	epio_tx_pump(ep);
	return 0;
}

int epio_write(struct epio *io, unsigned idx, const void *buf, size_t len)
{
	struct epio_ep *ep = epio_ep(io, idx);
	void *b;

	if (!ep || !ep->in)
		return -EINVAL;
	if (!ep->enabled)
		return -ESHUTDOWN;
	b = epio_buf_alloc(io, len);
	if (!b)
		return -ENOMEM;
	if (len)
		memcpy(b, buf, len);
	return epio_write_buf(io, idx, b, len);
}

size_t epio_queued(const struct epio *io, unsigned idx)
{
	const struct epio_ep *ep = epio_ep(io, idx);

	return ep ? ep->backlog + ep->inflight : 0;
}

void epio_rx_enable(struct epio *io, unsigned idx, bool on)
{
	struct epio_ep *ep = epio_ep(io, idx);

	if (!ep || ep->in)
		return;
	ep->rx_on = on;
	epio_rx_fill(ep);
	epio_rx_deliver(ep);
}

unsigned epio_rx_buffers(const struct epio *io, unsigned idx)
{
	return idx < EPIO_MAX_EPS ? io->eps[idx].n_rx_bufs : 0;
}

unsigned epio_pooled(const struct epio *io)
{
	return io->n_pool;
}
