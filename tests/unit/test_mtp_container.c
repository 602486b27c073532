/* mtp_container (with mtp_buf, mtp_rd) and mtp_dataset: encoding, and
 * malformed input. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "mtp/mtp_container.h"
#include "mtp/mtp_dataset.h"
#include "mtp/mtp_proto.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static void test_str_ascii(void **state)
{
	static const uint8_t want[] = {4, 'a', 0, 'b', 0, 'c', 0, 0, 0};
	struct mtp_buf b;

	mtp_buf_init(&b);
	assert_int_equal(mtp_buf_str(&b, "abc"), 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	mtp_buf_reset(&b);
	assert_int_equal(mtp_buf_str(&b, ""), 0);
	assert_int_equal(b.len, 1);
	assert_int_equal(b.data[0], 0);
	mtp_buf_finish(&b);
}

static void test_str_utf16_roundtrip(void **state)
{
	/* e-acute (2 bytes), euro (3 bytes), U+1F600 (a surrogate pair) */
	const char *s = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	char out[MTP_STR_MAX + 1];
	struct mtp_buf b;
	struct mtp_rd r;

	mtp_buf_init(&b);
	assert_int_equal(mtp_buf_str(&b, s), 0);
	assert_int_equal(b.data[0], 5); /* 1 + 1 + 2 units + NUL */
	assert_int_equal(b.data[5] | b.data[6] << 8, 0xd83d);
	assert_int_equal(b.data[7] | b.data[8] << 8, 0xde00);
	mtp_rd_init(&r, b.data, b.len);
	assert_int_equal(mtp_rd_str(&r, out, sizeof(out)), 0);
	assert_string_equal(out, s);
	assert_int_equal(r.off, b.len);
	mtp_buf_finish(&b);
}

static void test_str_encode_rejects(void **state)
{
	char longname[300];
	struct mtp_buf b;

	mtp_buf_init(&b);
	assert_int_equal(mtp_buf_str(&b, "bad\xff"), -EINVAL);
	assert_int_equal(mtp_buf_str(&b, "\xc0\xaf"), -EINVAL); /* overlong */
	assert_int_equal(mtp_buf_str(&b, "\xed\xa0\x80"),
			 -EINVAL); /* surrogate */
	/* At most 255 units including the NUL. */
	memset(longname, 'x', 255);
	longname[255] = 0;
	assert_int_equal(mtp_buf_str(&b, longname), -EINVAL);
	longname[254] = 0;
	assert_int_equal(mtp_buf_str(&b, longname), 0);
	assert_int_equal(b.data[0], 255);
	mtp_buf_finish(&b);
}

/* Decode raw bytes as a PTP string. */
static int decode(const uint8_t *p, size_t len, char *out)
{
	struct mtp_rd r;

	mtp_rd_init(&r, p, len);
	return mtp_rd_str(&r, out, MTP_STR_MAX + 1);
}

static void test_str_decode_malformed(void **state)
{
	static const uint8_t truncated[] = {4, 'a', 0, 'b', 0};
	static const uint8_t no_nul[] = {2, 'a', 0, 'b', 0};
	static const uint8_t inner_nul[] = {3, 0, 0, 'b', 0, 0, 0};
	static const uint8_t lone_low[] = {2, 0x00, 0xdc, 0, 0};
	static const uint8_t high_at_end[] = {2, 0x3d, 0xd8, 0, 0};
	static const uint8_t high_then_a[] = {3, 0x3d, 0xd8, 'a', 0, 0, 0};
	static const uint8_t empty_count[] = {0};
	static const uint8_t only_nul[] = {1, 0, 0};
	char out[MTP_STR_MAX + 1];

	assert_int_equal(decode(truncated, sizeof(truncated), out), -EBADMSG);
	assert_int_equal(decode(no_nul, sizeof(no_nul), out), -EBADMSG);
	assert_int_equal(decode(inner_nul, sizeof(inner_nul), out), -EBADMSG);
	assert_int_equal(decode(lone_low, sizeof(lone_low), out), -EBADMSG);
	assert_int_equal(decode(high_at_end, sizeof(high_at_end), out),
			 -EBADMSG);
	assert_int_equal(decode(high_then_a, sizeof(high_then_a), out),
			 -EBADMSG);
	assert_int_equal(decode(NULL, 0, out), -EBADMSG);
	assert_int_equal(decode(empty_count, 1, out), 0);
	assert_string_equal(out, "");
	assert_int_equal(decode(only_nul, sizeof(only_nul), out), 0);
	assert_string_equal(out, "");
}

