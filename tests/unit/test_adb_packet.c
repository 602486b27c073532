/* adb_packet: header encode/decode/validate and the OUT byte-stream reader. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adb/adb_packet.h"

struct got {
	unsigned n;
	struct adb_hdr h[16];
	uint8_t payload[16][64];
	int fail_at; /* return -EIO for message number fail_at (1-based) */
};

static int on_msg(void *data, const struct adb_hdr *h, const uint8_t *payload)
{
	struct got *g = data;

	assert_true(g->n < 16);
	g->h[g->n] = *h;
	if (h->len) {
		assert_non_null(payload);
		memcpy(g->payload[g->n], payload, h->len < 64 ? h->len : 64);
	}
	g->n++;
	return g->fail_at && (int)g->n == g->fail_at ? -EIO : 0;
}

/* Header then payload into buf; returns the total length. */
static size_t put_msg(uint8_t *buf, uint32_t cmd, uint32_t a0, uint32_t a1,
		      const char *payload)
{
	size_t len = payload ? strlen(payload) : 0;

	adb_packet_encode(buf, cmd, a0, a1, payload, len, 0);
	if (len)
		memcpy(buf + ADB_HDR_SIZE, payload, len);
	return ADB_HDR_SIZE + len;
}

static void test_encode_decode(void **state)
{
	uint8_t buf[ADB_HDR_SIZE];
	struct adb_hdr h;

	adb_packet_encode(buf, ADB_WRTE, 7, 9, "abc", 3, 1);
	adb_packet_decode(buf, &h);
	assert_int_equal(h.cmd, ADB_WRTE);
	assert_int_equal(h.arg0, 7);
	assert_int_equal(h.arg1, 9);
	assert_int_equal(h.len, 3);
	assert_int_equal(h.check, 'a' + 'b' + 'c');
	assert_int_equal(h.magic, ADB_WRTE ^ 0xffffffffu);
	assert_int_equal(adb_packet_validate(&h, 1024), 0);
	/* Little-endian on the wire: "WRTE" spelt out. */
	assert_memory_equal(buf, "WRTE", 4);
	adb_packet_encode(buf, ADB_OKAY, 1, 2, NULL, 0, 0);
	adb_packet_decode(buf, &h);
	assert_int_equal(h.check, 0);
}

static void test_validate_errors(void **state)
{
	struct adb_hdr h = { .cmd = ADB_OPEN, .len = 10 };

	h.magic = h.cmd; /* not inverted */
	assert_int_equal(adb_packet_validate(&h, 4096), -EBADMSG);
	h.magic = ~h.cmd;
	h.len = 4097;
	assert_int_equal(adb_packet_validate(&h, 4096), -EMSGSIZE);
	h.len = 4096;
	assert_int_equal(adb_packet_validate(&h, 4096), 0);
	h.cmd = 0x12345678;
	h.magic = ~h.cmd;
	assert_int_equal(adb_packet_validate(&h, 4096), -ENOTSUP);
}

static void test_cmd_name(void **state)
{
	char n[5];

	adb_packet_cmd_name(ADB_CNXN, n);
	assert_string_equal(n, "CNXN");
	adb_packet_cmd_name(0x00ff0a41, n);
	assert_string_equal(n, "A???");
}

static void test_reader_merged_and_split(void **state)
{
	uint8_t buf[256];
	size_t n = 0;
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);

	n += put_msg(buf + n, ADB_OPEN, 5, 0, "shell:ls");
	n += put_msg(buf + n, ADB_OKAY, 1, 5, NULL);
	n += put_msg(buf + n, ADB_WRTE, 5, 1, "0123456789");
	/* All merged in one transfer. */
	assert_int_equal(adb_packet_reader_feed(r, buf, n), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.payload[0], "shell:ls", 8);
	assert_int_equal(g.h[1].cmd, ADB_OKAY);
	assert_memory_equal(g.payload[2], "0123456789", 10);
	/* The same bytes one at a time. */
	memset(&g, 0, sizeof(g));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(adb_packet_reader_feed(r, buf + i, 1), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.payload[2], "0123456789", 10);
	assert_int_equal(g.h[2].arg0, 5);
	/* Empty feeds change nothing. */
	assert_int_equal(adb_packet_reader_feed(r, buf, 0), 0);
	assert_int_equal(g.n, 3);
	adb_packet_reader_free(r);
}

