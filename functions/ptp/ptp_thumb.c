#include "ptp_thumb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>

/* JPEG markers (ITU T.81, B.1.1.3). */
#define PTP_THUMB_SOI 0xD8
#define PTP_THUMB_EOI 0xD9
#define PTP_THUMB_SOS 0xDA
#define PTP_THUMB_APP1 0xE1

static const uint8_t ptp_thumb_exif_id[6] = {'E', 'x', 'i', 'f', 0, 0};

/* Stand-alone markers carry no length (TEM and RSTn). */
static int ptp_thumb_standalone(uint8_t m)
{
	return m == 0x01 || (m >= 0xD0 && m <= 0xD7);
}

/*
 * The APP1 segment holding EXIF ("Exif\0\0" and the TIFF data) among the
 * segments before the image data; NULL when there is none in p[0..n).
 */
static const uint8_t *ptp_thumb_find_exif(const uint8_t *p, size_t n,
					  size_t *len)
{
	size_t off = 2;

	if (n < 4 || p[0] != 0xFF || p[1] != PTP_THUMB_SOI)
		return NULL;
	while (off + 4 <= n) {
		uint8_t m = p[off + 1];
		size_t seg;

		if (p[off] != 0xFF)
			return NULL;
		if (m == 0xFF) { /* fill byte */
			off++;
			continue;
		}
		if (ptp_thumb_standalone(m)) {
			off += 2;
			continue;
		}
		if (m == PTP_THUMB_SOS || m == PTP_THUMB_EOI)
			return NULL;
		seg = (size_t)p[off + 2] << 8 | p[off + 3];
		if (seg < 2 || off + 2 + seg > n)
			return NULL;
		if (m == PTP_THUMB_APP1 && seg - 2 >= sizeof(ptp_thumb_exif_id) &&
		    !memcmp(p + off + 4, ptp_thumb_exif_id,
			    sizeof(ptp_thumb_exif_id))) {
			*len = seg - 2;
			return p + off + 4;
		}
		off += 2 + seg;
	}
	return NULL;
}

/* Width and height from a JPEG's first SOFn marker; 0 when not found. */
static void ptp_thumb_sof(const uint8_t *p, size_t n, uint32_t *w, uint32_t *h)
{
	size_t off = 2;

	*w = *h = 0;
	while (off + 9 <= n && p[off] == 0xFF) {
		uint8_t m = p[off + 1];
		size_t seg = (size_t)p[off + 2] << 8 | p[off + 3];

		if (m == 0xFF) {
			off++;
			continue;
		}
		if (ptp_thumb_standalone(m)) {
			off += 2;
			continue;
		}
		/* SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
		if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 &&
		    m != 0xCC) {
			*h = (uint32_t)p[off + 5] << 8 | p[off + 6];
			*w = (uint32_t)p[off + 7] << 8 | p[off + 8];
			return;
		}
		if (m == PTP_THUMB_SOS || m == PTP_THUMB_EOI || seg < 2)
			return;
		off += 2 + seg;
	}
}

/* A SHORT or LONG tag of the EXIF IFD (PixelX/YDimension); 0: absent. */
static uint32_t ptp_thumb_dim(ExifData *ed, ExifTag tag)
{
	ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_EXIF], tag);
	ExifByteOrder bo = exif_data_get_byte_order(ed);

	if (!e || !e->data || e->components != 1)
		return 0;
	if (e->format == EXIF_FORMAT_SHORT && e->size >= 2)
		return exif_get_short(e->data, bo);
	if (e->format == EXIF_FORMAT_LONG && e->size >= 4)
		return exif_get_long(e->data, bo);
	return 0;
}

int ptp_thumb_parse(const uint8_t *p, size_t n, struct ptp_thumb *t,
		    struct mtp_buf *out)
{
	const uint8_t *exif;
	ExifData *ed;
	size_t len;
	int rc = -ENOENT;

	memset(t, 0, sizeof(*t));
	exif = ptp_thumb_find_exif(p, n, &len);
	if (!exif)
		return -ENOENT;
	ed = exif_data_new();
	if (!ed)
		return -ENOMEM;
	/* Read what is there; no tags added or "fixed" on the way. */
	exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
	exif_data_load_data(ed, exif, (unsigned int)len);
	/* Only a JPEG thumbnail is one PTP can name (ThumbFormat). */
	if (ed->data && ed->size >= 4 && ed->size <= len &&
	    ed->data[0] == 0xFF && ed->data[1] == PTP_THUMB_SOI) {
		t->size = ed->size;
		ptp_thumb_sof(ed->data, ed->size, &t->thumb_width,
			      &t->thumb_height);
		t->width = ptp_thumb_dim(ed, EXIF_TAG_PIXEL_X_DIMENSION);
		t->height = ptp_thumb_dim(ed, EXIF_TAG_PIXEL_Y_DIMENSION);
		rc = 0;
		if (out) {
			mtp_buf_put(out, ed->data, ed->size);
			if (out->oom)
				rc = -ENOMEM;
		}
	}
	exif_data_free(ed);
	if (rc < 0)
		memset(t, 0, sizeof(*t));
	return rc;
}

int ptp_thumb_read(int fd, struct ptp_thumb *t, struct mtp_buf *out)
{
	uint8_t *head = malloc(PTP_THUMB_HEAD);
	size_t n = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!head)
		return -ENOMEM;
	while (n < PTP_THUMB_HEAD) {
		ssize_t r = pread(fd, head + n, PTP_THUMB_HEAD - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(head);
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	rc = ptp_thumb_parse(head, n, t, out);
	free(head);
	return rc;
}
