#include "ctl.h"
#include "strv.h"

#include <errno.h>
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
