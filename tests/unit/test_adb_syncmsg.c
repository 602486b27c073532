/* adb_syncmsg: the sync request parser, fed in every possible split, and
 * the reply writers against hand-laid bytes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "adb/adb_syncmsg.h"

static size_t put_req(uint8_t *b, uint32_t id, const void *data, uint32_t len)
{
	adb_syncmsg_put32(b, id);
	adb_syncmsg_put32(b + 4, len);
	if (len)
		memcpy(b + 8, data, len);
	return 8 + len;
}

static void add(char *log, size_t size, const char *text, size_t len)
{
	size_t have = strlen(log);

	if (have + len >= size)
		len = size - have - 1;
	memcpy(log + have, text, len);
	log[have + len] = '\0';
}

/*
 * Run the parser over buf in pieces of step bytes and write a transcript:
 * "R<id>:<path>;" per request, "D<data>;" per DATA message (its pieces
 * glued), "E<mtime>;" per DONE.
 */
static int run(const uint8_t *buf, size_t len, size_t step, char *log,
	       size_t log_size)
{
	struct adb_syncmsg_parser p;
	size_t off = 0;
	int in_data = 0;

	adb_syncmsg_parser_init(&p);
	log[0] = '\0';
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		size_t pos = 0;

		while (pos < n) {
			struct adb_syncmsg_event ev;
			size_t used;
			int rc = adb_syncmsg_parse(&p, buf + off + pos, n - pos,
						   &used, &ev);
			char line[1200];

			if (rc < 0)
				return rc;
			assert_true(used > 0 || ev.type != ADB_SYNC_EV_NONE);
			pos += used;
			if (ev.type == ADB_SYNC_EV_NONE)
				continue;
			if (ev.type == ADB_SYNC_EV_DATA) {
				if (!in_data)
					add(log, log_size, "D", 1);
				add(log, log_size, (const char *)ev.data, ev.len);
				in_data = 1;
				continue;
			}
			if (in_data)
				add(log, log_size, ";", 1);
			in_data = 0;
			if (ev.type == ADB_SYNC_EV_REQUEST &&
			    (ev.id == ADB_SYNC_SND2 || ev.id == ADB_SYNC_RCV2))
				snprintf(line, sizeof(line), "R%.4s:%s,%o,%x;",
					 (const char *)&ev.id, ev.path,
					 ev.mode, ev.flags);
			else if (ev.type == ADB_SYNC_EV_REQUEST)
				snprintf(line, sizeof(line), "R%.4s:%s;",
					 (const char *)&ev.id, ev.path);
			else
				snprintf(line, sizeof(line), "E%u;", ev.mtime);
			add(log, log_size, line, strlen(line));
		}
		off += n;
	}
	return 0;
}

