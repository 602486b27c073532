/*
 * usbsync: move bytes through a device's first bulk endpoint pair one
 * synchronous transfer at a time, the way libmtp does (16 KiB per
 * transfer, each written to or read from a file between transfers). With
 * the kernel's SourceSink function as the device, it gives the best rate
 * any device could reach with that host pattern on this bed.
 *
 * With mtpin and mtpout it follows libmtp 1.1.20 more closely still
 * (src/libusb1-glue.c: ptp_usb_getdata, ptp_usb_senddata, ptp_read_func,
 * ptp_write_func) and mtp-tools' progress callback: the first transfer
 * is one maxpacket (libmtp reads the container header with the first
 * packet's worth of data, and sends them together), the rest CHUNK at a
 * time, and after each transfer a progress line goes to stderr in one
 * write, as mtp-getfile and mtp-sendfile print theirs to stdout and
 * flush it. The device stream is then cut where a responder's 12-byte
 * header puts libmtp's transfers: 512 bytes off a CHUNK boundary.
 *
 * With adbin and adbout it follows Debian's adb 29 instead (AOSP adb's
 * client/usb_linux.cpp and its one-WRTE-in-flight streams): each CHUNK of
 * payload goes with a 24-byte header in a transfer of its own before it,
 * a ZLP after it when it is a multiple of maxpacket, and then the host
 * waits for the 24-byte OKAY; a pull reads the header, then the payload,
 * then sends the OKAY. SourceSink gives any length, so the headers and
 * OKAYs are dummies of the right size; the header and OKAY read from the
 * device is a maxpacket buffer (one packet on the bus, like a 24-byte
 * short one).
 *
 * adbhopin and adbhopout add what adb 29's own design adds on the host:
 * the bytes pass between the adb client, which reads or writes the file
 * 64 KiB at a time, and the adb server, which does the USB side, through
 * TCP over the loopback (here a child process and a TCP connection).
 *
 * usage: usbsync VID:PID in|out|mtpin|mtpout|adbin|adbout|adbhopin|adbhopout
 *                BYTES CHUNK FILE
 * Prints "MB/s" (10^6 bytes of payload) on stdout; exit 1 on any error.
 *
 * usbsync VID:PID txn COUNT CHUNK -: COUNT transactions of libmtp's
 * listing pattern, each a 16-byte command out, then two reads of CHUNK
 * bytes (data, response), one after the other. Prints the mean time of
 * one transaction in ms: the floor of an MTP transaction on this bed.
 */
#include <fcntl.h>
#include <libusb-1.0/libusb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adbhop.h"
#include "usbfind.h"

static int maxpkt = 512;

static int txn(libusb_device_handle *h, unsigned char in, unsigned char out,
	       long long count, unsigned char *buf, int chunk)
{
	double t0 = adbhop_now();
	int n, r = 0;

	for (long long i = 0; i < count && r == 0; i++) {
		memset(buf, 0, 16);
		r = libusb_bulk_transfer(h, out, buf, 16, &n, 5000);
		if (r == 0)
			r = libusb_bulk_transfer(h, in, buf, chunk, &n, 5000);
		if (r == 0)
			r = libusb_bulk_transfer(h, in, buf, chunk, &n, 5000);
	}
	if (r < 0) {
		fprintf(stderr, "usbsync: txn: %s\n", libusb_error_name(r));
		return 1;
	}
	printf("%.3f\n", (adbhop_now() - t0) * 1e3 / count);
	return 0;
}

/* One adb 29 WRTE of want bytes (buf) and its OKAY; returns the
 * libusb result. */
static int adb_wrte(libusb_device_handle *h, unsigned char in,
		    unsigned char out, bool to_host, unsigned char *buf,
		    int want, int *n)
{
	unsigned char msg[512] = { 0 };
	int m, r;

	if (to_host) {
		r = libusb_bulk_transfer(h, in, msg, maxpkt, &m, 5000);
		if (r == 0)
			r = libusb_bulk_transfer(h, in, buf, want, n, 5000);
		if (r == 0)
			r = libusb_bulk_transfer(h, out, msg, 24, &m, 5000);
		return r;
	}
	r = libusb_bulk_transfer(h, out, msg, 24, &m, 5000);
	if (r == 0)
		r = libusb_bulk_transfer(h, out, buf, want, n, 5000);
	if (r == 0 && want % maxpkt == 0)
		r = libusb_bulk_transfer(h, out, msg, 0, &m, 5000);
	if (r == 0)
		r = libusb_bulk_transfer(h, in, msg, maxpkt, &m, 5000);
	return r;
}

