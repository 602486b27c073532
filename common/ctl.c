#include "ctl.h"
#include "strv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctl_parse_args(const char *payload, uint32_t len, char **argv, int max)
{
	int n = strv_split((char *)payload, len, argv, max);

	return n < 0 ? -EINVAL : n;
}

int ctl_build_request(char *buf, size_t size, uint16_t type, int argc,
		      char *const *argv)
{
	struct ctl_hdr h = { .type = type };
	int n;

	if (size > CTL_MSG_MAX)
		size = CTL_MSG_MAX;
	if (size < sizeof(h))
		return -E2BIG;
	n = strv_pack(buf + sizeof(h), size - sizeof(h), argc, argv);
	if (n < 0)
		return n;
	h.len = n;
	memcpy(buf, &h, sizeof(h));
	return sizeof(h) + n;
}

int ctl_parse_request(char *buf, size_t n, struct ctl_hdr *h, char **argv, int max)
{
	if (n < sizeof(*h) || n > CTL_MSG_MAX)
		return -EBADMSG;
	memcpy(h, buf, sizeof(*h));
	if (h->len != n - sizeof(*h))
		return -EBADMSG;
	return ctl_parse_args(buf + sizeof(*h), h->len, argv, max);
}

int ctl_build_reply(char *buf, size_t size, int32_t status, const char *text,
		    size_t len)
{
	struct ctl_hdr h = { .type = CTL_REPLY };
	struct ctl_reply_body b = { .status = status };
	size_t off = sizeof(h) + sizeof(b);

	if (size > CTL_MSG_MAX)
		size = CTL_MSG_MAX;
	if (size < off + 1)
		return -EMSGSIZE;
	if (len > size - off - 1)
		len = size - off - 1;
	h.len = sizeof(b) + len + 1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &b, sizeof(b));
	memcpy(buf + off, text, len);
	buf[off + len] = '\0';
	return off + len + 1;
}

int ctl_parse_reply(const char *buf, size_t n, int32_t *status,
		    const char **text)
{
	struct ctl_hdr h;
	struct ctl_reply_body b;
	size_t off = sizeof(h) + sizeof(b);

	if (n <= off || n > CTL_MSG_MAX)
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.type != CTL_REPLY || h.len != n - sizeof(h) || buf[n - 1] != '\0')
		return -EBADMSG;
	memcpy(&b, buf + sizeof(h), sizeof(b));
	*status = b.status;
	*text = buf + off;
	return 0;
}

int ctl_build_event(char *buf, size_t size, const struct ctl_event *ev)
{
	struct ctl_hdr h = { .type = CTL_EVENT };
	char code[16], when[24], detail[4096];
	char *argv[5] = { (char *)ev->kind, (char *)ev->function, detail, code, when };
	int n;

	if (size > CTL_MSG_MAX)
		size = CTL_MSG_MAX;
	if (size < sizeof(h))
		return -E2BIG;
	snprintf(code, sizeof(code), "%" PRId32, ev->code);
	snprintf(when, sizeof(when), "%" PRId64, ev->time_ms);
	snprintf(detail, sizeof(detail), "%s", ev->detail);
	n = strv_pack(buf + sizeof(h), size - sizeof(h), 5, argv);
	if (n < 0)
		return n;
	h.len = n;
	memcpy(buf, &h, sizeof(h));
	return sizeof(h) + n;
}

/* A decimal number, all of s, within [min, max]. */
static int ctl_number(const char *s, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (!*s || *end || errno || *out < min || *out > max)
		return -EBADMSG;
	return 0;
}

int ctl_parse_event(char *buf, size_t n, struct ctl_event *ev)
{
	struct ctl_hdr h;
	char *argv[5];
	long long code, when;

	if (n < sizeof(h) || n > CTL_MSG_MAX)
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.type != CTL_EVENT || h.len != n - sizeof(h) ||
	    strv_split(buf + sizeof(h), h.len, argv, 5) != 5)
		return -EBADMSG;
	if (ctl_number(argv[3], INT32_MIN, INT32_MAX, &code) < 0 ||
	    ctl_number(argv[4], 0, INT64_MAX, &when) < 0)
		return -EBADMSG;
	ev->kind = argv[0];
	ev->function = argv[1];
	ev->detail = argv[2];
	ev->code = (int32_t)code;
	ev->time_ms = when;
	return 0;
}
