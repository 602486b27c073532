/* fuzz_rd: a fuzz input read as the arguments of a list of operations. */
#ifndef GADGETD_FUZZ_RD_H
#define GADGETD_FUZZ_RD_H

#include <stddef.h>
#include <stdint.h>

struct rd {
	const uint8_t *p;
	size_t n;
};

/* The next `bytes` bytes as a little-endian number (0 past the end). */
static inline uint32_t rd_n(struct rd *r, unsigned bytes)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < bytes && r->n; i++, r->p++, r->n--)
		v |= (uint32_t)r->p[0] << (8 * i);
	return v;
}

/* The next *len bytes, or fewer (with *len cut) at the end. */
static inline const uint8_t *rd_take(struct rd *r, size_t *len)
{
	const uint8_t *p = r->p;

	if (*len > r->n)
		*len = r->n;
	r->p += *len;
	r->n -= *len;
	return p;
}

#endif
