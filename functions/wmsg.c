#include "wmsg.h"

#include <errno.h>
#include <string.h>

int wmsg_parse(uint8_t *buf, size_t n, uint16_t *type, uint8_t **payload,
	       size_t *len)
{
	struct worker_hdr h;

	if (n < sizeof(h) || n > WORKER_MSG_MAX)
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.len != n - sizeof(h))
		return -EBADMSG;
	*type = h.type;
	*payload = buf + sizeof(h);
	*len = h.len;
	return 0;
}

int wmsg_parse_command(uint8_t *p, size_t len, uint32_t *id,
		       char *argv[WMSG_MAX_ARGS + 1], int *argc)
{
	size_t off = 4;
	int n = 0;

	if (len < 4)
		return -EBADMSG;
	memcpy(id, p, 4);
	/* Every string, the last one included, ends with a NUL. */
	if (len > 4 && p[len - 1] != '\0')
		return -EBADMSG;
	while (off < len) {
		if (n == WMSG_MAX_ARGS)
			return -E2BIG;
		argv[n++] = (char *)p + off;
		off += strlen((char *)p + off) + 1;
	}
	argv[n] = NULL;
	*argc = n;
	return 0;
}

int wmsg_parse_u32(const uint8_t *p, size_t len, uint32_t *v)
{
	if (len != 4)
		return -EBADMSG;
	memcpy(v, p, 4);
	return 0;
}

static int wmsg_header(uint8_t *buf, size_t size, uint16_t type, size_t len)
{
	struct worker_hdr h = { .type = type, .len = len };

	if (len > WORKER_MSG_MAX - sizeof(h) || size < sizeof(h) + len)
		return -EMSGSIZE;
	memcpy(buf, &h, sizeof(h));
	return sizeof(h) + len;
}

int wmsg_build_strings(uint8_t *buf, size_t size, uint16_t type,
		       const char *const *strs, unsigned n)
{
	size_t len = 0, off = sizeof(struct worker_hdr);
	unsigned i;
	int r;

	for (i = 0; i < n; i++)
		len += strlen(strs[i]) + 1;
	r = wmsg_header(buf, size, type, len);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		size_t l = strlen(strs[i]) + 1;

		memcpy(buf + off, strs[i], l);
		off += l;
	}
	return r;
}

int wmsg_build_reply(uint8_t *buf, size_t size, uint32_t id, int32_t rc,
		     const char *text)
{
	size_t hl = sizeof(struct worker_hdr), max, tl = strlen(text);
	int r;

	if (size > WORKER_MSG_MAX)
		size = WORKER_MSG_MAX;
	if (size < hl + 9)
		return -EMSGSIZE;
	max = size - hl - 9;
	if (tl > max)
		tl = max;
	r = wmsg_header(buf, size, WORKER_REPLY, 8 + tl + 1);
	if (r < 0)
		return r;
	memcpy(buf + hl, &id, 4);
	memcpy(buf + hl + 4, &rc, 4);
	memcpy(buf + hl + 8, text, tl);
	buf[hl + 8 + tl] = '\0';
	return r;
}

int wmsg_build_u32(uint8_t *buf, size_t size, uint16_t type, uint32_t v)
{
	int r = wmsg_header(buf, size, type, 4);

	if (r >= 0)
		memcpy(buf + sizeof(struct worker_hdr), &v, 4);
	return r;
}

int wmsg_build_empty(uint8_t *buf, size_t size, uint16_t type)
{
	return wmsg_header(buf, size, type, 0);
}
