/* adb_shellmsg: shell v2 headers written against hand-laid bytes, and the
 * reader fed a packet stream in every possible split, with a consumer
 * that takes less than it is offered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adb/adb_shellmsg.h"

static size_t put(uint8_t *b, uint8_t id, const char *payload, uint32_t len)
{
	adb_shellmsg_put_hdr(b, id, len);
	memcpy(b + ADB_SHELLMSG_HDR, payload, len);
	return ADB_SHELLMSG_HDR + len;
}

static void add(char *log, size_t size, const char *text)
{
	size_t have = strlen(log);

	snprintf(log + have, size - have, "%s", text);
}

/*
 * Feed buf in pieces of step bytes; the consumer takes at most take bytes
 * of a payload per offer (a full stdin). The transcript has "<id>:" at a
 * header, the payload bytes, and ";" at a packet's end.
 */
static void run(const uint8_t *buf, size_t len, size_t step, size_t take,
		char *log, size_t size)
{
	struct adb_shellmsg_reader r = { 0 };
	size_t off = 0, rounds = 0;

	log[0] = '\0';
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		size_t pos = 0;

		while (pos < n) {
			/* A reader that stops taking bytes fails, not hangs. */
			assert_true(++rounds < 10 * len + 100);
			if (!adb_shellmsg_in_payload(&r)) {
				size_t used = adb_shellmsg_take_hdr(
				    &r, buf + off + pos, n - pos);

				assert_true(used > 0);
				pos += used;
				if (!adb_shellmsg_in_payload(&r))
					continue;
				char head[16];
				snprintf(head, sizeof(head), "%u:", r.id);
				add(log, size, head);
			}
			size_t k = adb_shellmsg_payload(&r, n - pos);
			if (k > take)
				k = take;
			char piece[64];
			snprintf(piece, sizeof(piece), "%.*s", (int)k,
				 (const char *)buf + off + pos);
			add(log, size, piece);
			pos += k;
			if (adb_shellmsg_took(&r, k))
				add(log, size, ";");
		}
		off += n;
	}
}

static void test_header_bytes(void **state)
{
	uint8_t b[ADB_SHELLMSG_HDR];
	const uint8_t want[] = { 3, 0x04, 0x03, 0x02, 0x01 };

	(void)state;
	adb_shellmsg_put_hdr(b, ADB_SHELL_ID_EXIT, 0x01020304);
	assert_memory_equal(b, want, sizeof(want));
}

static void test_stream_any_split(void **state)
{
	uint8_t buf[128];
	size_t n = 0;
	char log[256];

	(void)state;
	n += put(buf + n, ADB_SHELL_ID_STDIN, "hello", 5);
	n += put(buf + n, ADB_SHELL_ID_WINSIZE, "24x80,0x0", 9);
	n += put(buf + n, ADB_SHELL_ID_STDIN, "", 0);
	n += put(buf + n, ADB_SHELL_ID_CLOSE_STDIN, "", 0);
	n += put(buf + n, 200, "??", 2); /* unknown ids pass through */
	for (size_t step = 1; step <= n; step++)
		for (size_t take = 1; take <= 10; take++) {
			run(buf, n, step, take, log, sizeof(log));
			assert_string_equal(log, "0:hello;5:24x80,0x0;0:;4:;"
						 "200:??;");
		}
}

/* A header that claims 4 GiB: the reader hands out what there is, and
 * never more than the rest of the input. */
static void test_huge_length(void **state)
{
	struct adb_shellmsg_reader r = { 0 };
	uint8_t buf[ADB_SHELLMSG_HDR + 3];

	(void)state;
	adb_shellmsg_put_hdr(buf, ADB_SHELL_ID_STDIN, 0xffffffffu);
	memcpy(buf + ADB_SHELLMSG_HDR, "abc", 3);
	assert_int_equal(adb_shellmsg_take_hdr(&r, buf, sizeof(buf)),
			 ADB_SHELLMSG_HDR);
	assert_true(adb_shellmsg_in_payload(&r));
	assert_int_equal(r.left, 0xffffffffu);
	assert_int_equal(adb_shellmsg_payload(&r, 3), 3);
	assert_false(adb_shellmsg_took(&r, 3));
	assert_int_equal(r.left, 0xffffffffu - 3);
	/* In a payload, no header bytes are taken. */
	assert_int_equal(adb_shellmsg_take_hdr(&r, buf, sizeof(buf)), 0);
}

/* A header split at every byte completes only at its fifth. */
static void test_header_by_bytes(void **state)
{
	struct adb_shellmsg_reader r = { 0 };
	uint8_t b[ADB_SHELLMSG_HDR];

	(void)state;
	adb_shellmsg_put_hdr(b, ADB_SHELL_ID_STDERR, 7);
	for (size_t i = 0; i < ADB_SHELLMSG_HDR; i++) {
		assert_false(adb_shellmsg_in_payload(&r));
		assert_int_equal(adb_shellmsg_take_hdr(&r, b + i, 1), 1);
	}
	assert_true(adb_shellmsg_in_payload(&r));
	assert_int_equal(r.id, ADB_SHELL_ID_STDERR);
	assert_int_equal(r.left, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_bytes),
		cmocka_unit_test(test_stream_any_split),
		cmocka_unit_test(test_huge_length),
		cmocka_unit_test(test_header_by_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
