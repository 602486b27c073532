#include "mtp_rd.h"

#include <stdbool.h>
#include <errno.h>
#include <string.h>

void mtp_rd_init(struct mtp_rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->off = 0;
	r->err = 0;
}

static const uint8_t *mtp_rd_take(struct mtp_rd *r, size_t n)
{
	const uint8_t *p;

	if (r->err || r->len - r->off < n) {
		r->err = -EBADMSG;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	return p;
}

uint8_t mtp_rd_u8(struct mtp_rd *r)
{
	const uint8_t *p = mtp_rd_take(r, 1);

	return p ? p[0] : 0;
}

uint16_t mtp_rd_u16(struct mtp_rd *r)
{
	const uint8_t *p = mtp_rd_take(r, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

uint32_t mtp_rd_u32(struct mtp_rd *r)
{
	const uint8_t *p = mtp_rd_take(r, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		       (uint32_t)p[3] << 24
		 : 0;
}

uint64_t mtp_rd_u64(struct mtp_rd *r)
{
	uint64_t lo = mtp_rd_u32(r);

	return lo | (uint64_t)mtp_rd_u32(r) << 32;
}

/* Append code point cp as UTF-8; false when out is full. */
static bool mtp_rd_utf8_put(char *out, size_t size, size_t *o, uint32_t cp)
{
	char tmp[4];
	size_t n;

	if (cp < 0x80) {
		tmp[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		tmp[0] = 0xc0 | cp >> 6;
		tmp[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		tmp[0] = 0xe0 | cp >> 12;
		tmp[1] = 0x80 | ((cp >> 6) & 0x3f);
		tmp[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		tmp[0] = 0xf0 | cp >> 18;
		tmp[1] = 0x80 | ((cp >> 12) & 0x3f);
		tmp[2] = 0x80 | ((cp >> 6) & 0x3f);
		tmp[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	if (*o + n + 1 > size)
		return false;
	memcpy(out + *o, tmp, n);
	*o += n;
	return true;
}

int mtp_rd_str(struct mtp_rd *r, char *out, size_t size)
{
	unsigned n = mtp_rd_u8(r), i;
	size_t o = 0;

	if (r->err)
		return r->err;
	if (size)
		out[0] = 0;
	if (n == 0)
		return 0;
	for (i = 0; i + 1 < n; i++) {
		uint32_t cp = mtp_rd_u16(r);

		if (cp >= 0xdc00 && cp <= 0xdfff)
			return r->err = -EBADMSG;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			uint32_t lo = mtp_rd_u16(r);

			i++;
			if (i + 1 >= n || lo < 0xdc00 || lo > 0xdfff)
				return r->err = -EBADMSG;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (cp == 0 || r->err || !mtp_rd_utf8_put(out, size, &o, cp))
			return r->err = -EBADMSG;
	}
	if (mtp_rd_u16(r) != 0 || r->err)
		return r->err = -EBADMSG;
	out[o] = 0;
	return 0;
}