int main(int argc, char **argv)
{
	unsigned vid, pid;
	long long total, done = 0;
	size_t chunk;
	libusb_device_handle *h;
	unsigned char in, out, *buf;
	struct usbfind f = { .cls = -1, .subclass = -1, .protocol = -1 };
	int fd, n = 0, r = 0;
	bool to_host, adb, hop, mtp;
	pid_t child = -1;
	int status = 0;
	double t0;

	if (argc != 6 || sscanf(argv[1], "%x:%x", &vid, &pid) != 2 ||
	    (strcmp(argv[2], "in") && strcmp(argv[2], "out") &&
	     strcmp(argv[2], "mtpin") && strcmp(argv[2], "mtpout") &&
	     strcmp(argv[2], "adbin") && strcmp(argv[2], "adbout") &&
	     strcmp(argv[2], "adbhopin") && strcmp(argv[2], "adbhopout") &&
	     strcmp(argv[2], "txn"))) {
		fprintf(stderr, "usage: usbsync VID:PID in|out|mtpin|mtpout|adbin|adbout|"
				"adbhopin|adbhopout|txn BYTES CHUNK FILE\n");
		return 2;
	}
	adb = !strncmp(argv[2], "adb", 3);
	hop = !strncmp(argv[2], "adbhop", 6);
	mtp = !strncmp(argv[2], "mtp", 3);
	to_host = !strcmp(argv[2] + (hop ? 6 : adb || mtp ? 3 : 0), "in");
	total = atoll(argv[3]);
	chunk = strtoul(argv[4], NULL, 0);
	buf = malloc(chunk < 16 ? 16 : chunk);
	fd = !strcmp(argv[2], "txn") ? 0 : to_host ? open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644)
		     : open(argv[5], O_RDONLY);
	if (!buf || fd < 0 || total <= 0 || !chunk) {
		perror("usbsync");
		return 1;
	}
	if (libusb_init(NULL) < 0 ||
	    !(h = libusb_open_device_with_vid_pid(NULL, vid, pid))) {
		fprintf(stderr, "usbsync: no device %04x:%04x\n", vid, pid);
		return 1;
	}
	if (usbfind_bulk(libusb_get_device(h), &f) < 0 ||
	    libusb_claim_interface(h, f.intf) < 0) {
		fprintf(stderr, "usbsync: no bulk pair to claim\n");
		return 1;
	}
	in = f.in;
	out = f.out;
	maxpkt = f.maxpkt;
	if (!strcmp(argv[2], "txn"))
		return txn(h, in, out, total, buf, (int)chunk);
	if (hop && (fd = adbhop_start(fd, to_host, &child)) < 0) {
		perror("usbsync");
		return 1;
	}
	t0 = adbhop_now();
	while (done < total) {
		int want = total - done < (long long)chunk ? (int)(total - done)
							    : (int)chunk;

		if (mtp && done == 0 && want > maxpkt)
			want = maxpkt;

		if (adb && to_host) {
			r = adb_wrte(h, in, out, true, buf, want, &n);
			if (r < 0 || adbhop_write_all(fd, buf, n) < 0)
				break;
		} else if (adb) {
			if (adbhop_read_full(fd, buf, want) != want)
				break;
			r = adb_wrte(h, in, out, false, buf, want, &n);
			if (r < 0)
				break;
		} else if (to_host) {
			r = libusb_bulk_transfer(h, in, buf, want, &n, 5000);
			if (r < 0 || write(fd, buf, n) != n)
				break;
		} else {
			if (read(fd, buf, want) != want)
				break;
			r = libusb_bulk_transfer(h, out, buf, want, &n, 5000);
			if (r < 0)
				break;
		}
		done += n;
		if (mtp)
			fprintf(stderr, "Progress: %lld of %lld (%d%%)\r", done,
				total, (int)(done * 100 / total));
	}
	if (done < total) {
		fprintf(stderr, "usbsync: stopped after %lld bytes: %s\n", done,
			libusb_error_name(r));
		return 1;
	}
	if (hop) {
		close(fd);
		if (waitpid(child, &status, 0) < 0 || status) {
			fprintf(stderr, "usbsync: the client half failed\n");
			return 1;
		}
	}
	printf("%.1f\n", total / 1e6 / (adbhop_now() - t0));
	libusb_release_interface(h, f.intf);
	libusb_close(h);
	libusb_exit(NULL);
	return 0;
}
