/*
 * ffsfile: the device side of the bench's ffs-file bound. A FunctionFS
 * function with one bulk pair that does, per byte, only what any MTP
 * responder in user space must: for the host's OUT data, AIO reads out
 * of f_fs into user memory, each written to a file; for IN data, pread
 * from that file, each piece queued as an AIO write. No
 * MTP containers, no event loop, no seccomp, no space check, no
 * temporary file: the bytes' own cost on the device, which SourceSink
 * (whose requests never leave the kernel) does not pay. Driven from the
 * host by tests/bench/usbsync with libmtp's pattern (b-mtp.sh).
 *
 * usage: ffsfile FFSDIR BYTES FILE [OUT_KIB [IN_KIB]]
 * Writes the descriptors to FFSDIR/ep0 and prints "ready" once they are
 * in (the gadget may be bound then), waits for ENABLE, receives BYTES
 * from the host into FILE (created or truncated), then sends FILE's
 * first BYTES back; exit 0 when all went through, 1 on any error. Then
 * prints the CPU time (user + system) each direction took it, as
 * "cpu_ms out N" and "cpu_ms in N".
 * Requests are the mtp plugin's unless told: OUT_KIB (128) per read, 8
 * reads queued (epio); IN_KIB (256) per write, at most 1 MiB queued
 * (PLUGIN_TX_HIGH). BYTES must be a multiple of both sizes.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdbool.h>
#include <linux/usb/functionfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ffsdescs.h"

#define FFSFILE_QUEUE 8
#define FFSFILE_IN_MAX (1024 * 1024)

/*
 * Moves total bytes through ep: host to file (in false: AIO reads, then
 * write) or file to host (in true: pread, then AIO write), xfer bytes a
 * request, each refilled as soon as it completes.
 */
static int ffsfile_move(io_context_t ctx, int ep, int fd, bool in,
			long long total, unsigned char **bufs, long xfer)
{
	int depth = in && FFSFILE_IN_MAX / xfer < FFSFILE_QUEUE
			    ? FFSFILE_IN_MAX / xfer : FFSFILE_QUEUE;
	struct iocb cbs[FFSFILE_QUEUE] = { 0 }, *cbp;
	struct io_event evs[FFSFILE_QUEUE];
	long long off[FFSFILE_QUEUE], queued = 0, done = 0;
	int n, busy = 0;

	while (done < total) {
		for (int i = 0; i < depth && queued < total; i++) {
			if (cbs[i].data == (void *)1)
				continue;
			if (in && pread(fd, bufs[i], xfer, queued) != xfer)
				return -1;
			if (in)
				io_prep_pwrite(&cbs[i], ep, bufs[i], xfer, 0);
			else
				io_prep_pread(&cbs[i], ep, bufs[i], xfer, 0);
			cbs[i].data = (void *)1;
			off[i] = queued;
			cbp = &cbs[i];
			if (io_submit(ctx, 1, &cbp) != 1)
				return -1;
			queued += xfer;
			busy++;
		}
		n = io_getevents(ctx, 1, busy, evs, NULL);
		if (n < 0)
			return -1;
		for (int k = 0; k < n; k++) {
			struct iocb *cb = evs[k].obj;
			long res = (long)evs[k].res;

			if (res != xfer) {
				fprintf(stderr, "ffsfile: request gave %ld\n", res);
				return -1;
			}
			if (!in && pwrite(fd, cb->u.c.buf, res,
					  off[cb - cbs]) != res)
				return -1;
			done += res;
			cb->data = NULL;
			busy--;
		}
	}
	return 0;
}

/* This process's CPU time so far (user + system), in ms. */
static long ffsfile_cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

int main(int argc, char **argv)
{
	unsigned char *bufs[FFSFILE_QUEUE];
	io_context_t ctx = 0;
	long long total = argc > 2 ? atoll(argv[2]) : 0;
	long oxfer = argc > 4 ? atol(argv[4]) * 1024 : 128 * 1024;
	long ixfer = argc > 5 ? atol(argv[5]) * 1024 : 256 * 1024;
	int ep0, in, out, fd;
	long c0, c1;

	if (argc < 4 || argc > 6 || total <= 0 || oxfer <= 0 || ixfer <= 0 ||
	    total % oxfer || total % ixfer) {
		fprintf(stderr, "usage: ffsfile FFSDIR BYTES FILE [OUT_KIB [IN_KIB]]\n");
		return 2;
	}
	for (int i = 0; i < FFSFILE_QUEUE; i++)
		if (!(bufs[i] = malloc(oxfer > ixfer ? oxfer : ixfer)))
			return 1;
	ep0 = ffsdesc_write(argv[1], (const long[3]){ USB_CLASS_VENDOR_SPEC, 0, 0 },
			    "io", "ffsfile");
	if (ep0 < 0) {
		perror("ffsfile: descriptors");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (ffsdesc_wait_enable(ep0) < 0 || (in = ffsdesc_open_ep(argv[1], 1)) < 0 ||
	    (out = ffsdesc_open_ep(argv[1], 2)) < 0 ||
	    (fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    io_setup(FFSFILE_QUEUE, &ctx) < 0) {
		perror("ffsfile");
		return 1;
	}
	c0 = ffsfile_cpu_ms();
	if (ffsfile_move(ctx, out, fd, false, total, bufs, oxfer) < 0 ||
	    (c1 = ffsfile_cpu_ms(),
	     ffsfile_move(ctx, in, fd, true, total, bufs, ixfer) < 0)) {
		perror("ffsfile: transfer");
		return 1;
	}
	printf("cpu_ms out %ld\ncpu_ms in %ld\n", c1 - c0, ffsfile_cpu_ms() - c1);
	return 0;
}