static void test_str_decode_small_output(void **state)
{
	static const uint8_t s[] = {4, 'a', 0, 'b', 0, 'c', 0, 0, 0};
	struct mtp_rd r;
	char out[3];

	mtp_rd_init(&r, s, sizeof(s));
	assert_int_equal(mtp_rd_str(&r, out, sizeof(out)), -EBADMSG);
}

static void test_reader_underrun_sticks(void **state)
{
	static const uint8_t p[] = {1, 2, 3};
	struct mtp_rd r;

	mtp_rd_init(&r, p, sizeof(p));
	assert_int_equal(mtp_rd_u16(&r), 0x0201);
	assert_int_equal(mtp_rd_u32(&r), 0);
	assert_int_equal(r.err, -EBADMSG);
	assert_int_equal(mtp_rd_u8(&r), 0); /* no read after an error */
}

static void test_parse_cmd(void **state)
{
	uint8_t p[32];
	uint32_t params[3] = {0x10001, 0, 0xffffffff};
	struct mtp_container c;
	size_t n =
	    mtp_container_build(p, MTP_TYPE_COMMAND, 0x1007, 9, params, 3);

	assert_int_equal(n, 24);
	assert_int_equal(mtp_container_parse_cmd(p, n, &c), 0);
	assert_int_equal(c.code, 0x1007);
	assert_int_equal(c.tid, 9);
	assert_int_equal(c.nparams, 3);
	assert_int_equal(c.params[2], 0xffffffff);
}

static void test_parse_cmd_malformed(void **state)
{
	uint8_t p[40];
	uint32_t params[5] = {1, 2, 3, 4, 5};
	struct mtp_container c;
	size_t n =
	    mtp_container_build(p, MTP_TYPE_COMMAND, 0x1002, 1, params, 1);

	/* length field larger / smaller than what arrived */
	assert_int_equal(mtp_container_parse_cmd(p, n - 1, &c), -EBADMSG);
	p[0] = 20;
	assert_int_equal(mtp_container_parse_cmd(p, n, &c), -EBADMSG);
	/* not a command */
	n = mtp_container_build(p, MTP_TYPE_DATA, 0x1002, 1, params, 1);
	assert_int_equal(mtp_container_parse_cmd(p, n, &c), -EBADMSG);
	/* a parameter area that is not whole u32s */
	n = mtp_container_build(p, MTP_TYPE_COMMAND, 0x1002, 1, params, 1);
	p[0] = 15;
	assert_int_equal(mtp_container_parse_cmd(p, 15, &c), -EBADMSG);
	/* six parameters */
	n = mtp_container_build(p, MTP_TYPE_COMMAND, 0x1002, 1, params, 5);
	memset(p + n, 0, 4);
	p[0] = n + 4;
	assert_int_equal(mtp_container_parse_cmd(p, n + 4, &c), -EBADMSG);
	/* shorter than a header, or a bogus type */
	assert_int_equal(mtp_container_parse_cmd(p, 11, &c), -EBADMSG);
	n = mtp_container_build(p, 7, 0x1002, 1, params, 0);
	assert_int_equal(mtp_container_parse_hdr(p, n, &c), -EBADMSG);
	/* a length below the header size */
	n = mtp_container_build(p, MTP_TYPE_COMMAND, 0x1002, 1, params, 0);
	p[0] = 4;
	assert_int_equal(mtp_container_parse_hdr(p, n, &c), -EBADMSG);
}

