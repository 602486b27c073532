/*
 * usbfind: the bench hosts' search of a device's active configuration
 * for the first interface with a bulk IN and a bulk OUT endpoint.
 */
#ifndef USBFIND_H
#define USBFIND_H

#include <libusb-1.0/libusb.h>

struct usbfind {
	int cls, subclass, protocol;  /* -1: any */
	/* Found: */
	int intf;
	unsigned char in, out;
	int maxpkt;                   /* the last bulk endpoint's */
};

/* 0 and f's endpoints filled, or -1 when no interface matches. */
int usbfind_bulk(libusb_device *dev, struct usbfind *f);

#endif
