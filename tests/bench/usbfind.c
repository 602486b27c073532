#include "usbfind.h"

static int usbfind_match(int want, int have)
{
	return want < 0 || want == have;
}

int usbfind_bulk(libusb_device *dev, struct usbfind *f)
{
	struct libusb_config_descriptor *cfg;
	int found = -1;

	if (libusb_get_active_config_descriptor(dev, &cfg) < 0)
		return -1;
	for (int i = 0; i < cfg->bNumInterfaces && found < 0; i++) {
		const struct libusb_interface_descriptor *d =
		    &cfg->interface[i].altsetting[0];

		if (!usbfind_match(f->cls, d->bInterfaceClass) ||
		    !usbfind_match(f->subclass, d->bInterfaceSubClass) ||
		    !usbfind_match(f->protocol, d->bInterfaceProtocol))
			continue;
		f->in = f->out = 0;
		for (int e = 0; e < d->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep = &d->endpoint[e];

			if ((ep->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK)
				continue;
			f->maxpkt = ep->wMaxPacketSize;
			if (ep->bEndpointAddress & 0x80)
				f->in = f->in ? f->in : ep->bEndpointAddress;
			else
				f->out = f->out ? f->out : ep->bEndpointAddress;
		}
		if (f->in && f->out && f->maxpkt) {
			f->intf = d->bInterfaceNumber;
			found = 0;
		}
	}
	libusb_free_config_descriptor(cfg);
	return found;
}
