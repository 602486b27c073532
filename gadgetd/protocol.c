#include "protocol.h"

#include <errno.h>
#include <string.h>

int ctl_parse_args(const char *payload, uint32_t len, char **argv, int max)
{
	uint32_t off = 0;
	int n = 0;

	while (off < len) {
		const char *end = memchr(payload + off, '\0', len - off);
		if (!end || n == max)
			return -EINVAL;
		argv[n++] = (char *)payload + off;
		off = end - payload + 1;
	}
	return n;
}
