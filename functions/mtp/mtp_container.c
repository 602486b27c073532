#include "mtp_container.h"
#include "mtp_proto.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int mtp_container_parse_cancel(const uint8_t *p, size_t len, uint32_t *tid)
{
	struct mtp_rd r;

	if (len < MTP_CANCEL_LEN)
		return -EBADMSG;
	mtp_rd_init(&r, p, len);
	if (mtp_rd_u16(&r) != MTP_EV_CANCEL_TRANSACTION)
		return -EBADMSG;
	*tid = mtp_rd_u32(&r);
	return 0;
}

size_t mtp_container_device_status(uint8_t *out, uint16_t code)
{
	uint16_t l = htole16(MTP_DEVICE_STATUS_LEN), c = htole16(code);

	memcpy(out, &l, 2);
	memcpy(out + 2, &c, 2);
	return MTP_DEVICE_STATUS_LEN;
}
