/*
 * libFuzzer target: the spawner's request parser, which reads what a
 * (possibly subverted) seccomp-filtered worker sends. A request it
 * accepts must lie wholly inside the datagram, carry a reboot target only
 * as a plain word (never an option or a path) and build back to the very
 * same bytes. The request names no program: there is no field for one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spawner.h"

static int fuzz_inside(const char *s, const uint8_t *data, size_t size)
{
	return s && (const uint8_t *)s >= data &&
	       (const uint8_t *)s + strlen(s) < data + size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t again[SPAWNER_MSG_MAX];
	struct spawner_cmd c;
	int n;

	if (spawner_req_parse(data, size, &c) < 0)
		return 0;
	if (!fuzz_inside(c.term, data, size) || !fuzz_inside(c.cmd, data, size))
		abort();
	if (c.reboot && (c.pty || c.term[0] || c.cmd[0] == '-' ||
			 strchr(c.cmd, '/') || strlen(c.cmd) > SPAWNER_REBOOT_ARG_MAX))
		abort();
	n = spawner_req_build(&c, again, sizeof(again));
	if (n != (int)size || memcmp(again, data, size))
		abort();
	return 0;
}
