#include "mtp_buf.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void mtp_buf_init(struct mtp_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void mtp_buf_finish(struct mtp_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void mtp_buf_reset(struct mtp_buf *b)
{
	b->len = 0;
	b->oom = false;
}

static bool mtp_buf_grow(struct mtp_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *d;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

/* Room for n more bytes at the end of b, or NULL (b->oom then set). */
static inline uint8_t *mtp_buf_room(struct mtp_buf *b, size_t n)
{
	if (b->len + n > b->cap && !mtp_buf_grow(b, n))
		return NULL;
	return b->oom ? NULL : b->data + b->len;
}

/* Append n bytes: inlined into the fixed-size writers below, where the
 * copy of a constant size becomes a store (a listing writes millions). */
static inline void mtp_buf_append(struct mtp_buf *b, const void *p, size_t n)
{
	uint8_t *d = mtp_buf_room(b, n);

	if (!d)
		return;
	memcpy(d, p, n);
	b->len += n;
}

void mtp_buf_put(struct mtp_buf *b, const void *p, size_t n)
{
	if (n)
		mtp_buf_append(b, p, n);
}

void mtp_buf_u8(struct mtp_buf *b, uint8_t v)
{
	mtp_buf_append(b, &v, 1);
}

void mtp_buf_u16(struct mtp_buf *b, uint16_t v)
{
	uint16_t le = htole16(v);

	mtp_buf_append(b, &le, 2);
}

void mtp_buf_u32(struct mtp_buf *b, uint32_t v)
{
	uint32_t le = htole32(v);

	mtp_buf_append(b, &le, 4);
}

void mtp_buf_u64(struct mtp_buf *b, uint64_t v)
{
	uint64_t le = htole64(v);

	mtp_buf_append(b, &le, 8);
}

void mtp_buf_u16_array(struct mtp_buf *b, const uint16_t *v, size_t n)
{
	mtp_buf_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		mtp_buf_u16(b, v[i]);
}

void mtp_buf_u32_array(struct mtp_buf *b, const uint32_t *v, size_t n)
{
	mtp_buf_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		mtp_buf_u32(b, v[i]);
}

void mtp_buf_set_u32(struct mtp_buf *b, size_t off, uint32_t v)
{
	uint32_t le = htole32(v);

	if (!b->oom && off + 4 <= b->len)
		memcpy(b->data + off, &le, 4);
}

/* Decode one UTF-8 sequence; returns its length or 0 when invalid. */
static int mtp_buf_utf8_decode(const unsigned char *s, uint32_t *cp)
{
	int n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, c &= 0x1f;
	else if ((c & 0xf0) == 0xe0)
		n = 3, c &= 0x0f;
	else if ((c & 0xf8) == 0xf0)
		n = 4, c &= 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms and surrogates are not valid UTF-8. */
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int mtp_buf_str(struct mtp_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	uint16_t units[255];
	unsigned n = 0;
	uint8_t *d;

	if (!*u) {
		mtp_buf_u8(b, 0);
		return 0;
	}
	while (*u) {
		uint32_t cp = *u;
		int l = cp < 0x80 ? 1 : mtp_buf_utf8_decode(u, &cp);

		if (!l)
			return -EINVAL;
		u += l;
		if (cp >= 0x10000) {
			if (n + 2 > 254)
				return -EINVAL;
			cp -= 0x10000;
			units[n++] = 0xd800 | (cp >> 10);
			units[n++] = 0xdc00 | (cp & 0x3ff);
		} else {
			if (n + 1 > 254)
				return -EINVAL;
			units[n++] = cp;
		}
	}
	units[n++] = 0;
	d = mtp_buf_room(b, 1 + 2 * n);
	if (!d)
		return 0;
	*d++ = n;
	for (unsigned i = 0; i < n; i++) {
		uint16_t le = htole16(units[i]);

		memcpy(d + 2 * i, &le, 2);
	}
	b->len += 1 + 2 * n;
	return 0;
}
