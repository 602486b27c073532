/*
 * mtp_container: PTP/MTP wire encoding.
 *
 * Everything on the wire is little-endian. A container is a 12-byte header
 * {u32 length, u16 type, u16 code, u32 transaction id} followed by up to
 * five u32 parameters (command, response, event) or by a dataset (data).
 * A PTP string is a u8 count of UTF-16 code units including the final NUL,
 * then the code units; the empty string is the single byte 0.
 */
#ifndef GADGETD_MTP_CONTAINER_H
#define GADGETD_MTP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MTP_HDR_LEN 12
#define MTP_MAX_PARAMS 5
/* Longest PTP string in UTF-8 bytes: 254 UTF-16 units, each up to 3 bytes. */
#define MTP_STR_MAX 768

enum mtp_container_type {
	MTP_TYPE_COMMAND = 1,
	MTP_TYPE_DATA = 2,
	MTP_TYPE_RESPONSE = 3,
	MTP_TYPE_EVENT = 4,
};

struct mtp_container {
	uint32_t len;
	uint16_t type;
	uint16_t code;
	uint32_t tid;
	unsigned nparams;
	uint32_t params[MTP_MAX_PARAMS];
};

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

/* Parse a command container of exactly len bytes. -EBADMSG when the
 * length field disagrees, the type is not COMMAND, or the parameter area
 * is not a whole number of u32 (at most five). */
int mtp_container_parse_cmd(const uint8_t *p, size_t len,
			    struct mtp_container *c);
/* Parse only the 12-byte header of a data container. */
int mtp_container_parse_hdr(const uint8_t *p, size_t len,
			    struct mtp_container *c);
/* Write a header into out[MTP_HDR_LEN]. */
void mtp_container_hdr(uint8_t *out, uint32_t len, uint16_t type, uint16_t code,
		       uint32_t tid);
/* Build a response or event container with n params into out (32 bytes
 * are enough); returns its length. */
size_t mtp_container_build(uint8_t *out, uint16_t type, uint16_t code,
			   uint32_t tid, const uint32_t *params, unsigned n);

#endif
