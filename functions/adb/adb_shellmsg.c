/* adb_shellmsg: shell protocol v2 packet headers (see adb_shellmsg.h). */
#include "adb_shellmsg.h"

#include <string.h>

void adb_shellmsg_put_hdr(uint8_t out[ADB_SHELLMSG_HDR], uint8_t id,
			  uint32_t len)
{
	out[0] = id;
	out[1] = len;
	out[2] = len >> 8;
	out[3] = len >> 16;
	out[4] = len >> 24;
}

size_t adb_shellmsg_take_hdr(struct adb_shellmsg_reader *r, const uint8_t *d,
			     size_t len)
{
	size_t n = ADB_SHELLMSG_HDR - r->have;

	if (n > len)
		n = len;
	if (n)
		memcpy(r->hdr + r->have, d, n);
	r->have += n;
	if (r->have == ADB_SHELLMSG_HDR) {
		r->id = r->hdr[0];
		r->left = (uint32_t)r->hdr[1] | (uint32_t)r->hdr[2] << 8 |
			  (uint32_t)r->hdr[3] << 16 | (uint32_t)r->hdr[4] << 24;
	}
	return n;
}

bool adb_shellmsg_took(struct adb_shellmsg_reader *r, size_t n)
{
	r->left -= n;
	if (r->left)
		return false;
	r->have = 0;
	return true;
}