/* An ObjectInfo dataset as a host sends it for SendObjectInfo. */
static size_t build_objinfo(struct mtp_buf *b, const char *name, uint16_t fmt,
			    uint32_t size)
{
	mtp_buf_u32(b, 0x10001);
	mtp_buf_u16(b, fmt);
	mtp_buf_u16(b, 0);
	mtp_buf_u32(b, size);
	mtp_buf_u16(b, 0);
	for (int i = 0; i < 6; i++)
		mtp_buf_u32(b, 0);
	mtp_buf_u32(b, 0xffffffff);
	mtp_buf_u16(b, fmt == MTP_FMT_ASSOCIATION ? 1 : 0);
	mtp_buf_u32(b, 0);
	mtp_buf_u32(b, 0);
	mtp_buf_str(b, name);
	mtp_buf_str(b, "20260101T000000");
	mtp_buf_str(b, "20260101T000000");
	mtp_buf_str(b, "");
	return b->len;
}

static void test_objinfo_parse(void **state)
{
	struct mtp_objinfo oi;
	struct mtp_buf b;
	size_t n;

	mtp_buf_init(&b);
	n = build_objinfo(&b, "song.mp3", MTP_FMT_MP3, 1234);
	assert_int_equal(mtp_dataset_parse_object_info(b.data, n, &oi), 0);
	assert_string_equal(oi.name, "song.mp3");
	assert_int_equal(oi.format, MTP_FMT_MP3);
	assert_int_equal(oi.size, 1234);
	assert_int_equal(oi.parent, 0xffffffff);
	assert_int_equal(oi.storage, 0x10001);
	mtp_buf_finish(&b);
}

static void test_objinfo_malformed(void **state)
{
	struct mtp_objinfo oi;
	struct mtp_buf b;
	size_t n, name_end;

	mtp_buf_init(&b);
	n = build_objinfo(&b, "x.txt", MTP_FMT_TEXT, 1);
	/* The fixed part is 52 bytes, the name 1 + 6 * 2. */
	name_end = 52 + 13;
	/* Every cut before the end of the name fails. */
	for (size_t cut = 0; cut < name_end; cut++)
		assert_int_equal(
		    mtp_dataset_parse_object_info(b.data, cut, &oi), -EBADMSG);
	/* Ending right after the name is tolerated, a cut date is not. */
	assert_int_equal(mtp_dataset_parse_object_info(b.data, name_end, &oi),
			 0);
	assert_int_equal(
	    mtp_dataset_parse_object_info(b.data, name_end + 3, &oi), -EBADMSG);
	/* A name with a lone surrogate fails. */
	b.data[52 + 1] = 0x00;
	b.data[52 + 2] = 0xdc;
	assert_int_equal(mtp_dataset_parse_object_info(b.data, n, &oi),
			 -EBADMSG);
	mtp_buf_finish(&b);
}

/* An ObjectPropList as libmtp sends it with SendObjectPropList. */
static size_t build_send_props(struct mtp_buf *b, const char *name)
{
	mtp_buf_u32(b, 4);
	mtp_buf_u32(b, 0);
	mtp_buf_u16(b, MTP_PROP_PROTECTION_STATUS);
	mtp_buf_u16(b, MTP_DT_UINT16);
	mtp_buf_u16(b, 0);
	mtp_buf_u32(b, 0);
	mtp_buf_u16(b, 0xDC4F); /* NonConsumable */
	mtp_buf_u16(b, MTP_DT_UINT8);
	mtp_buf_u8(b, 0);
	mtp_buf_u32(b, 0);
	mtp_buf_u16(b, MTP_PROP_OBJECT_FILE_NAME);
	mtp_buf_u16(b, MTP_DT_STR);
	mtp_buf_str(b, name);
	mtp_buf_u32(b, 0);
	mtp_buf_u16(b, 0xDC99); /* something we do not know, an array */
	mtp_buf_u16(b, 0x4000 | MTP_DT_UINT32);
	mtp_buf_u32(b, 2);
	mtp_buf_u32(b, 7);
	mtp_buf_u32(b, 8);
	return b->len;
}

