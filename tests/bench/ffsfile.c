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

#define FFSFILE_QUEUE 8
#define FFSFILE_IN_MAX (1024 * 1024)

struct ffsfile_descs {
	struct usb_functionfs_descs_head_v2 head;
	__le32 fs_count;
	__le32 hs_count;
	struct {
		struct usb_interface_descriptor intf;
		struct usb_endpoint_descriptor_no_audio in, out;
	} __attribute__((packed)) fs, hs;
} __attribute__((packed));

struct ffsfile_strings {
	struct usb_functionfs_strings_head head;
	__le16 lang;
	char str[sizeof("ffsfile")];
} __attribute__((packed));

static void ffsfile_speed(struct usb_interface_descriptor *intf,
			  struct usb_endpoint_descriptor_no_audio *in,
			  struct usb_endpoint_descriptor_no_audio *out, int mps)
{
	*intf = (struct usb_interface_descriptor){
		.bLength = sizeof(*intf),
		.bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 2,
		.bInterfaceClass = USB_CLASS_VENDOR_SPEC,
		.iInterface = 1,
	};
	*in = (struct usb_endpoint_descriptor_no_audio){
		.bLength = sizeof(*in),
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = 1 | USB_DIR_IN,
		.bmAttributes = USB_ENDPOINT_XFER_BULK,
		.wMaxPacketSize = htole16(mps),
	};
	*out = *in;
	out->bEndpointAddress = 2 | USB_DIR_OUT;
}

static int ffsfile_ep0(const char *dir)
{
	struct ffsfile_descs d = {
		.head = {
			.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2),
			.length = htole32(sizeof(d)),
			.flags = htole32(FUNCTIONFS_HAS_FS_DESC |
					 FUNCTIONFS_HAS_HS_DESC),
		},
		.fs_count = htole32(3),
		.hs_count = htole32(3),
	};
	struct ffsfile_strings s = {
		.head = {
			.magic = htole32(FUNCTIONFS_STRINGS_MAGIC),
			.length = htole32(sizeof(s)),
			.str_count = htole32(1),
			.lang_count = htole32(1),
		},
		.lang = htole16(0x0409),
		.str = "ffsfile",
	};
	char path[4096];
	int fd;

	ffsfile_speed(&d.fs.intf, &d.fs.in, &d.fs.out, 64);
	ffsfile_speed(&d.hs.intf, &d.hs.in, &d.hs.out, 512);
	snprintf(path, sizeof(path), "%s/ep0", dir);
	fd = open(path, O_RDWR);
	if (fd < 0 || write(fd, &d, sizeof(d)) != sizeof(d) ||
	    write(fd, &s, sizeof(s)) != sizeof(s))
		return -1;
	return fd;
}

/* Blocks until the host has configured the function. */
static int ffsfile_wait_enable(int ep0)
{
	struct usb_functionfs_event ev;

	for (;;) {
		if (read(ep0, &ev, sizeof(ev)) != sizeof(ev))
			return -1;
		if (ev.type == FUNCTIONFS_ENABLE)
			return 0;
	}
}

static int ffsfile_open_ep(const char *dir, int n)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/ep%d", dir, n);
	return open(path, O_RDWR);
}

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
	ep0 = ffsfile_ep0(argv[1]);
	if (ep0 < 0) {
		perror("ffsfile: descriptors");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (ffsfile_wait_enable(ep0) < 0 || (in = ffsfile_open_ep(argv[1], 1)) < 0 ||
	    (out = ffsfile_open_ep(argv[1], 2)) < 0 ||
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
