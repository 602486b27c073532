/*
 * ffsdesc: the bare-kernel floor's FunctionFS function
 * (tests/bench/switch-floor.sh). It writes one interface's descriptors
 * and string to FFSDIR/ep0, as a plugin's worker does, prints "ready",
 * then keeps ep0 open, reading its events, until it is killed or ep0
 * ends: the least a FunctionFS function needs for the gadget to bind.
 *
 * usage: ffsdesc FFSDIR CLASS SUBCLASS PROTOCOL ENDPOINTS STRING
 * ENDPOINTS is one letter an endpoint, in order: i bulk IN, o bulk OUT,
 * n interrupt IN (28 bytes, bInterval 6 at high speed: the mtp plugin's
 * event endpoint). Full- and high-speed descriptors, as the plugins
 * write on the bed's high-speed dummy_hcd.
 */
#include <linux/usb/functionfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ffsdescs.h"

int main(int argc, char **argv)
{
	struct usb_functionfs_event ev[4];
	long cls[3];
	int fd;

	if (argc != 7 || strlen(argv[5]) > FFSDESC_MAX_EPS ||
	    strspn(argv[5], "ion") != strlen(argv[5])) {
		fprintf(stderr, "usage: ffsdesc FFSDIR CLASS SUBCLASS PROTOCOL ENDPOINTS(i,o,n) STRING\n");
		return 2;
	}
	for (int i = 0; i < 3; i++)
		cls[i] = strtol(argv[2 + i], NULL, 0);
	fd = ffsdesc_write(argv[1], cls, argv[5], argv[6]);
	if (fd < 0) {
		perror("ffsdesc: descriptors");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	/* Events (BIND, ENABLE, SETUP...) are read and dropped; a SETUP with
	 * a data stage would stall, which no host of the floor sends. */
	while (read(fd, ev, sizeof(ev)) > 0)
		;
	return 0;
}