static void test_send_sequence_any_split(void **state)
{
	uint8_t buf[256];
	size_t n = 0;
	char log[512];

	n += put_req(buf + n, ADB_SYNC_STA2, "/sdcard", 7);
	n += put_req(buf + n, ADB_SYNC_SEND, "/tmp/x,33188", 12);
	n += put_req(buf + n, ADB_SYNC_DATA, "hello", 5);
	n += put_req(buf + n, ADB_SYNC_DATA, "", 0);
	n += put_req(buf + n, ADB_SYNC_DATA, "world", 5);
	adb_syncmsg_put32(buf + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(buf + n + 4, 1234);
	n += 8;
	n += put_req(buf + n, ADB_SYNC_QUIT, NULL, 0);
	for (size_t step = 1; step <= n; step++) {
		assert_int_equal(run(buf, n, step, log, sizeof(log)), 0);
		/* The empty DATA and the split of "hello" and "world" into two
		 * messages vanish in the glue: the bytes are what counts. */
		assert_string_equal(log, "RSTA2:/sdcard;RSEND:/tmp/x,33188;"
					 "Dhelloworld;E1234;RQUIT:;");
	}
}

/* sendrecv_v2: SND2 and RCV2 each with its setup message, any split. */
static void test_v2_requests_any_split(void **state)
{
	uint8_t buf[256];
	size_t n = 0;
	char log[512];

	n += put_req(buf + n, ADB_SYNC_SND2, "/tmp/x", 6);
	adb_syncmsg_put32(buf + n, ADB_SYNC_SND2);
	adb_syncmsg_put32(buf + n + 4, 0100644);
	adb_syncmsg_put32(buf + n + 8,
			  ADB_SYNC_FLAG_ZSTD | ADB_SYNC_FLAG_DRY_RUN);
	n += 12;
	n += put_req(buf + n, ADB_SYNC_DATA, "zz", 2);
	adb_syncmsg_put32(buf + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(buf + n + 4, 7);
	n += 8;
	n += put_req(buf + n, ADB_SYNC_RCV2, "/y", 2);
	adb_syncmsg_put32(buf + n, ADB_SYNC_RCV2);
	adb_syncmsg_put32(buf + n + 4, ADB_SYNC_FLAG_LZ4);
	n += 8;
	/* An empty path, too. */
	n += put_req(buf + n, ADB_SYNC_RCV2, NULL, 0);
	adb_syncmsg_put32(buf + n, ADB_SYNC_RCV2);
	adb_syncmsg_put32(buf + n + 4, 0);
	n += 8;
	for (size_t step = 1; step <= n; step++) {
		assert_int_equal(run(buf, n, step, log, sizeof(log)), 0);
		assert_string_equal(log, "RSND2:/tmp/x,100644,80000004;Dzz;E7;"
					 "RRCV2:/y,0,2;RRCV2:,0,0;");
	}
}

/* A setup message with another id than its request's is refused; one
 * cut short just waits. */
static void test_v2_bad_setup(void **state)
{
	uint8_t buf[64];
	size_t n;
	char log[128];

	n = put_req(buf, ADB_SYNC_SND2, "/x", 2);
	adb_syncmsg_put32(buf + n, ADB_SYNC_RCV2);
	adb_syncmsg_put32(buf + n + 4, 0644);
	adb_syncmsg_put32(buf + n + 8, 0);
	assert_int_equal(run(buf, n + 12, 1, log, sizeof(log)), -EPROTO);
	n = put_req(buf, ADB_SYNC_RCV2, "/x", 2);
	adb_syncmsg_put32(buf + n, ADB_SYNC_SEND);
	adb_syncmsg_put32(buf + n + 4, 0);
	assert_int_equal(run(buf, n + 8, 3, log, sizeof(log)), -EPROTO);
	adb_syncmsg_put32(buf + n, ADB_SYNC_RCV2);
	assert_int_equal(run(buf, n + 7, 1, log, sizeof(log)), 0);
	assert_string_equal(log, "");
}

static void test_path_too_long(void **state)
{
	uint8_t buf[8];
	struct adb_syncmsg_parser p;
	struct adb_syncmsg_event ev;
	size_t used;

	adb_syncmsg_parser_init(&p);
	adb_syncmsg_put32(buf, ADB_SYNC_RECV);
	adb_syncmsg_put32(buf + 4, ADB_SYNC_PATH_MAX + 1);
	assert_int_equal(adb_syncmsg_parse(&p, buf, 8, &used, &ev),
			 -ENAMETOOLONG);
	/* Exactly the maximum is fine. */
	adb_syncmsg_parser_init(&p);
	adb_syncmsg_put32(buf + 4, ADB_SYNC_PATH_MAX);
	assert_int_equal(adb_syncmsg_parse(&p, buf, 8, &used, &ev), 0);
	assert_int_equal(ev.type, ADB_SYNC_EV_NONE);
	assert_int_equal(used, 8);
}

static void test_nul_in_path(void **state)
{
	uint8_t buf[64];
	char log[64];
	size_t n = put_req(buf, ADB_SYNC_STAT, "/a\0b", 4);

	assert_int_equal(run(buf, n, n, log, sizeof(log)), -EINVAL);
	assert_int_equal(run(buf, n, 1, log, sizeof(log)), -EINVAL);
}

static void test_data_too_big(void **state)
{
	uint8_t buf[64];
	char log[64];
	size_t n = put_req(buf, ADB_SYNC_SEND, "/x,420", 6);

	adb_syncmsg_put32(buf + n, ADB_SYNC_DATA);
	adb_syncmsg_put32(buf + n + 4, ADB_SYNC_DATA_MAX + 1);
	assert_int_equal(run(buf, n + 8, n + 8, log, sizeof(log)), -EMSGSIZE);
}

static void test_unexpected_after_send(void **state)
{
	uint8_t buf[64];
	char log[64];
	size_t n = put_req(buf, ADB_SYNC_SEND, "/x,420", 6);

	n += put_req(buf + n, ADB_SYNC_STAT, "/", 1);
	assert_int_equal(run(buf, n, n, log, sizeof(log)), -EPROTO);
}

static void test_unknown_request(void **state)
{
	uint8_t buf[64];
	char log[64];
	size_t n = put_req(buf, ADB_SYNC_ID('D', 'A', 'T', 'A'), "zz", 2);

	/* DATA outside a SEND is not a request. */
	assert_int_equal(run(buf, n, n, log, sizeof(log)), -ENOTSUP);
	n = put_req(buf, 0xdeadbeef, NULL, 0);
	assert_int_equal(run(buf, n, n, log, sizeof(log)), -ENOTSUP);
}

static void test_truncated_waits(void **state)
{
	uint8_t buf[64];
	struct adb_syncmsg_parser p;
	struct adb_syncmsg_event ev;
	size_t used, n = put_req(buf, ADB_SYNC_LIST, "/proc", 5);

	adb_syncmsg_parser_init(&p);
	assert_int_equal(adb_syncmsg_parse(&p, buf, n - 1, &used, &ev), 0);
	assert_int_equal(ev.type, ADB_SYNC_EV_NONE);
	assert_int_equal(used, n - 1);
	assert_int_equal(adb_syncmsg_parse(&p, buf + n - 1, 1, &used, &ev), 0);
	assert_int_equal(ev.type, ADB_SYNC_EV_REQUEST);
	assert_int_equal(ev.id, ADB_SYNC_LIST);
	assert_string_equal(ev.path, "/proc");
}

/*
 * The reply writers, against bytes laid out by hand from AOSP's SYNC.TXT
 * and file_sync_protocol.h (packed, little-endian): stat_v1 {id, mode,
 * size, mtime}; stat_v2 {id, error, u64 dev, u64 ino, mode, nlink, uid,
 * gid, u64 size, i64 atime, i64 mtime, i64 ctime}; dent_v1 {id, mode,
 * size, mtime, namelen}; dent_v2 {stat_v2's fields, namelen}.
 */
#define FILL 0xee

static struct stat sample_stat(void)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = 0x0102030405060708ull;
	st.st_ino = 0x1112131415161718ull;
	st.st_mode = 0100644; /* 0x81a4 */
	st.st_nlink = 2;
	st.st_uid = 1000;
	st.st_gid = 1001;
	st.st_size = 0x123456789ll; /* over 32 bits: v1 keeps the low half */
	st.st_atime = 0x61000001;
	st.st_mtime = 0x161000002ll; /* past 2106: v1 keeps the low half */
	st.st_ctime = 0x61000003;
	return st;
}

/* The 64 bytes after STA2's id and error, for sample_stat(). */
#define SAMPLE_V2_BODY                                                  \
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* dev */       \
	0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, /* ino */       \
	0xa4, 0x81, 0x00, 0x00, /* mode */                              \
	0x02, 0x00, 0x00, 0x00, /* nlink */                             \
	0xe8, 0x03, 0x00, 0x00, /* uid */                               \
	0xe9, 0x03, 0x00, 0x00, /* gid */                               \
	0x89, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00, /* size */      \
	0x01, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00, 0x00, /* atime */     \
	0x02, 0x00, 0x00, 0x61, 0x01, 0x00, 0x00, 0x00, /* mtime */     \
	0x03, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00, 0x00  /* ctime */

/* buf holds want, and the byte after it was not touched. */
static void assert_wrote(const uint8_t *buf, const uint8_t *want, size_t len)
{
	assert_memory_equal(buf, want, len);
	assert_int_equal(buf[len], FILL);
}

static void test_put_header(void **state)
{
	static const uint8_t want[] = { 'F', 'A', 'I', 'L', 0x05, 0, 0, 0 };
	uint8_t buf[16];

	memset(buf, FILL, sizeof(buf));
	adb_syncmsg_put_header(buf, ADB_SYNC_FAIL, 5);
	assert_wrote(buf, want, sizeof(want));
}

static void test_put_stat_v1(void **state)
{
	static const uint8_t want[] = {
		'S', 'T', 'A', 'T', 0xa4, 0x81, 0x00, 0x00, /* id, mode */
		0x89, 0x67, 0x45, 0x23, 0x02, 0x00, 0x00, 0x61, /* size, mtime */
	};
	static const uint8_t failed[] = { 'S', 'T', 'A', 'T', 0, 0, 0, 0,
					  0,   0,   0,   0,   0, 0, 0, 0 };
	struct stat st = sample_stat();
	uint8_t buf[ADB_SYNC_STAT_V1_SIZE + 1];

	assert_int_equal(sizeof(want), ADB_SYNC_STAT_V1_SIZE);
	memset(buf, FILL, sizeof(buf));
	adb_syncmsg_put_stat_v1(buf, &st);
	assert_wrote(buf, want, sizeof(want));
	/* v1 has no error field: a failure is all zeros after the id. */
	memset(buf, FILL, sizeof(buf));
	adb_syncmsg_put_stat_v1(buf, NULL);
	assert_wrote(buf, failed, sizeof(failed));
}

static void test_put_stat_v2(void **state)
{
	static const uint8_t want[] = { 'S', 'T', 'A', '2', 0, 0, 0, 0,
					SAMPLE_V2_BODY };
	uint8_t failed[ADB_SYNC_STAT_V2_SIZE] = { 'L', 'S', 'T', '2',
						  0x02, 0, 0, 0 };
	struct stat st = sample_stat();
	uint8_t buf[ADB_SYNC_STAT_V2_SIZE + 1];

	assert_int_equal(sizeof(want), ADB_SYNC_STAT_V2_SIZE);
	memset(buf, FILL, sizeof(buf));
	adb_syncmsg_put_stat_v2(buf, ADB_SYNC_STA2, &st, 0);
	assert_wrote(buf, want, sizeof(want));
	/* An error: its errno, then zeros, whatever st holds. */
	memset(buf, FILL, sizeof(buf));
	adb_syncmsg_put_stat_v2(buf, ADB_SYNC_LST2, &st, ENOENT);
	assert_wrote(buf, failed, sizeof(failed));
}

static void test_put_dent_v1(void **state)
{
	static const uint8_t want[] = {
		'D',  'E',  'N',  'T',	0xa4, 0x81, 0x00, 0x00, /* id, mode */
		0x89, 0x67, 0x45, 0x23, 0x02, 0x00, 0x00, 0x61, /* size, mtime */
		0x02, 0x00, 0x00, 0x00, 'a',  'b', /* namelen, name */
	};
	struct stat st = sample_stat();
	uint8_t buf[64];

	memset(buf, FILL, sizeof(buf));
	assert_int_equal(adb_syncmsg_put_dent_v1(buf, &st, "abc", 2),
			 ADB_SYNC_DENT_V1_SIZE + 2);
	assert_wrote(buf, want, sizeof(want));
}

static void test_put_dent_v2(void **state)
{
	static const uint8_t want[] = { 'D', 'N', 'T', '2', 0, 0, 0, 0,
					SAMPLE_V2_BODY,
					0x02, 0x00, 0x00, 0x00, 'a', 'b' };
	uint8_t failed[ADB_SYNC_DENT_V2_SIZE + 1] = { 'D', 'N', 'T', '2',
						      0x0d, 0, 0, 0 };
	struct stat st = sample_stat();
	uint8_t buf[128];

	memset(buf, FILL, sizeof(buf));
	assert_int_equal(adb_syncmsg_put_dent_v2(buf, &st, 0, "ab", 2),
			 ADB_SYNC_DENT_V2_SIZE + 2);
	assert_wrote(buf, want, sizeof(want));
	/* An entry lstat() failed on: its errno, zeros, then the name. */
	failed[ADB_SYNC_STAT_V2_SIZE] = 1;
	failed[ADB_SYNC_DENT_V2_SIZE] = 'x';
	memset(buf, FILL, sizeof(buf));
	assert_int_equal(adb_syncmsg_put_dent_v2(buf, &st, EACCES, "x", 1),
			 ADB_SYNC_DENT_V2_SIZE + 1);
	assert_wrote(buf, failed, sizeof(failed));
}

static void test_put_list_done(void **state)
{
	uint8_t want[ADB_SYNC_DENT_V2_SIZE] = { 'D', 'O', 'N', 'E' };
	uint8_t buf[ADB_SYNC_DENT_V2_SIZE + 1];

	memset(buf, FILL, sizeof(buf));
	assert_int_equal(adb_syncmsg_put_list_done(buf, false),
			 ADB_SYNC_DENT_V1_SIZE);
	assert_wrote(buf, want, ADB_SYNC_DENT_V1_SIZE);
	memset(buf, FILL, sizeof(buf));
	assert_int_equal(adb_syncmsg_put_list_done(buf, true),
			 ADB_SYNC_DENT_V2_SIZE);
	assert_wrote(buf, want, ADB_SYNC_DENT_V2_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_sequence_any_split),
		cmocka_unit_test(test_v2_requests_any_split),
		cmocka_unit_test(test_v2_bad_setup),
		cmocka_unit_test(test_path_too_long),
		cmocka_unit_test(test_nul_in_path),
		cmocka_unit_test(test_data_too_big),
		cmocka_unit_test(test_unexpected_after_send),
		cmocka_unit_test(test_unknown_request),
		cmocka_unit_test(test_truncated_waits),
		cmocka_unit_test(test_put_header),
		cmocka_unit_test(test_put_stat_v1),
		cmocka_unit_test(test_put_stat_v2),
		cmocka_unit_test(test_put_dent_v1),
		cmocka_unit_test(test_put_dent_v2),
		cmocka_unit_test(test_put_list_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
