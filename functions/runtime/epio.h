/*
 * epio: asynchronous FunctionFS endpoint I/O with libaio.
 *
 * One kernel AIO context per worker; every iocb signals one eventfd that
 * the loop watches. OUT endpoints keep EPIO_RX_SLOTS reads queued, of
 * EPIO_RX_XFER bytes unless the caller asks for more. A completed read's
 * slot is queued again before its data reaches the plugin: with reads
 * above EPIO_RX_XFER from a spare buffer (at most EPIO_RX_SLOTS spares an
 * endpoint, made when first needed, unmapped on disable or 5 to 10 s after
 * the endpoint's last read), so the host can
 * keep sending while the plugin stores what came. IN transfers are cut into pieces of at most EPIO_TX_PIECE
 * bytes with at most EPIO_TX_SLOTS in flight and the rest in a backlog; a
 * zero-length packet waits until the endpoint is idle, because dummy_hcd
 * lets a ZLP overtake a partly sent request.
 *
 * IN pieces are submitted straight from the transfer's buffer. A caller
 * that fills a buffer from epio_buf_alloc() and hands it over with
 * epio_write_buf() saves the copy epio_write() makes; big buffers are
 * recycled, so a steady stream does not fault in fresh pages, and
 * unmapped 5 to 10 s after the last write.
 *
 * FunctionFS endpoint files cannot be polled, so the endpoint fds belong
 * to epio (closed by epio_free), not to the loop.
 */
#ifndef GADGETD_EPIO_H
#define GADGETD_EPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct epio;
struct io_context;

#define EPIO_MAX_EPS 4
/*
 * Sizes: f_fs allocates a kernel buffer per request, so a piece is one
 * kernel allocation (order 6 at 256 KiB); on -ENOMEM an endpoint halves
 * its piece size down to EPIO_MIN_XFER. A megabyte in flight each way lets
 * a host's 1 MiB URB be filled without waiting for the worker.
 */
#define EPIO_RX_XFER (16 * 1024)
#define EPIO_RX_XFER_MAX (128 * 1024)
/* Reads bigger than EPIO_RX_XFER shrink to this between bulk transfers. */
#define EPIO_RX_SMALL 4096
#define EPIO_RX_SLOTS 8
#define EPIO_TX_PIECE (256 * 1024)
#define EPIO_TX_SLOTS 8
#define EPIO_MIN_XFER 4096

struct epio_ops {
	/* Data read on OUT endpoint ep (len 0: a zero-length packet), in
	 * the order the reads completed; buf is epio's again when rx
	 * returns. */
	void (*rx)(void *data, unsigned ep, const uint8_t *buf, size_t len);
	/* A transfer piece on IN endpoint ep completed with res (bytes sent
	 * or -errno); queued is what is left (backlog and in flight). */
	void (*tx_done)(void *data, unsigned ep, long res, size_t before,
			size_t queued);
};

struct epio *epio_new(struct loop *l, const struct epio_ops *ops, void *data);
/* Closes the endpoint fds; in-flight I/O is cancelled and reaped. */
void epio_free(struct epio *io);
/* The kernel AIO context (for aioguard_watch). */
struct io_context *epio_context(const struct epio *io);

/* Register endpoint ep (0-based) on fd (opened O_NONBLOCK). An OUT
 * endpoint reads rx_xfer bytes at a time (0: EPIO_RX_XFER; capped at
 * EPIO_RX_XFER_MAX and rounded down to a multiple of 512). Above
 * EPIO_RX_XFER, reads are EPIO_RX_SMALL until one comes back full. */
int epio_add(struct epio *io, unsigned ep, int fd, bool in, size_t rx_xfer);

/* The host enabled the function: start I/O with this wMaxPacketSize. */
int epio_enable(struct epio *io, unsigned ep, unsigned max_packet);
/* Cancel everything in flight and drop the IN backlog. */
void epio_disable(struct epio *io, unsigned ep);
bool epio_enabled(const struct epio *io, unsigned ep);
unsigned epio_max_packet(const struct epio *io, unsigned ep);

/*
 * Queue one IN transfer (copied). Returns 0, -EINVAL (unknown or OUT
 * ep), -ESHUTDOWN when the ep is not enabled, or -ENOMEM.
 */
int epio_write(struct epio *io, unsigned ep, const void *buf, size_t len);
size_t epio_queued(const struct epio *io, unsigned ep);

/*
 * Zero-copy IN transfers: a buffer of len bytes to fill, then hand to
 * epio_write_buf() (which owns it from then on, whatever it returns) or
 * give back with epio_buf_free(). NULL when out of memory.
 */
void *epio_buf_alloc(struct epio *io, size_t len);
int epio_write_buf(struct epio *io, unsigned ep, void *buf, size_t len);
void epio_buf_free(struct epio *io, void *buf);

/* Pause (false) or resume (true) the reads queued on OUT endpoint ep. */
void epio_rx_enable(struct epio *io, unsigned ep, bool on);
/* Read buffers OUT endpoint ep holds now: queued, waiting or spare. */
unsigned epio_rx_buffers(const struct epio *io, unsigned ep);
/* Big write buffers kept for reuse (unmapped when writing stops). */
unsigned epio_pooled(const struct epio *io);

#endif
