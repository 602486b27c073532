/*
 * ptp_thumb: the thumbnail a JPEG file carries in its EXIF data, found
 * with libexif, for PTP's GetThumb and ObjectInfo.
 *
 * The file's bytes are hostile: only its first PTP_THUMB_HEAD bytes are
 * read, the EXIF segment is found by walking the JPEG markers within
 * them, and libexif parses that one segment (at most 64 KiB), so that
 * nothing it does is bounded by the file's own claims. A thumbnail is
 * never made up: a file without one says so.
 */
#ifndef GADGETD_PTP_THUMB_H
#define GADGETD_PTP_THUMB_H

#include <stddef.h>
#include <stdint.h>

#include "mtp_buf.h"

/* How much of a file is read to find its EXIF segment. */
#define PTP_THUMB_HEAD (128 * 1024)

struct ptp_thumb {
	uint32_t size;                    /* the thumbnail's bytes */
	uint32_t thumb_width, thumb_height; /* from its SOF marker; 0: unknown */
	uint32_t width, height;           /* the image's, from EXIF; 0: unknown */
};

/*
 * The EXIF thumbnail of the JPEG whose first n bytes are p: 0 with *t
 * filled and, when out is not NULL, the thumbnail (a JPEG) appended to
 * out; -ENOENT when there is no EXIF segment or it holds no JPEG
 * thumbnail; -ENOMEM.
 */
int ptp_thumb_parse(const uint8_t *p, size_t n, struct ptp_thumb *t,
		    struct mtp_buf *out);

/* The same from an open file (its first PTP_THUMB_HEAD bytes); -errno
 * of a failed read too. */
int ptp_thumb_read(int fd, struct ptp_thumb *t, struct mtp_buf *out);

#endif
