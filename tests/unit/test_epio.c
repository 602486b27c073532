/*
 * Unit tests for functions/runtime/epio.c with libaio and the loop replaced by
 * doubles: io_submit records iocbs, the test completes them in any order
 * it likes and fires the eventfd watch by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "epio.h"
#include "log.h"
#include "loop.h"

#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void log_warn(const char *fmt, ...) { (void)fmt; }
void log_warnx(const char *fmt, ...) { (void)fmt; }
void log_info(const char *fmt, ...) { (void)fmt; }
void log_debug(const char *fmt, ...) { (void)fmt; }

/* The loop double: one watch (epio's eventfd), fired by fire(). */
static loop_io_fn watch_fn;
static void *watch_data;
static int watch_fd = -1;
static uint64_t now_ms;

struct loop_watch *loop_add_fd(struct loop *l, int fd, uint32_t events,
			       loop_io_fn fn, void *data)
{
	watch_fn = fn;
	watch_data = data;
	watch_fd = fd;
	return (struct loop_watch *)&watch_fn;
}

/* The trim timer double: armed with its ms, fired by fire_trim(). */
static loop_timer_fn timer_fn;
static void *timer_data;
static uint64_t timer_ms;

struct loop_watch *loop_add_timer(struct loop *l, uint64_t ms, loop_timer_fn fn,
				  void *data)
{
	timer_fn = fn;
	timer_data = data;
	timer_ms = ms;
	return (struct loop_watch *)&timer_fn;
}

int loop_timer_rearm(struct loop_watch *w, uint64_t ms)
{
	timer_ms = ms;
	return 0;
}

/* The timer expires (it must be armed). */
static void fire_trim(void)
{
	assert_non_null(timer_fn);
	assert_true(timer_ms > 0);
	timer_ms = 0;
	timer_fn((struct loop_watch *)&timer_fn, timer_data);
}

void loop_watch_remove(struct loop_watch *w)
{
	if (w == (struct loop_watch *)&timer_fn) {
		timer_fn = NULL;
		return;
	}
	if (w && watch_fd >= 0) {
		close(watch_fd);
		watch_fd = -1;
	}
}

uint64_t loop_now_ms(void)
{
	return now_ms += 50;
}

/* The libaio double. */
#define MAX_IO 64
static struct iocb *submitted[MAX_IO];
static unsigned n_submitted;
static struct io_event done[MAX_IO];
static unsigned n_done;
static unsigned cancels;
static int submit_error;
static bool submit_error_once;

int io_setup(int maxevents, io_context_t *ctxp)
{
	*ctxp = (io_context_t)0x1;
	return 0;
}

int io_destroy(io_context_t ctx)
{
	return 0;
}

int io_submit(io_context_t ctx, long nr, struct iocb *ios[])
{
	long i;

	if (submit_error) {
		int e = submit_error;

		if (submit_error_once)
			submit_error = 0;
		submit_error_once = false;
		return e;
	}
	for (i = 0; i < nr; i++)
		submitted[n_submitted++] = ios[i];
	return nr;
}

/* Linux answers -EINPROGRESS and delivers the iocb through the ring. */
int io_cancel(io_context_t ctx, struct iocb *iocb, struct io_event *evt)
{
	cancels++;
	return -EINPROGRESS;
}

int io_getevents(io_context_t ctx, long min_nr, long nr,
		 struct io_event *events, struct timespec *timeout)
{
	long n = (long)n_done < nr ? (long)n_done : nr;

	memcpy(events, done, n * sizeof(*events));
	memmove(done, done + n, (n_done - n) * sizeof(*events));
	n_done -= n;
	return n;
}

static struct iocb *take(unsigned i)
{
	struct iocb *cb = submitted[i];

	memmove(submitted + i, submitted + i + 1,
		(n_submitted - i - 1) * sizeof(*submitted));
	n_submitted--;
	return cb;
}

