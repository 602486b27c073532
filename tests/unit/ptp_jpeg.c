#include "ptp_jpeg.h"

#include <string.h>

static void ptp_jpeg_le16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void ptp_jpeg_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One IFD entry: tag, type (3 SHORT, 4 LONG), count 1, value. */
static void ptp_jpeg_entry(uint8_t *p, uint16_t tag, uint16_t type, uint32_t v)
{
	ptp_jpeg_le16(p, tag);
	ptp_jpeg_le16(p + 2, type);
	ptp_jpeg_le32(p + 4, 1);
	ptp_jpeg_le32(p + 8, 0);
	if (type == 3)
		ptp_jpeg_le16(p + 8, (uint16_t)v);
	else
		ptp_jpeg_le32(p + 8, v);
}

/* The thumbnail: SOI, SOF0 of tw x th with 3 components, tag bytes of
 * filler, EOI; returns its length. */
static size_t ptp_jpeg_thumb(uint8_t *p, uint16_t tw, uint16_t th, size_t tag)
{
	static const uint8_t sof[] = {0xFF, 0xC0, 0x00, 0x11, 0x08};
	size_t n = 0;

	p[n++] = 0xFF, p[n++] = 0xD8;
	memcpy(p + n, sof, sizeof(sof));
	n += sizeof(sof);
	p[n++] = th >> 8, p[n++] = th & 0xff, p[n++] = tw >> 8, p[n++] = tw & 0xff;
	p[n++] = 3;
	for (int c = 1; c <= 3; c++)
		p[n++] = (uint8_t)c, p[n++] = 0x11, p[n++] = 0;
	for (size_t i = 0; i < tag; i++)
		p[n++] = (uint8_t)(0x20 + i % 64);
	p[n++] = 0xFF, p[n++] = 0xD9;
	return n;
}

size_t ptp_jpeg_make(uint8_t *out, int exif, uint16_t width, uint16_t height,
		     uint16_t tw, uint16_t th, size_t tag, size_t body,
		     const uint8_t **thumb, size_t *thumb_len)
{
	/* TIFF offsets: IFD0 at 8 (one entry), the EXIF IFD at 26 (two),
	 * IFD1 at 56 (three), the thumbnail at 98. */
	uint8_t *t;
	size_t n = 0, tn = 0, seg;

	out[n++] = 0xFF, out[n++] = 0xD8;
	if (thumb)
		*thumb = NULL, *thumb_len = 0;
	if (exif) {
		out[n++] = 0xFF, out[n++] = 0xE1;
		n += 2; /* length, below */
		memcpy(out + n, "Exif\0\0", 6);
		t = out + n + 6;
		memset(t, 0, 98);
		memcpy(t, "II*\0", 4);
		ptp_jpeg_le32(t + 4, 8);
		ptp_jpeg_le16(t + 8, 1);
		ptp_jpeg_entry(t + 10, 0x8769, 4, 26);
		ptp_jpeg_le32(t + 22, tag ? 56 : 0);
		ptp_jpeg_le16(t + 26, 2);
		ptp_jpeg_entry(t + 28, 0xA002, 3, width);
		ptp_jpeg_entry(t + 40, 0xA003, 3, height);
		if (tag) {
			tn = ptp_jpeg_thumb(t + 98, tw, th, tag);
			ptp_jpeg_le16(t + 56, 3);
			ptp_jpeg_entry(t + 58, 0x0103, 3, 6);
			ptp_jpeg_entry(t + 70, 0x0201, 4, 98);
			ptp_jpeg_entry(t + 82, 0x0202, 4, (uint32_t)tn);
			if (thumb)
				*thumb = t + 98, *thumb_len = tn;
		}
		seg = 2 + 6 + 98 + tn;
		out[n - 2] = (uint8_t)(seg >> 8), out[n - 1] = seg & 0xff;
		n += seg - 2;
	}
	/* A quantization table's marker, then the "image data". */
	out[n++] = 0xFF, out[n++] = 0xDB, out[n++] = 0, out[n++] = 3, out[n++] = 0;
	out[n++] = 0xFF, out[n++] = 0xDA, out[n++] = 0, out[n++] = 2;
	for (size_t i = 0; i < body; i++)
		out[n++] = (uint8_t)(i * 13 + 1) == 0xFF ? 0 : (uint8_t)(i * 13 + 1);
	out[n++] = 0xFF, out[n++] = 0xD9;
	return n;
}
