/*
 * mtp_buf: the growable little-endian output buffer that every PTP/MTP
 * encoder writes into.
 *
 * A PTP string is a u8 count of UTF-16 code units including the final NUL,
 * then the code units; the empty string is the single byte 0.
 */
#ifndef GADGETD_MTP_BUF_H
#define GADGETD_MTP_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable output buffer; once an allocation failed, oom stays set. */
struct mtp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool oom;
};

void mtp_buf_init(struct mtp_buf *b);
void mtp_buf_finish(struct mtp_buf *b);
void mtp_buf_reset(struct mtp_buf *b);
void mtp_buf_put(struct mtp_buf *b, const void *p, size_t n);
void mtp_buf_u8(struct mtp_buf *b, uint8_t v);
void mtp_buf_u16(struct mtp_buf *b, uint16_t v);
void mtp_buf_u32(struct mtp_buf *b, uint32_t v);
void mtp_buf_u64(struct mtp_buf *b, uint64_t v);
void mtp_buf_u16_array(struct mtp_buf *b, const uint16_t *v, size_t n);
void mtp_buf_u32_array(struct mtp_buf *b, const uint32_t *v, size_t n);
/* Encode UTF-8 s as a PTP string; -EINVAL for bad UTF-8 or > 254 units
 * (the buffer is then left unchanged). */
int mtp_buf_str(struct mtp_buf *b, const char *s);
/* Overwrite a u32 written earlier at offset off. */
void mtp_buf_set_u32(struct mtp_buf *b, size_t off, uint32_t v);

#endif
