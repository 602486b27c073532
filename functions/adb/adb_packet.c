/* adb_packet: ADB message headers and the OUT byte-stream reader. */
#include "adb_packet.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static uint32_t packet_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void packet_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

void adb_packet_decode(const uint8_t *buf, struct adb_hdr *h)
{
	h->cmd = packet_get_le32(buf);
	h->arg0 = packet_get_le32(buf + 4);
	h->arg1 = packet_get_le32(buf + 8);
	h->len = packet_get_le32(buf + 12);
	h->check = packet_get_le32(buf + 16);
	h->magic = packet_get_le32(buf + 20);
}

uint32_t adb_packet_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += p[i];
	return sum;
}

void adb_packet_encode(uint8_t *buf, uint32_t cmd, uint32_t arg0,
		       uint32_t arg1, const void *data, uint32_t len,
		       int with_check)
{
	packet_put_le32(buf, cmd);
	packet_put_le32(buf + 4, arg0);
	packet_put_le32(buf + 8, arg1);
	packet_put_le32(buf + 12, len);
	packet_put_le32(buf + 16,
			with_check ? adb_packet_checksum(data, len) : 0);
	packet_put_le32(buf + 20, cmd ^ 0xffffffffu);
}

static int packet_known_cmd(uint32_t cmd)
{
	switch (cmd) {
	case ADB_CNXN:
	case ADB_AUTH:
	case ADB_OPEN:
	case ADB_OKAY:
	case ADB_CLSE:
	case ADB_WRTE:
		return 1;
	}
	return 0;
}

int adb_packet_validate(const struct adb_hdr *h, uint32_t max_payload)
{
	if (h->magic != (h->cmd ^ 0xffffffffu))
		return -EBADMSG;
	if (h->len > max_payload)
		return -EMSGSIZE;
	if (!packet_known_cmd(h->cmd))
		return -ENOTSUP;
	return 0;
}

void adb_packet_cmd_name(uint32_t cmd, char name[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)(cmd >> (8 * i));
		name[i] = (c >= 'A' && c <= 'Z') ? c : '?';
	}
	name[4] = '\0';
}

struct adb_packet_reader {
	adb_packet_reader_fn fn;
	adb_packet_head_fn head;
	void *data;
	uint32_t max;
	uint8_t hdr_buf[ADB_HDR_SIZE];
	size_t hdr_have;
	struct adb_hdr hdr;
	/* Payload being assembled when it came in pieces. */
	uint8_t *payload;
	size_t payload_have;
	bool head_told; /* head() has been called for this message */
};

struct adb_packet_reader *adb_packet_reader_new(adb_packet_reader_fn fn,
						void *data)
{
	struct adb_packet_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	/* Room for the largest payload we will ever negotiate, once. */
	r->payload = malloc(ADB_MAX_PAYLOAD);
	if (!r->payload) {
		free(r);
		return NULL;
	}
	r->fn = fn;
	r->data = data;
	r->max = ADB_MAX_PAYLOAD;
	return r;
}

void adb_packet_reader_free(struct adb_packet_reader *r)
{
	if (!r)
		return;
	free(r->payload);
	free(r);
}

void adb_packet_reader_set_head(struct adb_packet_reader *r,
				adb_packet_head_fn head)
{
	r->head = head;
}

void adb_packet_reader_set_max(struct adb_packet_reader *r,
			       uint32_t max_payload)
{
	r->max = max_payload < ADB_MAX_PAYLOAD ? max_payload : ADB_MAX_PAYLOAD;
}

void adb_packet_reader_reset(struct adb_packet_reader *r)
{
	r->hdr_have = 0;
	r->payload_have = 0;
}

/* Take header bytes; once 24 are in, validate. Returns bytes used or
 * -errno. */
static ssize_t packet_take_header(struct adb_packet_reader *r,
				  const uint8_t *buf, size_t len)
{
	size_t n = ADB_HDR_SIZE - r->hdr_have;
	int rc;

	if (n > len)
		n = len;
	memcpy(r->hdr_buf + r->hdr_have, buf, n);
	r->hdr_have += n;
	if (r->hdr_have < ADB_HDR_SIZE)
		return n;
	adb_packet_decode(r->hdr_buf, &r->hdr);
	rc = adb_packet_validate(&r->hdr, r->max);
	if (rc == -EBADMSG || rc == -EMSGSIZE)
		return rc;
	r->payload_have = 0;
	r->head_told = false;
	return n;
}