static void test_reader_bad_magic_resets(void **state)
{
	uint8_t buf[128];
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);
	size_t n = put_msg(buf, ADB_OKAY, 1, 2, NULL);

	buf[20] ^= 1; /* break the magic */
	assert_int_equal(adb_packet_reader_feed(r, buf, n), -EBADMSG);
	assert_int_equal(g.n, 0);
	/* After the reset a sound message goes through. */
	n = put_msg(buf, ADB_OKAY, 1, 2, NULL);
	assert_int_equal(adb_packet_reader_feed(r, buf, n), 0);
	assert_int_equal(g.n, 1);
	adb_packet_reader_free(r);
}

static void test_reader_oversized(void **state)
{
	uint8_t buf[ADB_HDR_SIZE];
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);

	adb_packet_reader_set_max(r, 4096);
	adb_packet_encode(buf, ADB_WRTE, 1, 2, NULL, 4097, 0);
	assert_int_equal(adb_packet_reader_feed(r, buf, sizeof(buf)),
			 -EMSGSIZE);
	/* More than the buffer can ever hold is refused too. */
	adb_packet_reader_set_max(r, 0xffffffffu);
	adb_packet_encode(buf, ADB_WRTE, 1, 2, NULL, ADB_MAX_PAYLOAD + 1, 0);
	assert_int_equal(adb_packet_reader_feed(r, buf, sizeof(buf)),
			 -EMSGSIZE);
	assert_int_equal(g.n, 0);
	adb_packet_reader_free(r);
}

static void test_reader_unknown_command_delivered(void **state)
{
	uint8_t buf[64];
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);
	size_t n = put_msg(buf, 0x4c535453 /* STLS */, 1, 0, "xy");

	assert_int_equal(adb_packet_reader_feed(r, buf, n), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.h[0].cmd, 0x4c535453);
	adb_packet_reader_free(r);
}

static void test_reader_callback_error(void **state)
{
	uint8_t buf[128];
	size_t n = 0;
	struct got g = { .fail_at = 1 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);

	n += put_msg(buf + n, ADB_OKAY, 1, 2, NULL);
	n += put_msg(buf + n, ADB_OKAY, 3, 4, NULL);
	assert_int_equal(adb_packet_reader_feed(r, buf, n), -EIO);
	assert_int_equal(g.n, 1);
	adb_packet_reader_free(r);
}

static void test_reader_partial_payload_then_reset(void **state)
{
	uint8_t buf[64];
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);
	size_t n = put_msg(buf, ADB_WRTE, 1, 2, "abcdef");

	assert_int_equal(adb_packet_reader_feed(r, buf, n - 3), 0);
	assert_int_equal(g.n, 0);
	adb_packet_reader_reset(r); /* e.g. a USB reset in between */
	n = put_msg(buf, ADB_WRTE, 1, 2, "zz");
	assert_int_equal(adb_packet_reader_feed(r, buf, n), 0);
	assert_int_equal(g.n, 1);
	assert_memory_equal(g.payload[0], "zz", 2);
	adb_packet_reader_free(r);
}

/* head(): once per message whose payload is still to come, before the
 * message; never for one that arrives whole. */
static unsigned heads, heads_msgs_before;
static struct got *heads_got;

static void on_head(void *data, const struct adb_hdr *h)
{
	struct got *g = data;

	assert_ptr_equal(g, heads_got);
	assert_int_equal(h->cmd, ADB_WRTE);
	heads++;
	heads_msgs_before = g->n;
}

