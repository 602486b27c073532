/*
 * ptp_jpeg: small JPEG files with an EXIF segment for the PTP tests: a
 * thumbnail (itself a JPEG with a SOF0 marker giving its size) in IFD1,
 * the image's pixel size in the EXIF IFD. Not decodable pictures: what
 * GetThumb and ObjectInfo read is all they hold.
 */
#ifndef GADGETD_TEST_PTP_JPEG_H
#define GADGETD_TEST_PTP_JPEG_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes into out (room for 512 + body bytes) a JPEG of width x height
 * whose EXIF thumbnail is tw x th and tag bytes long (0: no thumbnail,
 * EXIF still present; with exif 0, no EXIF segment at all) and whose
 * image data is body bytes; returns its length. *thumb (if not NULL)
 * points at the thumbnail inside out, *thumb_len its length.
 */
size_t ptp_jpeg_make(uint8_t *out, int exif, uint16_t width, uint16_t height,
		     uint16_t tw, uint16_t th, size_t tag, size_t body,
		     const uint8_t **thumb, size_t *thumb_len);

#endif
