/*
 * Fuzz both wire codecs' parsers (common/ctl.c and wmsg.c)
 * with libFuzzer: the input, as a datagram, goes through every parser
 * that either end runs on what it receives. Invariants: a parser that
 * succeeds hands out strings that end inside the datagram, and whatever
 * it parsed packs back to the same bytes.
 */
#include "ctl.h"
#include "wmsg.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s must be NUL-terminated inside [lo, lo + n). */
static void fuzz_inside(const char *s, const void *lo, size_t n)
{
	const char *b = lo;

	if (s < b || s >= b + n || !memchr(s, '\0', b + n - s))
		abort();
}

static void fuzz_ctl(const uint8_t *data, size_t size)
{
	static char buf[CTL_MSG_MAX], again[CTL_MSG_MAX];
	char *argv[64];
	struct ctl_hdr h;
	struct ctl_event ev;
	const char *text;
	int32_t status;
	int n, i;

	if (size > sizeof(buf))
		return;
	memcpy(buf, data, size);
	n = ctl_parse_request(buf, size, &h, argv, 64);
	for (i = 0; i < n; i++)
		fuzz_inside(argv[i], buf, size);
	if (n >= 0 && (ctl_build_request(again, sizeof(again), h.type, n, argv) != (int)size ||
		       memcmp(again + sizeof(h), buf + sizeof(h), size - sizeof(h))))
		abort();
	if (ctl_parse_reply(buf, size, &status, &text) == 0)
		fuzz_inside(text, buf, size);
	memcpy(buf, data, size);
	if (ctl_parse_event(buf, size, &ev) == 0) {
		fuzz_inside(ev.kind, buf, size);
		fuzz_inside(ev.function, buf, size);
		fuzz_inside(ev.detail, buf, size);
	}
}

static void fuzz_wmsg(const uint8_t *data, size_t size)
{
	static uint8_t buf[WORKER_MSG_MAX], again[WORKER_MSG_MAX];
	char *argv[WMSG_MAX_ARGS + 1], *s[2];
	uint8_t *p;
	const char *text;
	uint16_t type;
	uint32_t id, v;
	int32_t rc;
	size_t len;
	bool on;
	int argc, i, n;

	if (size > sizeof(buf))
		return;
	memcpy(buf, data, size);
	if (wmsg_parse(buf, size, &type, &p, &len) < 0)
		return;
	if (wmsg_parse_command(p, len, &id, argv, &argc) == 0) {
		for (i = 0; i < argc; i++)
			fuzz_inside(argv[i], p, len);
		n = wmsg_build_command(again, sizeof(again), id, argc, argv);
		if (n != (int)size || memcmp(again + 4, buf + 4, size - 4))
			abort();
	}
	n = wmsg_parse_strings(p, len, s, 2);
	for (i = 0; i < n; i++)
		fuzz_inside(s[i], p, len);
	if (wmsg_parse_reply(p, len, &id, &rc, &text) == 0)
		fuzz_inside(text, p, len);
	if (wmsg_parse_host(p, len, &on) == 0 && (wmsg_parse_u32(p, len, &v) || v > 1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_ctl(data, size);
	fuzz_wmsg(data, size);
	return 0;
}
