/* Unit tests for common/wmsg.c: worker <-> gadgetd datagrams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wmsg.h"

#include <errno.h>
#include <string.h>

static void test_parse_header(void **state)
{
	uint8_t buf[16] = { WORKER_COMMAND, 0, 4, 0, 1, 2, 3, 4 };
	uint8_t *payload;
	uint16_t type;
	size_t len;

	assert_int_equal(wmsg_parse(buf, 8, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_COMMAND);
	assert_int_equal(len, 4);
	assert_ptr_equal(payload, buf + 4);
	/* len says 4, the datagram has 3 or 5 bytes after the header */
	assert_int_equal(wmsg_parse(buf, 7, &type, &payload, &len), -EBADMSG);
	assert_int_equal(wmsg_parse(buf, 9, &type, &payload, &len), -EBADMSG);
	assert_int_equal(wmsg_parse(buf, 3, &type, &payload, &len), -EBADMSG);
	assert_int_equal(wmsg_parse(buf, 0, &type, &payload, &len), -EBADMSG);
	buf[2] = 0;
	assert_int_equal(wmsg_parse(buf, 4, &type, &payload, &len), 0);
	assert_int_equal(len, 0);
}

static void test_parse_command(void **state)
{
	uint8_t p[] = { 7, 0, 0, 0, 's', 't', 'a', 't', 's', 0, '-', 'v', 0 };
	char *argv[WMSG_MAX_ARGS + 1];
	uint32_t id;
	int argc;

	assert_int_equal(wmsg_parse_command(p, sizeof(p), &id, argv, &argc), 0);
	assert_int_equal(id, 7);
	assert_int_equal(argc, 2);
	assert_string_equal(argv[0], "stats");
	assert_string_equal(argv[1], "-v");
	assert_null(argv[2]);
	/* an id alone is a command without arguments */
	assert_int_equal(wmsg_parse_command(p, 4, &id, argv, &argc), 0);
	assert_int_equal(argc, 0);
	assert_null(argv[0]);
	/* empty strings are arguments too */
	p[4] = 0;
	assert_int_equal(wmsg_parse_command(p, 5, &id, argv, &argc), 0);
	assert_int_equal(argc, 1);
	assert_string_equal(argv[0], "");
}

static void test_parse_command_malformed(void **state)
{
	uint8_t p[4 + 2 * (WMSG_MAX_ARGS + 1)];
	char *argv[WMSG_MAX_ARGS + 1];
	uint32_t id;
	int argc, i;

	memcpy(p, "\1\0\0\0ab", 6);
	/* no id, or an id cut short */
	assert_int_equal(wmsg_parse_command(p, 0, &id, argv, &argc), -EBADMSG);
	assert_int_equal(wmsg_parse_command(p, 3, &id, argv, &argc), -EBADMSG);
	/* the last string lacks its NUL */
	assert_int_equal(wmsg_parse_command(p, 6, &id, argv, &argc), -EBADMSG);
	/* one argument too many */
	for (i = 0; i < WMSG_MAX_ARGS + 1; i++) {
		p[4 + 2 * i] = 'a';
		p[5 + 2 * i] = '\0';
	}
	assert_int_equal(wmsg_parse_command(p, sizeof(p), &id, argv, &argc), -E2BIG);
	assert_int_equal(wmsg_parse_command(p, sizeof(p) - 2, &id, argv, &argc), 0);
	assert_int_equal(argc, WMSG_MAX_ARGS);
}

/* The heartbeat's seq: exactly four bytes, anything else refused. */
static void test_parse_u32(void **state)
{
	uint8_t p[8] = { 0x78, 0x56, 0x34, 0x12, 0xff };
	uint8_t buf[16], *payload;
	uint32_t v = 0;
	uint16_t type;
	size_t len;
	int n;

	assert_int_equal(wmsg_parse_u32(p, 4, &v), 0);
	assert_int_equal(v, 0x12345678);
	v = 7;
	assert_int_equal(wmsg_parse_u32(p, 3, &v), -EBADMSG);
	assert_int_equal(wmsg_parse_u32(p, 5, &v), -EBADMSG);
	assert_int_equal(wmsg_parse_u32(p, 0, &v), -EBADMSG);
	assert_int_equal(v, 7);
	/* A PONG built here parses back to its seq. */
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_PONG, 0xdeadbeef);
	assert_int_equal(n, 8);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_PONG);
	assert_int_equal(wmsg_parse_u32(payload, len, &v), 0);
	assert_int_equal(v, 0xdeadbeef);
}