/* Complete submitted iocb number i with res, then run the watch. */
static void complete(unsigned i, long res)
{
	struct iocb *cb = take(i);

	done[n_done].data = cb->data;
	done[n_done].obj = cb;
	done[n_done].res = (unsigned long)res;
	n_done++;
	watch_fn(NULL, watch_fd, EPOLLIN, watch_data);
}

/*
 * Complete the first n reads queued on ep's fd, read i with res[i] bytes
 * whose first is tag + i, in one batch: the watch runs once, as when the
 * kernel ends several reads before the worker wakes.
 */
static void complete_reads(int fd, unsigned n, const long *res, char tag)
{
	unsigned i = 0, k = 0;

	while (k < n && i < n_submitted) {
		struct iocb *cb = submitted[i];

		if (cb->aio_lio_opcode != IO_CMD_PREAD || cb->aio_fildes != fd) {
			i++;
			continue;
		}
		if (res[k] > 0)
			((char *)cb->u.c.buf)[0] = tag + k;
		take(i);
		done[n_done].data = cb->data;
		done[n_done].obj = cb;
		done[n_done].res = (unsigned long)res[k];
		n_done++;
		k++;
	}
	assert_int_equal(k, n);
	watch_fn(NULL, watch_fd, EPOLLIN, watch_data);
}

static unsigned count_op(int op);

/* Recording epio callbacks. */
static uint8_t rx_buf[1 << 20];
static size_t rx_len;
static unsigned rx_calls;
static unsigned tx_calls;
static size_t tx_last_before, tx_last_after;
static struct epio *the_io;
static bool pause_in_rx;
/* Pause at this rx call (1-based; 0: never), or disable the ep there. */
static unsigned pause_at, disable_at;
/* Reads queued on the bus at each rx call, and any queued into the
 * buffer the plugin holds. */
static unsigned rx_queued[64];
static bool rx_buf_in_flight;
/* Distinct read buffers submitted since setup. */
static const void *bufs_seen[64];
static unsigned n_bufs_seen;

static void note_read_buffers(void)
{
	unsigned i, j;

	for (i = 0; i < n_submitted; i++) {
		if (submitted[i]->aio_lio_opcode != IO_CMD_PREAD)
			continue;
		for (j = 0; j < n_bufs_seen; j++)
			if (bufs_seen[j] == submitted[i]->u.c.buf)
				break;
		if (j == n_bufs_seen && n_bufs_seen < 64)
			bufs_seen[n_bufs_seen++] = submitted[i]->u.c.buf;
	}
}

static void on_rx(void *data, unsigned ep, const uint8_t *buf, size_t len)
{
	unsigned i;

	note_read_buffers();
	if (rx_calls < 64)
		rx_queued[rx_calls] = count_op(IO_CMD_PREAD);
	for (i = 0; i < n_submitted; i++)
		if (submitted[i]->u.c.buf == buf)
			rx_buf_in_flight = true;
	rx_calls++;
	if (disable_at == rx_calls)
		epio_disable(the_io, ep);
	/* The buffer is the plugin's until it returns, disable or not
	 * (ASan reads it here). */
	memcpy(rx_buf + rx_len, buf, len);
	rx_len += len;
	if (pause_in_rx || pause_at == rx_calls)
		epio_rx_enable(the_io, ep, false);
}

static void on_tx(void *data, unsigned ep, long res, size_t before, size_t after)
{
	tx_calls++;
	tx_last_before = before;
	tx_last_after = after;
}

static const struct epio_ops ops = { .rx = on_rx, .tx_done = on_tx };

#define EP_IN 0
#define EP_OUT 1
#define EP_OUT2 2
#define RX_XFER (64 * 1024 + 100) /* becomes 64 KiB */

