/*
 * epio: asynchronous FunctionFS endpoint I/O with libaio.
 *
 * One kernel AIO context per worker; every iocb signals one eventfd that
 * the loop watches. OUT endpoints keep EPIO_RX_SLOTS reads of EPIO_XFER
 * bytes queued. IN transfers are cut into EPIO_XFER pieces with at most
 * EPIO_TX_SLOTS in flight and the rest in a backlog; a zero-length packet
 * waits until the endpoint is idle, because dummy_hcd lets a ZLP overtake
 * a partly sent request.
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

#define EPIO_MAX_EPS 4
#define EPIO_XFER (16 * 1024)
#define EPIO_RX_SLOTS 8
#define EPIO_TX_SLOTS 8

struct epio_ops {
	/* Data read on OUT endpoint ep (len 0: a zero-length packet). */
	void (*rx)(void *data, unsigned ep, const uint8_t *buf, size_t len);
	/* A transfer piece on IN endpoint ep completed; queued is what is
	 * left (backlog and in flight). */
	void (*tx_done)(void *data, unsigned ep, size_t before, size_t queued);
};

struct epio *epio_new(struct loop *l, const struct epio_ops *ops, void *data);
/* Closes the endpoint fds; in-flight I/O is cancelled and reaped. */
void epio_free(struct epio *io);

/* Register endpoint ep (0-based) on fd (opened O_NONBLOCK). */
int epio_add(struct epio *io, unsigned ep, int fd, bool in);

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

/* Pause (false) or resume (true) the reads queued on OUT endpoint ep. */
void epio_rx_enable(struct epio *io, unsigned ep, bool on);

#endif