static void test_send_props(void **state)
{
	char name[MTP_STR_MAX + 1];
	struct mtp_buf b;
	size_t n;

	mtp_buf_init(&b);
	n = build_send_props(&b, "movie.mkv");
	assert_int_equal(mtp_dataset_parse_send_props(b.data, n, name,
						      sizeof(name)),
			 0);
	assert_string_equal(name, "movie.mkv");
	/* Every truncation is refused. */
	for (size_t cut = 0; cut < n; cut++)
		assert_int_equal(mtp_dataset_parse_send_props(b.data, cut, name,
							      sizeof(name)),
				 -EBADMSG);
	/* An unknown data type, and an array of strings, are refused. */
	b.data[n - 14] = 0x77;
	assert_int_equal(mtp_dataset_parse_send_props(b.data, n, name,
						      sizeof(name)),
			 -EBADMSG);
	b.data[n - 14] = MTP_DT_STR & 0xff;
	b.data[n - 13] = 0x40 | (MTP_DT_STR >> 8);
	assert_int_equal(mtp_dataset_parse_send_props(b.data, n, name,
						      sizeof(name)),
			 -EBADMSG);
	/* A well-formed list without a file name. */
	mtp_buf_reset(&b);
	mtp_buf_u32(&b, 1);
	mtp_buf_u32(&b, 0);
	mtp_buf_u16(&b, MTP_PROP_PROTECTION_STATUS);
	mtp_buf_u16(&b, MTP_DT_UINT16);
	mtp_buf_u16(&b, 0);
	assert_int_equal(mtp_dataset_parse_send_props(b.data, b.len, name,
						      sizeof(name)),
			 -ENOENT);
	/* A count far beyond the data. */
	b.data[0] = 0xff;
	assert_int_equal(mtp_dataset_parse_send_props(b.data, b.len, name,
						      sizeof(name)),
			 -EBADMSG);
	mtp_buf_finish(&b);
}

static void test_device_info(void **state)
{
	static const uint16_t ops[] = {0x1001, 0x1002};
	struct mtp_devinfo d = {
	    .manufacturer = "gadgetd",
	    .model = "m",
	    .version = "1.0",
	    .serial = "0",
	    .ops = ops,
	    .n_ops = 2,
	    .formats = mtp_dataset_formats,
	    .n_formats = mtp_dataset_n_formats,
	};
	char s[MTP_STR_MAX + 1];
	struct mtp_buf b;
	struct mtp_rd r;

	mtp_buf_init(&b);
	assert_int_equal(mtp_dataset_device_info(&b, &d), 0);
	mtp_rd_init(&r, b.data, b.len);
	assert_int_equal(mtp_rd_u16(&r), 100);
	assert_int_equal(mtp_rd_u32(&r), 6); /* the MTP vendor extension */
	assert_int_equal(mtp_rd_u16(&r), 100);
	assert_int_equal(mtp_rd_str(&r, s, sizeof(s)), 0);
	assert_string_equal(s, "microsoft.com: 1.0;");
	assert_int_equal(mtp_rd_u16(&r), 0);
	assert_int_equal(mtp_rd_u32(&r), 2);
	assert_int_equal(mtp_rd_u16(&r), 0x1001);
	mtp_buf_finish(&b);
}

