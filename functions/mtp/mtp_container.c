#include "mtp_container.h"

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

void mtp_buf_put(struct mtp_buf *b, const void *p, size_t n)
{
	if (!n || !mtp_buf_grow(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void mtp_buf_u8(struct mtp_buf *b, uint8_t v)
{
	mtp_buf_put(b, &v, 1);
}

void mtp_buf_u16(struct mtp_buf *b, uint16_t v)
{
	uint16_t le = htole16(v);

	mtp_buf_put(b, &le, 2);
}

void mtp_buf_u32(struct mtp_buf *b, uint32_t v)
{
	uint32_t le = htole32(v);

	mtp_buf_put(b, &le, 4);
}

void mtp_buf_u64(struct mtp_buf *b, uint64_t v)
{
	uint64_t le = htole64(v);

	mtp_buf_put(b, &le, 8);
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
static int mtp_utf8_decode(const unsigned char *s, uint32_t *cp)
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
	uint16_t units[255];
	unsigned n = 0;
	const unsigned char *u = (const unsigned char *)s;

	if (!*u) {
		mtp_buf_u8(b, 0);
		return 0;
	}
	while (*u) {
		uint32_t cp;
		int l = mtp_utf8_decode(u, &cp);

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
	mtp_buf_u8(b, n);
	for (unsigned i = 0; i < n; i++)
		mtp_buf_u16(b, units[i]);
	return 0;
}

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
static bool mtp_utf8_put(char *out, size_t size, size_t *o, uint32_t cp)
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
		if (cp == 0 || r->err || !mtp_utf8_put(out, size, &o, cp))
			return r->err = -EBADMSG;
	}
	if (mtp_rd_u16(r) != 0 || r->err)
		return r->err = -EBADMSG;
	out[o] = 0;
	return 0;
}

int mtp_container_parse_hdr(const uint8_t *p, size_t len,
			    struct mtp_container *c)
{
	struct mtp_rd r;

	mtp_rd_init(&r, p, len);
	memset(c, 0, sizeof(*c));
	c->len = mtp_rd_u32(&r);
	c->type = mtp_rd_u16(&r);
	c->code = mtp_rd_u16(&r);
	c->tid = mtp_rd_u32(&r);
	if (r.err)
		return r.err;
	if (c->len < MTP_HDR_LEN || c->type < MTP_TYPE_COMMAND ||
	    c->type > MTP_TYPE_EVENT)
		return -EBADMSG;
	return 0;
}

int mtp_container_parse_cmd(const uint8_t *p, size_t len,
			    struct mtp_container *c)
{
	struct mtp_rd r;
	int rc = mtp_container_parse_hdr(p, len, c);

	if (rc < 0)
		return rc;
	if (c->type != MTP_TYPE_COMMAND || c->len != len ||
	    (len - MTP_HDR_LEN) % 4 || len > MTP_HDR_LEN + 4 * MTP_MAX_PARAMS)
		return -EBADMSG;
	mtp_rd_init(&r, p + MTP_HDR_LEN, len - MTP_HDR_LEN);
	c->nparams = (len - MTP_HDR_LEN) / 4;
	for (unsigned i = 0; i < c->nparams; i++)
		c->params[i] = mtp_rd_u32(&r);
	return r.err;
}

void mtp_container_hdr(uint8_t *out, uint32_t len, uint16_t type, uint16_t code,
		       uint32_t tid)
{
	uint32_t l = htole32(len), t = htole32(tid);
	uint16_t ty = htole16(type), co = htole16(code);

	memcpy(out, &l, 4);
	memcpy(out + 4, &ty, 2);
	memcpy(out + 6, &co, 2);
	memcpy(out + 8, &t, 4);
}

size_t mtp_container_build(uint8_t *out, uint16_t type, uint16_t code,
			   uint32_t tid, const uint32_t *params, unsigned n)
{
	size_t len;

	if (n > MTP_MAX_PARAMS)
		n = MTP_MAX_PARAMS;
	len = MTP_HDR_LEN + 4 * n;
	mtp_container_hdr(out, len, type, code, tid);
	for (unsigned i = 0; i < n; i++) {
		uint32_t le = htole32(params[i]);

		memcpy(out + MTP_HDR_LEN + 4 * i, &le, 4);
	}
	return len;
}
