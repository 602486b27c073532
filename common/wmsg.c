#include "wmsg.h"
#include "strv.h"

#include <errno.h>
#include <string.h>

int wmsg_parse(uint8_t *buf, size_t n, uint16_t *type, uint8_t **payload,
	       size_t *len)
{
	struct wmsg_hdr h;

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
	int n;

	if (len < 4)
		return -EBADMSG;
	memcpy(id, p, 4);
	n = strv_split((char *)p + 4, len - 4, argv, WMSG_MAX_ARGS);
	if (n < 0)
		return n;
	argv[n] = NULL;
	*argc = n;
	return 0;
}

int wmsg_parse_strings(uint8_t *p, size_t len, char **strs, int max)
{
	return strv_split((char *)p, len, strs, max);
}

int wmsg_parse_reply(uint8_t *p, size_t len, uint32_t *id, int32_t *rc,
		     const char **text)
{
	if (len < 9 || p[len - 1] != '\0')
		return -EBADMSG;
	memcpy(id, p, 4);
	memcpy(rc, p + 4, 4);
	*text = (const char *)p + 8;
	return 0;
}

int wmsg_parse_key(uint8_t *p, size_t len, uint32_t *id, const char **line)
{
	if (len < 5 || p[len - 1] != '\0' || strlen((char *)p + 4) != len - 5)
		return -EBADMSG;
	memcpy(id, p, 4);
	*line = (const char *)p + 4;
	return 0;
}

int wmsg_parse_key_done(const uint8_t *p, size_t len, uint32_t *id,
			int32_t *rc)
{
	if (len != 8)
		return -EBADMSG;
	memcpy(id, p, 4);
	memcpy(rc, p + 4, 4);
	return 0;
}

int wmsg_parse_host(const uint8_t *p, size_t len, bool *enabled)
{
	uint32_t v;

	if (wmsg_parse_u32(p, len, &v) < 0 || v > 1)
		return -EBADMSG;
	*enabled = v;
	return 0;
}

int wmsg_parse_lock(const uint8_t *p, size_t len, bool *locked)
{
	uint32_t v;

	if (wmsg_parse_u32(p, len, &v) < 0 || v > 1)
		return -EBADMSG;
	*locked = v;
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
	struct wmsg_hdr h = { .type = type, .len = len };

	if (len > WORKER_MSG_MAX - sizeof(h) || size < sizeof(h) + len)
		return -EMSGSIZE;
	memcpy(buf, &h, sizeof(h));
	return sizeof(h) + len;
}

int wmsg_build_strings(uint8_t *buf, size_t size, uint16_t type,
		       const char *const *strs, unsigned n)
{
	size_t hl = sizeof(struct wmsg_hdr);
	int r;

	if (size > WORKER_MSG_MAX)
		size = WORKER_MSG_MAX;
	if (size < hl)
		return -EMSGSIZE;
	r = strv_pack((char *)buf + hl, size - hl, n, (char *const *)strs);
	if (r < 0)
		return -EMSGSIZE;
	return wmsg_header(buf, size, type, r);
}

int wmsg_build_command(uint8_t *buf, size_t size, uint32_t id, int argc,
		       char *const *argv)
{
	size_t hl = sizeof(struct wmsg_hdr);
	int r;

	if (size > WORKER_MSG_MAX)
		size = WORKER_MSG_MAX;
	if (size < hl + 4)
		return -E2BIG;
	memcpy(buf + hl, &id, 4);
	r = strv_pack((char *)buf + hl + 4, size - hl - 4, argc, argv);
	if (r < 0)
		return r;
	return wmsg_header(buf, size, WORKER_COMMAND, 4 + r);
}

int wmsg_build_reply(uint8_t *buf, size_t size, uint32_t id, int32_t rc,
		     const char *text)
{
	size_t hl = sizeof(struct wmsg_hdr), max, tl = strlen(text);
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

int wmsg_build_key(uint8_t *buf, size_t size, uint32_t id, const char *line)
{
	size_t hl = sizeof(struct wmsg_hdr), ll = strlen(line);
	int r = wmsg_header(buf, size, WORKER_KEY, 4 + ll + 1);

	if (r < 0)
		return r;
	memcpy(buf + hl, &id, 4);
	memcpy(buf + hl + 4, line, ll + 1);
	return r;
}

int wmsg_build_key_done(uint8_t *buf, size_t size, uint32_t id, int32_t rc)
{
	size_t hl = sizeof(struct wmsg_hdr);
	int r = wmsg_header(buf, size, WORKER_KEY_DONE, 8);

	if (r < 0)
		return r;
	memcpy(buf + hl, &id, 4);
	memcpy(buf + hl + 4, &rc, 4);
	return r;
}

int wmsg_build_u32(uint8_t *buf, size_t size, uint16_t type, uint32_t v)
{
	int r = wmsg_header(buf, size, type, 4);

	if (r >= 0)
		memcpy(buf + sizeof(struct wmsg_hdr), &v, 4);
	return r;
}

int wmsg_build_host(uint8_t *buf, size_t size, bool enabled)
{
	return wmsg_build_u32(buf, size, WORKER_HOST, enabled ? 1 : 0);
}

int wmsg_build_input(uint8_t *buf, size_t size, uint32_t id, bool grabbed,
		     const char *label)
{
	size_t l = strnlen(label, WMSG_INPUT_LABEL_MAX - 1);
	uint32_t g = grabbed ? 1 : 0;
	int r = wmsg_header(buf, size, WORKER_INPUT, 8 + l + 1);
	uint8_t *p = buf + sizeof(struct wmsg_hdr);

	if (r < 0)
		return r;
	memcpy(p, &id, 4);
	memcpy(p + 4, &g, 4);
	memcpy(p + 8, label, l);
	p[8 + l] = '\0';
	return r;
}

int wmsg_parse_input(uint8_t *p, size_t len, uint32_t *id, bool *grabbed,
		     const char **label)
{
	uint32_t g;

	if (len < 9 || len > 8 + WMSG_INPUT_LABEL_MAX || p[len - 1] ||
	    memchr(p + 8, '\0', len - 9))
		return -EBADMSG;
	memcpy(&g, p + 4, 4);
	if (g > 1)
		return -EBADMSG;
	memcpy(id, p, 4);
	*grabbed = g;
	*label = (const char *)p + 8;
	return 0;
}

int wmsg_build_empty(uint8_t *buf, size_t size, uint16_t type)
{
	return wmsg_header(buf, size, type, 0);
}
