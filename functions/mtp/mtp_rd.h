/*
 * mtp_rd: the bounds-checked little-endian reader that every PTP/MTP
 * decoder reads with (strings as mtp_buf.h describes them).
 */
#ifndef GADGETD_MTP_RD_H
#define GADGETD_MTP_RD_H

#include <stddef.h>
#include <stdint.h>

/* Longest PTP string in UTF-8 bytes: 254 UTF-16 units, each up to 3 bytes. */
#define MTP_STR_MAX 768

/* A bounds-checked reader; the first underrun sets err to -EBADMSG and
 * every later read returns 0. */
struct mtp_rd {
	const uint8_t *p;
	size_t len;
	size_t off;
	int err;
};

void mtp_rd_init(struct mtp_rd *r, const void *p, size_t len);
uint8_t mtp_rd_u8(struct mtp_rd *r);
uint16_t mtp_rd_u16(struct mtp_rd *r);
uint32_t mtp_rd_u32(struct mtp_rd *r);
uint64_t mtp_rd_u64(struct mtp_rd *r);
/* Decode a PTP string into UTF-8 out (size MTP_STR_MAX + 1 is always
 * enough). -EBADMSG on underrun, a missing final NUL, an embedded NUL or
 * an unpaired surrogate. */
int mtp_rd_str(struct mtp_rd *r, char *out, size_t size);

#endif
