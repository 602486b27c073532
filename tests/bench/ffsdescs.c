/*
 * The descriptors of the bench's FunctionFS functions (ffsdescs.h).
 */
#include <endian.h>
#include <fcntl.h>
#include <linux/usb/functionfs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ffsdescs.h"

struct ffsdesc_speed {
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor_no_audio ep[FFSDESC_MAX_EPS];
} __attribute__((packed));

/* ffsdesc_speed_fill: the interface and its endpoints at one speed
 * (bulk wMaxPacketSize BULK_MPS); returns the descriptors' bytes. */
static size_t ffsdesc_speed_fill(struct ffsdesc_speed *s, const long cls[3],
				 const char *eps, int bulk_mps, int hs)
{
	size_t n = strlen(eps);

	s->intf = (struct usb_interface_descriptor){
		.bLength = sizeof(s->intf),
		.bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = n,
		.bInterfaceClass = cls[0],
		.bInterfaceSubClass = cls[1],
		.bInterfaceProtocol = cls[2],
		.iInterface = 1,
	};
	for (size_t i = 0; i < n; i++) {
		struct usb_endpoint_descriptor_no_audio *e = &s->ep[i];

		*e = (struct usb_endpoint_descriptor_no_audio){
			.bLength = sizeof(*e),
			.bDescriptorType = USB_DT_ENDPOINT,
			.bEndpointAddress = (i + 1) | (eps[i] == 'o' ? USB_DIR_OUT : USB_DIR_IN),
			.bmAttributes = eps[i] == 'n' ? USB_ENDPOINT_XFER_INT : USB_ENDPOINT_XFER_BULK,
			.wMaxPacketSize = htole16(eps[i] == 'n' ? 28 : bulk_mps),
			.bInterval = eps[i] == 'n' ? (hs ? 6 : 4) : 0,
		};
	}
	return sizeof(s->intf) + n * sizeof(s->ep[0]);
}

int ffsdesc_write(const char *dir, const long cls[3], const char *eps, const char *str)
{
	struct usb_functionfs_descs_head_v2 head = {
		.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2),
		.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC),
	};
	struct usb_functionfs_strings_head sh = {
		.magic = htole32(FUNCTIONFS_STRINGS_MAGIC),
		.str_count = htole32(1),
		.lang_count = htole32(1),
	};
	struct ffsdesc_speed fs, hs;
	unsigned char buf[512], sbuf[300];
	__le32 count = htole32(1 + strlen(eps));
	size_t nfs = ffsdesc_speed_fill(&fs, cls, eps, 64, 0);
	size_t nhs = ffsdesc_speed_fill(&hs, cls, eps, 512, 1);
	size_t len = sizeof(head) + 2 * sizeof(count) + nfs + nhs;
	size_t slen = sizeof(sh) + 2 + strlen(str) + 1;
	__le16 lang = htole16(0x0409);
	char path[4096];
	int fd;

	if (slen > sizeof(sbuf))
		return -1;
	head.length = htole32(len);
	memcpy(buf, &head, sizeof(head));
	memcpy(buf + sizeof(head), &count, sizeof(count));
	memcpy(buf + sizeof(head) + sizeof(count), &count, sizeof(count));
	memcpy(buf + sizeof(head) + 2 * sizeof(count), &fs, nfs);
	memcpy(buf + sizeof(head) + 2 * sizeof(count) + nfs, &hs, nhs);
	sh.length = htole32(slen);
	memcpy(sbuf, &sh, sizeof(sh));
	memcpy(sbuf + sizeof(sh), &lang, 2);
	memcpy(sbuf + sizeof(sh) + 2, str, strlen(str) + 1);
	snprintf(path, sizeof(path), "%s/ep0", dir);
	fd = open(path, O_RDWR);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len ||
	    write(fd, sbuf, slen) != (ssize_t)slen)
		return -1;
	return fd;
}

int ffsdesc_wait_enable(int ep0)
{
	struct usb_functionfs_event ev;

	for (;;) {
		if (read(ep0, &ev, sizeof(ev)) != sizeof(ev))
			return -1;
		if (ev.type == FUNCTIONFS_ENABLE)
			return 0;
	}
}

int ffsdesc_open_ep(const char *dir, int n)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/ep%d", dir, n);
	return open(path, O_RDWR);
}
