/*
 * usbsync: move bytes through a device's first bulk endpoint pair one
 * synchronous transfer at a time, the way libmtp does (16 KiB per
 * transfer, each written to or read from a file between transfers). With
 * the kernel's SourceSink function as the device, it gives the best rate
 * any device could reach with that host pattern on this bed.
 *
 * usage: usbsync VID:PID in|out BYTES CHUNK FILE
 * Prints "MB/s" (10^6 bytes) on stdout; exit 1 on any error.
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
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int find_eps(libusb_device *dev, int *intf, unsigned char *in,
		    unsigned char *out)
{
	struct libusb_config_descriptor *cfg;
	int found = -1;

	if (libusb_get_active_config_descriptor(dev, &cfg) < 0)
		return -1;
	for (int i = 0; i < cfg->bNumInterfaces && found < 0; i++) {
		const struct libusb_interface_descriptor *d =
		    &cfg->interface[i].altsetting[0];

		*in = *out = 0;
		for (int e = 0; e < d->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep =
			    &d->endpoint[e];

			if ((ep->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK)
				continue;
			if (ep->bEndpointAddress & 0x80)
				*in = *in ? *in : ep->bEndpointAddress;
			else
				*out = *out ? *out : ep->bEndpointAddress;
		}
		if (*in && *out) {
			*intf = d->bInterfaceNumber;
			found = 0;
		}
	}
	libusb_free_config_descriptor(cfg);
	return found;
}

static int txn(libusb_device_handle *h, unsigned char in, unsigned char out,
	       long long count, unsigned char *buf, int chunk)
{
	double t0 = now();
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
	printf("%.3f\n", (now() - t0) * 1e3 / count);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned vid, pid;
	long long total, done = 0;
	size_t chunk;
	libusb_device_handle *h;
	unsigned char in, out, *buf;
	int intf, fd, n = 0, r = 0;
	bool to_host;
	double t0;

	if (argc != 6 || sscanf(argv[1], "%x:%x", &vid, &pid) != 2 ||
	    (strcmp(argv[2], "in") && strcmp(argv[2], "out") &&
	     strcmp(argv[2], "txn"))) {
		fprintf(stderr, "usage: usbsync VID:PID in|out|txn BYTES CHUNK FILE\n");
		return 2;
	}
	to_host = !strcmp(argv[2], "in");
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
	if (find_eps(libusb_get_device(h), &intf, &in, &out) < 0 ||
	    libusb_claim_interface(h, intf) < 0) {
		fprintf(stderr, "usbsync: no bulk pair to claim\n");
		return 1;
	}
	if (!strcmp(argv[2], "txn"))
		return txn(h, in, out, total, buf, (int)chunk);
	t0 = now();
	while (done < total) {
		int want = total - done < (long long)chunk ? (int)(total - done)
							    : (int)chunk;

		if (to_host) {
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
	}
	if (done < total) {
		fprintf(stderr, "usbsync: stopped after %lld bytes: %s\n", done,
			libusb_error_name(r));
		return 1;
	}
	printf("%.1f\n", total / 1e6 / (now() - t0));
	libusb_release_interface(h, intf);
	libusb_close(h);
	libusb_exit(NULL);
	return 0;
}