static void test_build(void **state)
{
	static const char *const kv[] = { "state", "online" };
	uint8_t buf[WORKER_MSG_MAX + 64];
	char big[WORKER_MSG_MAX + 10];
	int32_t rc;
	uint32_t v;

	assert_int_equal(wmsg_build_strings(buf, sizeof(buf), WORKER_STATUS, kv, 2), 4 + 13);
	assert_memory_equal(buf, "\x02\x00\x0d\x00state\0online\0", 17);
	assert_int_equal(wmsg_build_u32(buf, sizeof(buf), WORKER_HOST, 1), 8);
	memcpy(&v, buf + 4, 4);
	assert_int_equal(v, 1);
	assert_int_equal(wmsg_build_empty(buf, sizeof(buf), WORKER_READY), 4);
	assert_memory_equal(buf, "\x01\x00\x00\x00", 4);
	assert_int_equal(wmsg_build_reply(buf, sizeof(buf), 9, -22, "usage"), 4 + 8 + 6);
	memcpy(&rc, buf + 8, 4);
	assert_int_equal(rc, -22);
	assert_string_equal((char *)buf + 12, "usage");
	/* A reply longer than a datagram is cut, and stays NUL-terminated. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(wmsg_build_reply(buf, sizeof(buf), 9, 0, big), WORKER_MSG_MAX);
	assert_int_equal(buf[WORKER_MSG_MAX - 1], 0);
	/* Strings that do not fit are refused, not cut. */
	{
		const char *s[] = { big };
		assert_int_equal(wmsg_build_strings(buf, sizeof(buf), WORKER_STATUS, s, 1),
				 -EMSGSIZE);
	}
	assert_int_equal(wmsg_build_u32(buf, 6, WORKER_HOST, 1), -EMSGSIZE);
}

/* Both ends' codec: what supervisor.c builds, worker.c parses. */
static void test_command_roundtrip(void **state)
{
	char *in[] = { "keys", "", "--all" };
	char *argv[WMSG_MAX_ARGS + 1];
	uint8_t buf[WORKER_MSG_MAX], *payload;
	uint16_t type;
	uint32_t id;
	size_t len;
	int n, argc;

	n = wmsg_build_command(buf, sizeof(buf), 42, 3, in);
	assert_int_equal(n, 4 + 4 + 5 + 1 + 6);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_COMMAND);
	assert_int_equal(wmsg_parse_command(payload, len, &id, argv, &argc), 0);
	assert_int_equal(id, 42);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "keys");
	assert_string_equal(argv[1], "");
	assert_string_equal(argv[2], "--all");
	assert_null(argv[3]);
	/* No room for the id, or for the strings: refused, not cut. */
	assert_int_equal(wmsg_build_command(buf, 7, 1, 0, in), -E2BIG);
	assert_int_equal(wmsg_build_command(buf, 12, 1, 3, in), -E2BIG);
}

static void test_command_too_big(void **state)
{
	static char big[WORKER_MSG_MAX];
	char *in[] = { big };
	uint8_t buf[2 * WORKER_MSG_MAX];

	memset(big, 'a', sizeof(big) - 1);
	/* A larger buffer does not lift the datagram's limit. */
	assert_int_equal(wmsg_build_command(buf, sizeof(buf), 1, 1, in), -E2BIG);
}

static void test_parse_strings(void **state)
{
	uint8_t ok[] = "state\0online";      /* two strings, both terminated */
	uint8_t open_end[] = { 's', 't', 0, 'x' };
	char *s[2];

	assert_int_equal(wmsg_parse_strings(ok, sizeof(ok), s, 2), 2);
	assert_string_equal(s[0], "state");
	assert_string_equal(s[1], "online");
	assert_int_equal(wmsg_parse_strings(ok, sizeof(ok), s, 1), -E2BIG);
	assert_int_equal(wmsg_parse_strings(open_end, sizeof(open_end), s, 2), -EBADMSG);
	assert_int_equal(wmsg_parse_strings(ok, 0, s, 2), 0);
}

