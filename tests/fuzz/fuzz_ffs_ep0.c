/*
 * Fuzz the ep0 event reader (ffs_ep0_dispatch) and the worker's command
 * parser (wmsg_parse, wmsg_parse_command) with libFuzzer.
 *
 * The input is cut into datagrams (a length byte, then that many bytes)
 * and sent to ffs_ep0 over a SOCK_SEQPACKET socketpair, which keeps ep0's
 * record boundaries; the setup handler answers, accepts or stalls by the
 * request's bRequest, so data stages consume later datagrams. Invariants:
 * dispatch only returns counts, -EAGAIN, -EPROTO or -ESHUTDOWN; every
 * data stage hands setup_data at most wLength bytes. The whole input is
 * also parsed as a worker datagram.
 */
#include "ffs.h"
#include "log.h"
#include "wmsg.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned fuzz_events;
static int fuzz_sv[2];

static void fuzz_event(void *d, enum usb_functionfs_event_type type)
{
	if ((unsigned)type > FUNCTIONFS_RESUME)
		abort();
	fuzz_events++;
}

static int fuzz_setup(void *d, const struct usb_ctrlrequest *req, uint8_t *in)
{
	fuzz_events++;
	if (req->bRequest & 1)
		return -EOPNOTSUPP;
	if (req->bRequestType & USB_DIR_IN) {
		memset(in, 0xa5, req->wLength);
		return req->bRequest & 2 ? req->wLength + 7 : req->wLength / 2;
	}
	return 0;
}

static void fuzz_setup_data(void *d, const struct usb_ctrlrequest *req,
			    const uint8_t *buf, size_t len)
{
	if (len > req->wLength)
		abort();
}

static const struct ffs_ep0_ops fuzz_ops = {
	.event = fuzz_event,
	.setup = fuzz_setup,
	.setup_data = fuzz_setup_data,
};

static void fuzz_wmsg(const uint8_t *data, size_t size)
{
	uint8_t buf[WORKER_MSG_MAX], *payload;
	char *argv[WMSG_MAX_ARGS + 1];
	uint16_t type;
	uint32_t id;
	size_t len;
	int argc, i;

	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, data, size);
	if (wmsg_parse(buf, size, &type, &payload, &len) < 0)
		return;
	if (payload + len != buf + size)
		abort();
	if (wmsg_parse_command(payload, len, &id, argv, &argc) < 0)
		return;
	for (i = 0; i < argc; i++)
		if ((uint8_t *)argv[i] < payload ||
		    (uint8_t *)argv[i] + strlen(argv[i]) >= payload + len)
			abort();
	if (argv[argc])
		abort();
}

/* Throw away what the "kernel" side got back (answers, stall writes). */
static void fuzz_drain(void)
{
	uint8_t buf[70000];

	while (recv(fuzz_sv[1], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ffs_ep0 *e;
	size_t off = 0;
	int r;

	static bool quiet;

	if (!quiet) {
		log_init("fuzz", true, LOG_LEVEL_ERROR);
		quiet = true;
	}
	fuzz_wmsg(data, size);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, fuzz_sv) < 0)
		return 0;
	e = ffs_ep0_new(fuzz_sv[0], &fuzz_ops, NULL);
	fuzz_events = 0;
	while (off < size) {
		size_t n = data[off++];

		if (n > size - off)
			n = size - off;
		if (send(fuzz_sv[1], data + off, n, 0) < 0)
			break;
		off += n;
	}
	shutdown(fuzz_sv[1], SHUT_WR);
	for (;;) {
		/* A stage runs on ffs's thread: wait for it as the loop does.
		 * It cannot wait for long: the input ends with a shutdown. */
		if (ffs_ep0_busy(e)) {
			struct pollfd pfd = { .fd = ffs_ep0_done_fd(e),
					      .events = POLLIN };

			fuzz_drain();
			if (poll(&pfd, 1, 10) == 1)
				ffs_ep0_finish(e);
			continue;
		}
		r = ffs_ep0_dispatch(e);
		fuzz_drain();
		if (r < 0)
			break;
	}
	if (r != -EAGAIN && r != -EPROTO && r != -ESHUTDOWN)
		abort();
	ffs_ep0_free(e);
	close(fuzz_sv[0]);
	close(fuzz_sv[1]);
	return 0;
}