static void test_props(void **state)
{
	struct mtp_obj_stat st = {
	    .handle = 7,
	    .storage = 0x10001,
	    .parent = 0,
	    .size = 5000000000ull,
	    .name = "a.bin",
	};
	/* handle 7, ObjectSize (0xDC04), UINT64 (0x0008), 5 000 000 000 */
	static const uint8_t size_entry[] = {
	    0x07, 0x00, 0x00, 0x00, 0x04, 0xdc, 0x08, 0x00,
	    0x00, 0xf2, 0x05, 0x2a, 0x01, 0x00, 0x00, 0x00,
	};
	struct mtp_buf b;
	struct mtp_rd r;
	uint32_t count;

	assert_int_equal(mtp_dataset_prop_type(MTP_PROP_OBJECT_SIZE),
			 MTP_DT_UINT64);
	assert_int_equal(mtp_dataset_prop_type(MTP_PROP_PERSISTENT_UID),
			 MTP_DT_UINT128);
	assert_int_equal(mtp_dataset_prop_type(0xdc99), 0);
	mtp_buf_init(&b);
	assert_int_equal(mtp_dataset_prop_desc(&b, 0xdc99), -ENOENT);
	assert_int_equal(mtp_dataset_prop_value(&b, &st, MTP_PROP_OBJECT_SIZE),
			 0);
	mtp_rd_init(&r, b.data, b.len);
	assert_true(mtp_rd_u64(&r) == 5000000000ull);
	mtp_buf_reset(&b);
	/* Every entry: handle/prop/type/value each, counted on top of what
	 * the caller counted before. */
	count = 3;
	assert_int_equal(mtp_dataset_prop_entries(&b, &st, 0xffffffff, &count),
			 0);
	assert_int_equal(count, 3 + mtp_dataset_n_props);
	mtp_rd_init(&r, b.data, b.len);
	assert_int_equal(mtp_rd_u32(&r), 7);
	assert_int_equal(mtp_rd_u16(&r), mtp_dataset_props[0]);
	assert_int_equal(mtp_rd_u16(&r), mtp_dataset_prop_type(mtp_dataset_props[0]));
	/* One property: exactly its entry's bytes. */
	mtp_buf_reset(&b);
	count = 0;
	assert_int_equal(mtp_dataset_prop_entries(&b, &st, MTP_PROP_OBJECT_SIZE,
						  &count),
			 0);
	assert_int_equal(count, 1);
	assert_int_equal(b.len, sizeof(size_entry));
	assert_memory_equal(b.data, size_entry, sizeof(size_entry));
	/* A property we do not have: nothing written, nothing counted. */
	mtp_buf_reset(&b);
	assert_int_equal(mtp_dataset_prop_entries(&b, &st, 0xdc99, &count),
			 -ENOENT);
	assert_int_equal(count, 1);
	assert_int_equal(b.len, 0);
	/* ObjectInfo clamps a size of 4 GiB or more to 0xFFFFFFFF. */
	mtp_buf_reset(&b);
	assert_int_equal(mtp_dataset_object_info(&b, &st), 0);
	mtp_rd_init(&r, b.data, b.len);
	mtp_rd_u32(&r);
	mtp_rd_u16(&r);
	mtp_rd_u16(&r);
	assert_int_equal(mtp_rd_u32(&r), 0xffffffff);
	mtp_buf_finish(&b);
}

/* Cancel Request's data stage (still image class 0x64): u16
 * CancelTransaction 0x4001, u32 transaction id. */