static void test_parse_reply(void **state)
{
	uint8_t buf[64], *payload;
	const char *text;
	uint16_t type;
	uint32_t id;
	int32_t rc;
	size_t len;
	int n;

	n = wmsg_build_reply(buf, sizeof(buf), 5, -EINVAL, "bad key");
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(wmsg_parse_reply(payload, len, &id, &rc, &text), 0);
	assert_int_equal(id, 5);
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(text, "bad key");
	/* Shorter than id and rc and a NUL; text without its NUL. */
	assert_int_equal(wmsg_parse_reply(payload, 8, &id, &rc, &text), -EBADMSG);
	assert_int_equal(wmsg_parse_reply(payload, 3, &id, &rc, &text), -EBADMSG);
	assert_int_equal(wmsg_parse_reply(payload, len - 1, &id, &rc, &text), -EBADMSG);
}

/* The host flag is a whole u32 on both ends (supervisor.c once read its
 * first byte, which is 0 on a big-endian machine). */
static void test_host(void **state)
{
	uint8_t buf[16], *payload, p[4];
	uint32_t v = 1;
	uint16_t type;
	bool on = false;
	size_t len;
	int n;

	n = wmsg_build_host(buf, sizeof(buf), true);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_HOST);
	assert_int_equal(wmsg_parse_host(payload, len, &on), 0);
	assert_true(on);
	n = wmsg_build_host(buf, sizeof(buf), false);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(wmsg_parse_host(payload, len, &on), 0);
	assert_false(on);
	memcpy(p, &v, 4);
	assert_int_equal(wmsg_parse_host(p, 4, &on), 0);
	assert_true(on);
	v = 0x100;
	memcpy(p, &v, 4);
	assert_int_equal(wmsg_parse_host(p, 4, &on), -EBADMSG);
	assert_int_equal(wmsg_parse_host(p, 3, &on), -EBADMSG);
}

/* WORKER_LOCK: a u32 0 or 1 and nothing else; a stray value, a short
 * or long payload is refused, and the state is left as it was. */
static void test_lock(void **state)
{
	uint8_t buf[16], *payload, p[5] = { 0 };
	uint16_t type;
	uint32_t v = 2;
	bool locked = true;
	size_t len;
	int n;

	(void)state;
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_LOCK, 1);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_LOCK);
	assert_int_equal(wmsg_parse_lock(payload, len, &locked), 0);
	assert_true(locked);
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_LOCK, 0);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(wmsg_parse_lock(payload, len, &locked), 0);
	assert_false(locked);
	memcpy(p, &v, 4);
	assert_int_equal(wmsg_parse_lock(p, 4, &locked), -EBADMSG);
	assert_false(locked);
	v = 1;
	memcpy(p, &v, 4);
	assert_int_equal(wmsg_parse_lock(p, 3, &locked), -EBADMSG);
	assert_int_equal(wmsg_parse_lock(p, 5, &locked), -EBADMSG);
	assert_int_equal(wmsg_parse_lock(p, 0, &locked), -EBADMSG);
	assert_false(locked);
}

/* WORKER_KEY carries one line: a NUL inside would let a second string
 * ride along unseen. WORKER_KEY_DONE is exactly id and rc. */
static void test_key(void **state)
{
	uint8_t buf[64], *payload;
	const char *line;
	uint16_t type;
	uint32_t id;
	int32_t rc;
	size_t len;
	int n;

	n = wmsg_build_key(buf, sizeof(buf), 7, "QUJD user@host");
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_KEY);
	assert_int_equal(wmsg_parse_key(payload, len, &id, &line), 0);
	assert_int_equal(id, 7);
	assert_string_equal(line, "QUJD user@host");
	assert_int_equal(wmsg_parse_key(payload, len - 1, &id, &line), -EBADMSG);
	assert_int_equal(wmsg_parse_key(payload, 4, &id, &line), -EBADMSG);
	payload[6] = '\0';
	assert_int_equal(wmsg_parse_key(payload, len, &id, &line), -EBADMSG);
	assert_int_equal(wmsg_build_key(buf, 10, 7, "QUJD user@host"), -EMSGSIZE);

	n = wmsg_build_key_done(buf, sizeof(buf), 7, -EACCES);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_KEY_DONE);
	assert_int_equal(wmsg_parse_key_done(payload, len, &id, &rc), 0);
	assert_int_equal(id, 7);
	assert_int_equal(rc, -EACCES);
	assert_int_equal(wmsg_parse_key_done(payload, 7, &id, &rc), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_header),
		cmocka_unit_test(test_parse_command),
		cmocka_unit_test(test_parse_command_malformed),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_parse_u32),
		cmocka_unit_test(test_command_roundtrip),
		cmocka_unit_test(test_command_too_big),
		cmocka_unit_test(test_parse_strings),
		cmocka_unit_test(test_parse_reply),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_lock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
