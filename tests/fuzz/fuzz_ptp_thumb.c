/*
 * libFuzzer target for the PTP thumbnail extraction (ptp_thumb.c): the
 * JPEG marker walk to the EXIF segment, then libexif on that segment.
 * Whatever a board's files hold, a thumbnail found is a JPEG no longer
 * than the segment it came from, and its bytes are what was reported.
 */
#include "mtp/mtp_buf.h"
#include "ptp/ptp_thumb.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptp_thumb t;
	struct mtp_buf b;
	int rc;

	if (size > PTP_THUMB_HEAD)
		size = PTP_THUMB_HEAD;
	mtp_buf_init(&b);
	rc = ptp_thumb_parse(data, size, &t, &b);
	if (rc == 0 && (b.len != t.size || t.size < 4 || t.size > 65535 ||
			b.data[0] != 0xFF || b.data[1] != 0xD8))
		abort();
	if (rc < 0 && (b.len || t.size))
		abort();
	mtp_buf_finish(&b);
	return 0;
}