static int packet_deliver(struct adb_packet_reader *r, const uint8_t *payload)
{
	r->hdr_have = 0;
	r->payload_have = 0;
	return r->fn(r->data, &r->hdr, payload);
}

uint8_t *adb_packet_reader_room(struct adb_packet_reader *r, size_t *len)
{
	*len = 0;
	/* A header is wanted, or a payload-less message was just handed
	 * on (hdr_have is then 0 again). */
	if (r->hdr_have < ADB_HDR_SIZE || r->payload_have >= r->hdr.len)
		return NULL;
	if (r->head && !r->head_told) {
		r->head_told = true;
		r->head(r->data, &r->hdr);
	}
	/* hdr.len passed adb_packet_validate against r->max, which is at
	 * most ADB_MAX_PAYLOAD, the buffer's size. */
	*len = r->hdr.len - r->payload_have;
	return r->payload + r->payload_have;
}

int adb_packet_reader_filled(struct adb_packet_reader *r, size_t n)
{
	if (r->hdr_have < ADB_HDR_SIZE || n > r->hdr.len - r->payload_have)
		return -EINVAL;
	r->payload_have += n;
	if (r->payload_have < r->hdr.len)
		return 0;
	return packet_deliver(r, r->payload);
}

int adb_packet_reader_feed(struct adb_packet_reader *r, const uint8_t *buf,
			   size_t len)
{
	while (len > 0) {
		if (r->hdr_have < ADB_HDR_SIZE) {
			ssize_t n = packet_take_header(r, buf, len);

			if (n < 0) {
				adb_packet_reader_reset(r);
				return (int)n;
			}
			buf += n;
			len -= n;
			if (r->hdr_have < ADB_HDR_SIZE)
				return 0;
			if (r->hdr.len == 0) {
				int rc = packet_deliver(r, NULL);
				if (rc < 0)
					return rc;
				continue;
			}
		}
		size_t want = r->hdr.len - r->payload_have;
		if (r->payload_have == 0 && len >= want) {
			/* The common case: the whole payload is here. */
			int rc = packet_deliver(r, buf);
			if (rc < 0)
				return rc;
			buf += want;
			len -= want;
			continue;
		}
		if (r->head && !r->head_told) {
			r->head_told = true;
			r->head(r->data, &r->hdr);
		}
		size_t n = len < want ? len : want;
		memcpy(r->payload + r->payload_have, buf, n);
		r->payload_have += n;
		buf += n;
		len -= n;
		if (r->payload_have == r->hdr.len) {
			int rc = packet_deliver(r, r->payload);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/*
 * Whether the CNXN banner ("host::features=a,b,c", or with other
 * properties before it, separated by ';') lists feature. The payload is
 * not trusted to end with a NUL; one ends the banner if present, as AOSP
 * hosts send it with one.
 */
bool adb_packet_banner_has_feature(const uint8_t *payload, size_t len,
				   const char *feature)
{
	const char *b = (const char *)payload;
	const char *end, *props, *p;
	size_t flen = strlen(feature);

	if (!payload)
		return false;
	end = memchr(b, '\0', len);
	if (end)
		len = end - b;
	end = b + len;
	props = memmem(b, len, "::", 2);
	if (!props)
		return false;
	for (p = props + 2; p < end;) {
		const char *semi = memchr(p, ';', end - p);
		const char *pend = semi ? semi : end;

		if (pend - p >= 9 && !memcmp(p, "features=", 9)) {
			for (const char *f = p + 9; f <= pend;) {
				const char *comma = memchr(f, ',', pend - f);
				const char *fend = comma ? comma : pend;

				if ((size_t)(fend - f) == flen &&
				    !memcmp(f, feature, flen))
					return true;
				f = fend + 1;
			}
		}
		p = pend + 1;
	}
	return false;
}