static void test_reader_head(void **state)
{
	uint8_t buf[256];
	size_t n = 0, m;
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);

	heads = 0;
	heads_got = &g;
	adb_packet_reader_set_head(r, on_head);
	n += put_msg(buf + n, ADB_OKAY, 1, 5, NULL);
	m = put_msg(buf + n, ADB_WRTE, 5, 1, "0123456789");
	/* Whole, with a payload-less message before it: no head. */
	assert_int_equal(adb_packet_reader_feed(r, buf, n + m), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(heads, 0);
	/* adb 29's way: the header in a transfer of its own, then the
	 * payload in pieces: one head, before the message. */
	assert_int_equal(adb_packet_reader_feed(r, buf + n, ADB_HDR_SIZE), 0);
	assert_int_equal(heads, 1);
	assert_int_equal(heads_msgs_before, 2);
	assert_int_equal(adb_packet_reader_feed(r, buf + n + ADB_HDR_SIZE, 4), 0);
	assert_int_equal(adb_packet_reader_feed(r, buf + n + ADB_HDR_SIZE + 4, 0), 0);
	assert_int_equal(heads, 1);
	assert_int_equal(g.n, 2);
	assert_int_equal(adb_packet_reader_feed(r, buf + n + ADB_HDR_SIZE + 4, 6), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.payload[2], "0123456789", 10);
	assert_int_equal(heads, 1);
	/* Header and part of the payload together: one head again. */
	assert_int_equal(adb_packet_reader_feed(r, buf + n, m - 1), 0);
	assert_int_equal(heads, 2);
	assert_int_equal(adb_packet_reader_feed(r, buf + n + m - 1, 1), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(heads, 2);
	adb_packet_reader_free(r);
}

/* A payload received in place: the room is the rest of the payload and
 * no more, head() comes once before it, a fill past it counts nothing,
 * and the next header goes through feed again. */
static void test_reader_room(void **state)
{
	uint8_t buf[256], *room;
	size_t n = 0, len = 1;
	struct got g = { 0 };
	struct adb_packet_reader *r = adb_packet_reader_new(on_msg, &g);

	heads = 0;
	heads_got = &g;
	adb_packet_reader_set_head(r, on_head);
	/* No header yet, or half of one: no room. */
	assert_null(adb_packet_reader_room(r, &len));
	assert_int_equal(len, 0);
	assert_int_equal(adb_packet_reader_filled(r, 1), -EINVAL);
	put_msg(buf, ADB_WRTE, 5, 1, "0123456789");
	assert_int_equal(adb_packet_reader_feed(r, buf, 10), 0);
	assert_null(adb_packet_reader_room(r, &len));
	/* The header and 3 bytes of the payload by feed: room for 7. */
	assert_int_equal(adb_packet_reader_feed(r, buf + 10, ADB_HDR_SIZE + 3 - 10), 0);
	assert_int_equal(heads, 1);
	room = adb_packet_reader_room(r, &len);
	assert_non_null(room);
	assert_int_equal(len, 7);
	assert_int_equal(heads, 1);
	/* More than the room: refused, nothing counted. */
	assert_int_equal(adb_packet_reader_filled(r, 8), -EINVAL);
	assert_int_equal(g.n, 0);
	memcpy(room, buf + ADB_HDR_SIZE + 3, 2);
	assert_int_equal(adb_packet_reader_filled(r, 2), 0);
	assert_int_equal(g.n, 0);
	room = adb_packet_reader_room(r, &len);
	assert_int_equal(len, 5);
	memcpy(room, buf + ADB_HDR_SIZE + 5, 5);
	assert_int_equal(adb_packet_reader_filled(r, 5), 0);
	assert_int_equal(g.n, 1);
	assert_memory_equal(g.payload[0], "0123456789", 10);
	/* Whole: a header is wanted again. */
	assert_null(adb_packet_reader_room(r, &len));
	assert_int_equal(adb_packet_reader_filled(r, 0), -EINVAL);
	/* The header alone by feed: head() once, whether feed or room
	 * comes first, and the whole payload in place. */
	n = put_msg(buf, ADB_OKAY, 1, 5, NULL);
	put_msg(buf + n, ADB_WRTE, 5, 1, "abcdef");
	assert_int_equal(adb_packet_reader_feed(r, buf, n), 0);
	assert_int_equal(g.n, 2);
	assert_null(adb_packet_reader_room(r, &len)); /* payload-less */
	adb_packet_reader_set_head(r, NULL);
	assert_int_equal(adb_packet_reader_feed(r, buf + n, ADB_HDR_SIZE), 0);
	adb_packet_reader_set_head(r, on_head);
	room = adb_packet_reader_room(r, &len);
	assert_int_equal(heads, 2);
	assert_int_equal(len, 6);
	adb_packet_reader_room(r, &len);
	assert_int_equal(heads, 2);
	memcpy(room, "abcdef", 6);
	assert_int_equal(adb_packet_reader_filled(r, 6), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.payload[2], "abcdef", 6);
	/* The callback's error comes back from filled. */
	g.fail_at = 4;
	assert_int_equal(adb_packet_reader_feed(r, buf + n, ADB_HDR_SIZE), 0);
	room = adb_packet_reader_room(r, &len);
	memcpy(room, "abcdef", 6);
	assert_int_equal(adb_packet_reader_filled(r, 6), -EIO);
	/* A hostile length is refused at the header: never any room. */
	adb_packet_reader_set_max(r, 4);
	assert_int_equal(adb_packet_reader_feed(r, buf + n, ADB_HDR_SIZE), -EMSGSIZE);
	assert_null(adb_packet_reader_room(r, &len));
	adb_packet_reader_free(r);
}

/* The CNXN banner's features, from a hostile host: no "::", a NUL before
 * the end, a feature that only starts like the one asked for, an empty
 * list, other properties around it. */
static void test_banner_feature(void **state)
{
	static const struct {
		const char *banner;
		size_t len; /* 0: strlen */
		bool want;
	} cases[] = {
		{ "host::features=shell_v2,delayed_ack,cmd", 0, true },
		{ "host::features=delayed_ack", 0, true },
		{ "host::ro.product.name=x;features=abb,delayed_ack;ro.serialno=y", 0, true },
		{ "host::features=delayed_ack2,xdelayed_ack", 0, false },
		{ "host::features=", 0, false },
		{ "host:features=delayed_ack", 0, false },
		{ "features=delayed_ack", 0, false },
		{ "host::features=shell_v2\0,delayed_ack", 36, false },
		{ "host::features=delayed_ack", 20, false }, /* cut short */
		{ "", 0, false },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].banner);
		uint8_t *copy = malloc(len ? len : 1);

		/* Exactly len bytes on the heap: ASan sees a read past them. */
		assert_non_null(copy);
		memcpy(copy, cases[i].banner, len);
		if (adb_packet_banner_has_feature(copy, len, "delayed_ack") != cases[i].want)
			fail_msg("\"%s\" (%zu bytes): want %d", cases[i].banner, len, cases[i].want);
		free(copy);
	}
	assert_false(adb_packet_banner_has_feature(NULL, 0, "delayed_ack"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_validate_errors),
		cmocka_unit_test(test_cmd_name),
		cmocka_unit_test(test_reader_merged_and_split),
		cmocka_unit_test(test_reader_bad_magic_resets),
		cmocka_unit_test(test_reader_oversized),
		cmocka_unit_test(test_reader_unknown_command_delivered),
		cmocka_unit_test(test_reader_callback_error),
		cmocka_unit_test(test_reader_partial_payload_then_reset),
		cmocka_unit_test(test_reader_head),
		cmocka_unit_test(test_reader_room),
		cmocka_unit_test(test_banner_feature),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
