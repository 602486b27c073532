#include "strv.h"

#include <errno.h>
#include <string.h>

int strv_pack(char *buf, size_t size, int argc, char *const *argv)
{
	size_t off = 0;
	int i;

	for (i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		if (l > size - off)
			return -E2BIG;
		memcpy(buf + off, argv[i], l);
		off += l;
	}
	return off;
}

int strv_split(char *p, size_t len, char **argv, int max)
{
	size_t off = 0;
	int n = 0;

	/* With the last byte a NUL, strlen() below never reads past len. */
	if (len && p[len - 1] != '\0')
		return -EBADMSG;
	while (off < len) {
		if (n == max)
			return -E2BIG;
		argv[n++] = p + off;
		off += strlen(p + off) + 1;
	}
	return n;
}