static void test_cancel_parse(void **state)
{
	static const uint8_t ok[] = {0x01, 0x40, 0x78, 0x56, 0x34, 0x12, 0xee};
	static const uint8_t other[] = {0x02, 0x40, 0x78, 0x56, 0x34, 0x12};
	static const uint8_t swapped[] = {0x40, 0x01, 0x78, 0x56, 0x34, 0x12};
	uint32_t tid = 0;

	assert_int_equal(mtp_container_parse_cancel(ok, MTP_CANCEL_LEN, &tid), 0);
	assert_int_equal(tid, 0x12345678);
	/* A longer stage is read the same; its tail is ignored. */
	tid = 0;
	assert_int_equal(mtp_container_parse_cancel(ok, sizeof(ok), &tid), 0);
	assert_int_equal(tid, 0x12345678);
	/* Short, another code, or the code big-endian: refused, tid kept. */
	tid = 9;
	for (size_t n = 0; n < MTP_CANCEL_LEN; n++)
		assert_int_equal(mtp_container_parse_cancel(ok, n, &tid),
				 -EBADMSG);
	assert_int_equal(mtp_container_parse_cancel(other, sizeof(other), &tid),
			 -EBADMSG);
	assert_int_equal(
	    mtp_container_parse_cancel(swapped, sizeof(swapped), &tid),
	    -EBADMSG);
	assert_int_equal(tid, 9);
}

/* Get Device Status's data stage (still image class 0x67): u16 wLength 4,
 * u16 response code, little-endian. */
/* Dates as MTP writes them; times gmtime_r() cannot break down, and
 * years past four digits, still give 15 characters. */
static void test_dates(void **state)
{
	static const struct {
		time_t t;
		const char *want;
	} cases[] = {
	    {0, "19700101T000000"},
	    {-1, "19691231T235959"},
	    {951782400, "20000229T000000"},
	    {1234567890, "20090213T233130"},
	    {1767225599, "20251231T235959"},
	    {253402300800, "99990101T000000"}, /* 10000-01-01 */
	    {INT64_MAX, "19700101T000000"},
	};
	char out[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 'x', sizeof(out));
		mtp_dataset_date(out, cases[i].t);
		assert_string_equal(out, cases[i].want);
	}
}

static void test_device_status(void **state)
{
	static const uint8_t ok[] = {0x04, 0x00, 0x01, 0x20};
	static const uint8_t busy[] = {0x04, 0x00, 0x19, 0x20};
	uint8_t out[MTP_DEVICE_STATUS_LEN + 1];

	memset(out, 0xaa, sizeof(out));
	assert_int_equal(mtp_container_device_status(out, MTP_RC_OK),
			 MTP_DEVICE_STATUS_LEN);
	assert_memory_equal(out, ok, sizeof(ok));
	assert_int_equal(out[MTP_DEVICE_STATUS_LEN], 0xaa);
	assert_int_equal(mtp_container_device_status(out, MTP_RC_DEVICE_BUSY),
			 MTP_DEVICE_STATUS_LEN);
	assert_memory_equal(out, busy, sizeof(busy));
}

static void test_formats(void **state)
{
	assert_int_equal(mtp_dataset_format_of("a.JPG", false),
			 MTP_FMT_EXIF_JPEG);
	assert_int_equal(mtp_dataset_format_of("noext", false),
			 MTP_FMT_UNDEFINED);
	assert_int_equal(mtp_dataset_format_of("dir.mp3", true),
			 MTP_FMT_ASSOCIATION);
	assert_true(mtp_dataset_format_known(MTP_FMT_UNDEFINED));
	assert_false(mtp_dataset_format_known(0x1234));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_str_ascii),
	    cmocka_unit_test(test_str_utf16_roundtrip),
	    cmocka_unit_test(test_str_encode_rejects),
	    cmocka_unit_test(test_str_decode_malformed),
	    cmocka_unit_test(test_str_decode_small_output),
	    cmocka_unit_test(test_reader_underrun_sticks),
	    cmocka_unit_test(test_parse_cmd),
	    cmocka_unit_test(test_parse_cmd_malformed),
	    cmocka_unit_test(test_objinfo_parse),
	    cmocka_unit_test(test_objinfo_malformed),
	    cmocka_unit_test(test_send_props),
	    cmocka_unit_test(test_device_info),
	    cmocka_unit_test(test_props),
	    cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_cancel_parse),
	    cmocka_unit_test(test_device_status),
	    cmocka_unit_test(test_dates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