static int setup(void **state)
{
	n_submitted = n_done = cancels = 0;
	rx_len = rx_calls = tx_calls = 0;
	submit_error = 0;
	submit_error_once = false;
	pause_in_rx = false;
	pause_at = disable_at = 0;
	rx_buf_in_flight = false;
	n_bufs_seen = 0;
	timer_fn = NULL;
	timer_ms = 0;
	the_io = epio_new(NULL, &ops, NULL);
	if (!the_io)
		return -1;
	/* Any fds will do: nothing reads or writes them. */
	if (epio_add(the_io, EP_IN, dup(0), true, 0) < 0 ||
	    epio_add(the_io, EP_OUT, dup(0), false, RX_XFER) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	/* Whatever is still in flight comes back cancelled. */
	while (n_submitted) {
		struct iocb *cb = take(0);

		done[n_done].data = cb->data;
		done[n_done].obj = cb;
		done[n_done].res = (unsigned long)-ECONNRESET;
		n_done++;
	}
	epio_free(the_io);
	return 0;
}

static unsigned count_op(int op)
{
	unsigned i, n = 0;

	for (i = 0; i < n_submitted; i++)
		n += submitted[i]->aio_lio_opcode == op;
	return n;
}

static int find_op(int op)
{
	unsigned i;

	for (i = 0; i < n_submitted; i++)
		if (submitted[i]->aio_lio_opcode == op)
			return i;
	return -1;
}

static void test_enable_queues_reads(void **state)
{
	assert_int_equal(epio_write(the_io, EP_IN, "x", 1), -ESHUTDOWN);
	assert_int_equal(n_submitted, 0);
	assert_int_equal(epio_enable(the_io, EP_OUT, 512), 0);
	assert_int_equal(epio_enable(the_io, EP_IN, 512), 0);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	assert_int_equal(submitted[0]->u.c.nbytes, EPIO_RX_SMALL);
	assert_true(submitted[0]->u.c.flags & 1); /* IOCB_FLAG_RESFD */
	assert_int_equal(epio_max_packet(the_io, EP_IN), 512);
	assert_int_equal(epio_write(the_io, EP_OUT, "x", 1), -EINVAL);
	assert_int_equal(epio_write(the_io, 3, "x", 1), -EINVAL);
	assert_int_equal(epio_enable(the_io, EP_OUT, 0), -EINVAL);
}

/* Read sizes: 16 KiB unless asked, capped, whole packets. */
static void test_rx_sizes(void **state)
{
	static const size_t ask[] = { 0, 10 * 1024 * 1024, 100 };
	static const size_t want[] = { EPIO_RX_XFER, EPIO_RX_SMALL, 512 };

	for (unsigned i = 0; i < 3; i++) {
		unsigned base;

		if (i == 2) {
			teardown(state);
			assert_int_equal(setup(state), 0);
		}
		assert_int_equal(epio_add(the_io, EP_OUT2 + (i == 1), dup(0),
					  false, ask[i]), 0);
		base = n_submitted;
		epio_enable(the_io, EP_OUT2 + (i == 1), 512);
		assert_int_equal(n_submitted - base, EPIO_RX_SLOTS);
		assert_int_equal(submitted[base]->u.c.nbytes, want[i]);
	}
}

/* Big reads only while the host sends in bulk. */
static void test_rx_adapts(void **state)
{
	epio_enable(the_io, EP_OUT, 512);
	assert_int_equal(submitted[0]->u.c.nbytes, EPIO_RX_SMALL);
	complete(0, 24);                       /* a command: stay small */
	assert_int_equal(submitted[n_submitted - 1]->u.c.nbytes, EPIO_RX_SMALL);
	complete(0, EPIO_RX_SMALL);            /* full: bulk data follows */
	assert_int_equal(submitted[n_submitted - 1]->u.c.nbytes, 64 * 1024);
	complete(0, 1000);                     /* the end of it */
	assert_int_equal(submitted[n_submitted - 1]->u.c.nbytes, EPIO_RX_SMALL);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

/* A completed read reaches rx and its slot is queued again. */
static void test_rx_and_requeue(void **state)
{
	struct iocb *cb;

	epio_enable(the_io, EP_OUT, 512);
	cb = submitted[0];
	memcpy(cb->u.c.buf, "hello", 5);
	complete(0, 5);
	assert_int_equal(rx_calls, 1);
	assert_int_equal(rx_len, 5);
	assert_memory_equal(rx_buf, "hello", 5);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	complete(0, 0);                          /* a ZLP from the host */
	assert_int_equal(rx_calls, 2);
	assert_int_equal(rx_len, 5);
}

/* Six and a quarter pieces, twice: 8 in flight, the rest waits. */
#define BIG (6 * EPIO_TX_PIECE + EPIO_TX_PIECE / 4)
static void test_tx_pieces_and_backlog(void **state)
{
	static uint8_t data[BIG];
	size_t i, got = 0;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 7;
	epio_enable(the_io, EP_IN, 512);
	assert_int_equal(epio_write(the_io, EP_IN, data, sizeof(data)), 0);
	assert_int_equal(count_op(IO_CMD_PWRITE), 7);
	assert_int_equal(submitted[6]->u.c.nbytes, EPIO_TX_PIECE / 4);
	assert_int_equal(epio_write(the_io, EP_IN, data, sizeof(data)), 0);
	assert_int_equal(count_op(IO_CMD_PWRITE), EPIO_TX_SLOTS);
	assert_int_equal(epio_queued(the_io, EP_IN), 2 * sizeof(data));
	/* Pieces go out in order and carry the right bytes. */
	while (got < sizeof(data)) {
		struct iocb *cb = submitted[0];

		assert_memory_equal(cb->u.c.buf, data + got, cb->u.c.nbytes);
		got += cb->u.c.nbytes;
		complete(0, cb->u.c.nbytes);
	}
	assert_int_equal(got, sizeof(data));
	assert_int_equal(epio_queued(the_io, EP_IN), sizeof(data));
	assert_int_equal(tx_calls, 7);
	assert_int_equal(tx_last_after, sizeof(data));
	while (n_submitted)
		complete(0, submitted[0]->u.c.nbytes);
	assert_int_equal(epio_queued(the_io, EP_IN), 0);
	assert_int_equal(tx_last_after, 0);
}

/* A filled buffer is submitted in place, and comes back for reuse. */
static void test_tx_zero_copy_and_reuse(void **state)
{
	uint8_t *b = epio_buf_alloc(the_io, 2 * EPIO_TX_PIECE);
	uint8_t *c;

	assert_non_null(b);
	memset(b, 0x5a, 2 * EPIO_TX_PIECE);
	assert_int_equal(epio_write_buf(the_io, EP_IN, b, 2 * EPIO_TX_PIECE),
			 -ESHUTDOWN);
	epio_enable(the_io, EP_IN, 512);
	b = epio_buf_alloc(the_io, 2 * EPIO_TX_PIECE);
	assert_int_equal(epio_write_buf(the_io, EP_IN, b, 2 * EPIO_TX_PIECE), 0);
	assert_int_equal(n_submitted, 2);
	assert_ptr_equal(submitted[0]->u.c.buf, b);
	assert_ptr_equal(submitted[1]->u.c.buf, b + EPIO_TX_PIECE);
	/* Still in flight: a new buffer is a different one. */
	complete(0, EPIO_TX_PIECE);
	c = epio_buf_alloc(the_io, EPIO_TX_PIECE);
	assert_ptr_not_equal(c, b);
	epio_buf_free(the_io, c);
	/* Once the last piece is done, b is recycled (the pool gives the
	 * most recently freed buffer that fits). */
	complete(0, EPIO_TX_PIECE);
	/* A header-sized buffer does not take it... */
	assert_int_equal(epio_write(the_io, EP_IN, "hdr", 3), 0);
	assert_ptr_not_equal(submitted[0]->u.c.buf, b);
	c = epio_buf_alloc(the_io, 2 * EPIO_TX_PIECE);
	assert_ptr_equal(c, b);
	complete(0, 3);
	/* Too long for its buffer: refused, and the buffer is taken. */
	assert_int_equal(epio_write_buf(the_io, EP_IN, c, 4 * EPIO_TX_PIECE),
			 -EINVAL);
	assert_int_equal(n_submitted, 0);
}

/* The pool of big write buffers is unmapped once nothing was written
 * for EPIO_TRIM_MS (not while writes go on), and writing goes on after. */
static void test_tx_pool_trimmed_when_idle(void **state)
{
	uint8_t *b;

	epio_enable(the_io, EP_IN, 512);
	b = epio_buf_alloc(the_io, EPIO_TX_PIECE);
	memset(b, 1, EPIO_TX_PIECE);
	assert_int_equal(epio_write_buf(the_io, EP_IN, b, EPIO_TX_PIECE), 0);
	complete(0, EPIO_TX_PIECE);
	assert_int_equal(epio_pooled(the_io), 1);
	/* Written since the buffer came back: kept, looked at again. */
	fire_trim();
	assert_int_equal(epio_pooled(the_io), 1);
	fire_trim();
	assert_int_equal(epio_pooled(the_io), 0);
	assert_int_equal(timer_ms, 0);
	b = epio_buf_alloc(the_io, EPIO_TX_PIECE);
	memset(b, 2, EPIO_TX_PIECE);
	assert_int_equal(epio_write_buf(the_io, EP_IN, b, EPIO_TX_PIECE), 0);
	assert_int_equal(((uint8_t *)submitted[0]->u.c.buf)[0], 2);
	complete(0, EPIO_TX_PIECE);
	assert_int_equal(epio_pooled(the_io), 1);
	assert_int_equal(timer_ms, 5000);
}

/* The kernel refusing a big request: the endpoint halves its requests. */
static void test_enomem_shrinks(void **state)
{
	static uint8_t data[EPIO_TX_PIECE];

	epio_enable(the_io, EP_IN, 512);
	submit_error = -ENOMEM;
	submit_error_once = true;
	assert_int_equal(epio_write(the_io, EP_IN, data, sizeof(data)), 0);
	assert_int_equal(n_submitted, 2);
	assert_int_equal(submitted[0]->u.c.nbytes, EPIO_TX_PIECE / 2);
	assert_int_equal(submitted[1]->u.c.nbytes, EPIO_TX_PIECE / 2);
	assert_int_equal(epio_queued(the_io, EP_IN), sizeof(data));
	assert_int_equal(epio_add(the_io, EP_OUT2, dup(0), false, 0), 0);
	submit_error = -ENOMEM;
	submit_error_once = true;
	epio_enable(the_io, EP_OUT2, 512);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	assert_int_equal(submitted[find_op(IO_CMD_PREAD)]->u.c.nbytes,
			 EPIO_RX_XFER / 2);
}

/* dummy_hcd: a ZLP must not be queued behind an unfinished request. */
static void test_zlp_waits_for_idle(void **state)
{
	static uint8_t data[1024];

	epio_enable(the_io, EP_IN, 512);
	epio_write(the_io, EP_IN, data, sizeof(data));
	epio_write(the_io, EP_IN, NULL, 0);
	epio_write(the_io, EP_IN, data, 10);
	assert_int_equal(count_op(IO_CMD_PWRITE), 1);
	complete(0, 1024);
	assert_int_equal(n_submitted, 2);         /* the ZLP and what follows */
	assert_int_equal(submitted[0]->u.c.nbytes, 0);
	assert_int_equal(submitted[1]->u.c.nbytes, 10);
}

/* Disable cancels, drops the backlog, and ignores late completions. */
static void test_disable_drops(void **state)
{
	static uint8_t data[EPIO_TX_SLOTS * EPIO_TX_PIECE + 1000];
	struct iocb *cb;
	int i;

	epio_enable(the_io, EP_IN, 512);
	epio_enable(the_io, EP_OUT, 512);
	epio_write(the_io, EP_IN, data, sizeof(data));
	assert_int_equal(count_op(IO_CMD_PWRITE), EPIO_TX_SLOTS);
	epio_disable(the_io, EP_IN);
	epio_disable(the_io, EP_OUT);
	assert_int_equal(cancels, EPIO_TX_SLOTS + EPIO_RX_SLOTS);
	assert_int_equal(epio_queued(the_io, EP_IN), 0);
	assert_false(epio_enabled(the_io, EP_IN));
	assert_int_equal(epio_write(the_io, EP_IN, data, 1), -ESHUTDOWN);
	/* A late read with data is stale: not handed to rx, not requeued. */
	i = find_op(IO_CMD_PREAD);
	cb = submitted[i];
	complete(i, 64);
	assert_int_equal(rx_calls, 0);
	(void)cb;
	/* Re-enable: only the free read slot is queued again at once. */
	epio_enable(the_io, EP_OUT, 1024);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	/* A stale write completing does not touch the new queue. */
	epio_enable(the_io, EP_IN, 1024);
	epio_write(the_io, EP_IN, data, 100);
	assert_int_equal(epio_queued(the_io, EP_IN), 100);
	complete(find_op(IO_CMD_PWRITE), -ECONNRESET);
	assert_int_equal(epio_queued(the_io, EP_IN), 100);
	assert_int_equal(tx_calls, 0);
}

/* Paused reception holds completed reads and hands them over in order. */
static void test_rx_pause_holds_in_order(void **state)
{
	int i;

	epio_enable(the_io, EP_OUT, 512);
	pause_in_rx = true;
	memcpy(submitted[0]->u.c.buf, "A", 1);
	complete(0, 1);
	assert_int_equal(rx_calls, 1);
	/* The slot was queued again before the plugin paused; from now on
	 * no new reads, and later completions are held. */
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	pause_in_rx = false;
	for (i = 0; i < 3; i++) {
		memcpy(submitted[0]->u.c.buf, "BCD" + i, 1);
		complete(0, 1);
	}
	assert_int_equal(rx_calls, 1);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS - 3);
	epio_rx_enable(the_io, EP_OUT, true);
	assert_int_equal(rx_calls, 4);
	assert_memory_equal(rx_buf, "ABCD", 4);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

static const long full[EPIO_RX_SLOTS] = {
	64 * 1024, 64 * 1024, 64 * 1024, 64 * 1024,
	64 * 1024, 64 * 1024, 64 * 1024, 64 * 1024,
};

/* The endpoint streams: the read queued at enable (EPIO_RX_SMALL each)
 * come back full, and every slot is queued again at 64 KiB. */
static void go_big(int fd)
{
	static const long small[EPIO_RX_SLOTS - 1] = {
		EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL,
		EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL,
	};
	unsigned i;

	complete(0, EPIO_RX_SMALL);
	complete_reads(fd, EPIO_RX_SLOTS - 1, small, 'Z');
	for (i = 0; i < n_submitted; i++)
		assert_int_equal(submitted[i]->u.c.nbytes, 64 * 1024);
	rx_len = rx_calls = 0;
}

/*
 * Big reads: all 8 come back in one batch, and every slot is on the bus
 * again, with a buffer the plugin does not hold, before the first is
 * handed over; the data arrives in completion order. The spares are
 * bounded: never more than twice the slots in buffers, however long the
 * stream.
 */
static void test_rx_requeued_before_handoff(void **state)
{
	int fd;
	unsigned i, round;

	epio_enable(the_io, EP_OUT, 512);
	fd = submitted[0]->aio_fildes;
	go_big(fd);
	for (round = 0; round < 4; round++) {
		complete_reads(fd, EPIO_RX_SLOTS, full, 'a' + round * 8);
		for (i = 0; i < rx_calls; i++)
			assert_int_equal(rx_queued[i], EPIO_RX_SLOTS);
		assert_false(rx_buf_in_flight);
		rx_len = rx_calls = 0;
	}
	/* 'a'.. of the first round, then the next rounds' first bytes. */
	complete_reads(fd, 3, full, 'x');
	assert_int_equal(rx_calls, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(rx_buf[i * 64 * 1024], 'x' + i);
	note_read_buffers();
	assert_true(n_bufs_seen > EPIO_RX_SLOTS);
	assert_true(n_bufs_seen <= 2 * EPIO_RX_SLOTS);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

/*
 * Spares go back to malloc once the endpoint has read nothing for a
 * while (EPIO_TRIM_MS): not while reads come (the timer looks again),
 * and the queued reads keep their buffers. A stream after the trim makes
 * spares again and its data still arrives in order.
 */
static void test_rx_spares_trimmed_when_idle(void **state)
{
	int fd;
	unsigned i;

	epio_enable(the_io, EP_OUT, 512);
	fd = submitted[0]->aio_fildes;
	go_big(fd);
	complete_reads(fd, EPIO_RX_SLOTS, full, 'a');
	rx_len = 0;
	complete_reads(fd, EPIO_RX_SLOTS, full, 'h');
	rx_len = 0;
	assert_true(epio_rx_buffers(the_io, EP_OUT) > EPIO_RX_SLOTS);
	/* Reads since the spares were made: kept, looked at again. */
	fire_trim();
	assert_true(epio_rx_buffers(the_io, EP_OUT) > EPIO_RX_SLOTS);
	assert_int_equal(timer_ms, 5000);
	complete_reads(fd, 2, full, 'p');
	fire_trim();
	assert_true(epio_rx_buffers(the_io, EP_OUT) > EPIO_RX_SLOTS);
	/* Idle: only the queued reads' buffers are left; no timer. */
	fire_trim();
	assert_int_equal(epio_rx_buffers(the_io, EP_OUT), EPIO_RX_SLOTS);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	assert_int_equal(timer_ms, 0);
	/* A new stream: spares again, the data in order. */
	rx_len = rx_calls = 0;
	complete_reads(fd, EPIO_RX_SLOTS, full, 'r');
	assert_int_equal(rx_calls, EPIO_RX_SLOTS);
	for (i = 0; i < EPIO_RX_SLOTS; i++)
		assert_int_equal(rx_buf[i * 64 * 1024], 'r' + i);
	assert_true(epio_rx_buffers(the_io, EP_OUT) > EPIO_RX_SLOTS);
	assert_int_equal(timer_ms, 5000);
}

/*
 * Each slot of a batch is queued again sized by its own read, as one at a
 * time: full reads get big ones, the slot after a short read (the end of
 * the payload, or a header) a small one, not every slot of the batch.
 */
static void test_rx_batch_sizes_per_read(void **state)
{
	static const long mixed[4] = { 64 * 1024, 64 * 1024, 64 * 1024, 24 };
	static const long smallfull[7] = {
		EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL,
		EPIO_RX_SMALL, EPIO_RX_SMALL, EPIO_RX_SMALL,
	};
	int fd;
	unsigned i, big = 0, small = 0;

	epio_enable(the_io, EP_OUT, 512);
	fd = submitted[0]->aio_fildes;
	complete(0, EPIO_RX_SMALL);
	/* Seven small ones left from the enable; the first refill is big. */
	assert_int_equal(submitted[n_submitted - 1]->u.c.nbytes, 64 * 1024);
	complete_reads(fd, 7, smallfull, 'a');
	assert_int_equal(submitted[0]->u.c.nbytes, 64 * 1024);
	complete_reads(fd, 4, mixed, 'k');
	for (i = 0; i < n_submitted; i++) {
		big += submitted[i]->u.c.nbytes == 64 * 1024;
		small += submitted[i]->u.c.nbytes == EPIO_RX_SMALL;
	}
	assert_int_equal(big, EPIO_RX_SLOTS - 1);
	assert_int_equal(small, 1);
}

/* Small reads (16 KiB) take no spares: a slot waits for its buffer. */
static void test_rx_small_no_spares(void **state)
{
	static const long some[4] = { 100, 200, 300, 400 };
	int fd;

	assert_int_equal(epio_add(the_io, EP_OUT2, dup(0), false, 0), 0);
	epio_enable(the_io, EP_OUT2, 512);
	fd = submitted[0]->aio_fildes;
	complete_reads(fd, 4, some, 'A');
	assert_int_equal(rx_calls, 4);
	/* Four buffers completed: the first rx saw the other four reads. */
	assert_int_equal(rx_queued[0], EPIO_RX_SLOTS - 4);
	assert_int_equal(rx_len, 1000);
	assert_int_equal(rx_buf[0], 'A');
	assert_int_equal(rx_buf[100], 'B');
	assert_int_equal(rx_buf[300], 'C');
	assert_int_equal(rx_buf[600], 'D');
	note_read_buffers();
	assert_int_equal(n_bufs_seen, EPIO_RX_SLOTS);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

/* A pause in the middle of a batch holds the rest of it, in order. */
static void test_rx_pause_mid_batch(void **state)
{
	int fd;

	epio_enable(the_io, EP_OUT, 512);
	fd = submitted[0]->aio_fildes;
	go_big(fd);
	pause_at = 2;
	complete_reads(fd, 5, full, 'a');
	assert_int_equal(rx_calls, 2);
	/* Queued again before the pause; nothing more while paused. */
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	complete_reads(fd, 2, full, 'f');
	assert_int_equal(rx_calls, 2);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS - 2);
	epio_rx_enable(the_io, EP_OUT, true);
	assert_int_equal(rx_calls, 7);
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(rx_buf[i * 64 * 1024], 'a' + i);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

/*
 * Disabled inside rx with more of the batch to hand over: the rest is
 * dropped, the buffer in hand stays the plugin's until rx returns, late
 * completions are only reaped, and a new enable starts clean.
 */
static void test_rx_disable_mid_batch(void **state)
{
	int fd;

	epio_enable(the_io, EP_OUT, 512);
	fd = submitted[0]->aio_fildes;
	go_big(fd);
	disable_at = 1;
	complete_reads(fd, 4, full, 'a');
	assert_int_equal(rx_calls, 1);
	assert_int_equal(rx_buf[0], 'a');
	assert_false(epio_enabled(the_io, EP_OUT));
	/* The cancelled reads come back with data after all: stale. */
	complete_reads(fd, 3, full, 'q');
	assert_int_equal(rx_calls, 1);
	disable_at = 0;
	epio_enable(the_io, EP_OUT, 512);
	assert_int_equal(rx_calls, 1);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS); /* 5 stale */
	/* The other five stale ones, late after the new enable. */
	complete_reads(fd, 5, full, 'r');
	assert_int_equal(rx_calls, 1);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
	complete_reads(fd, 1, full, 'z');
	assert_int_equal(rx_calls, 2);
	assert_int_equal(rx_buf[64 * 1024], 'z');
	note_read_buffers();
	assert_true(n_bufs_seen <= 2 * EPIO_RX_SLOTS);
}

/* io_submit refusing (ep disabled under us) stops queueing, no crash. */
static void test_submit_refused(void **state)
{
	submit_error = -EAGAIN;
	assert_int_equal(epio_enable(the_io, EP_OUT, 512), 0);
	assert_int_equal(n_submitted, 0);
	epio_enable(the_io, EP_IN, 512);
	assert_int_equal(epio_write(the_io, EP_IN, "abc", 3), 0);
	assert_int_equal(epio_queued(the_io, EP_IN), 3);
	submit_error = 0;
	epio_rx_enable(the_io, EP_OUT, true);
	assert_int_equal(count_op(IO_CMD_PREAD), EPIO_RX_SLOTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enable_queues_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_and_requeue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_adapts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_pieces_and_backlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_zero_copy_and_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_pool_trimmed_when_idle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enomem_shrinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zlp_waits_for_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disable_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_pause_holds_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_requeued_before_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_batch_sizes_per_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_small_no_spares, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_spares_trimmed_when_idle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rx_pause_mid_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_disable_mid_batch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
