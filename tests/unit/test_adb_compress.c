/*
 * adb_compress: each codec round-trips through small and odd-sized output
 * slices; corrupt, truncated, trailing and oversized-window input is an
 * error, never a crash.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adb/adb_compress.h"

static const enum adb_compress_type types[] = {
	ADB_COMPRESS_BROTLI,
	ADB_COMPRESS_LZ4,
	ADB_COMPRESS_ZSTD,
};

struct buf {
	uint8_t *b;
	size_t len, cap;
};

static void buf_add(struct buf *b, const uint8_t *d, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->b = realloc(b->b, b->cap);
		assert_non_null(b->b);
	}
	memcpy(b->b + b->len, d, n);
	b->len += n;
}

/* Encode in[0..len) fed in pieces of step, output slices of out_step. */
static void encode(enum adb_compress_type type, const uint8_t *in, size_t len,
		   size_t step, size_t out_step, struct buf *out)
{
	struct adb_compress *c = adb_compress_new(type, true);
	uint8_t tmp[70000];
	size_t off = 0;
	int rc = 0;

	assert_non_null(c);
	assert_true(out_step <= sizeof(tmp));
	while (rc != 1) {
		size_t n = len - off < step ? len - off : step;
		bool last = off + n == len;
		size_t used, got;

		rc = adb_compress_encode(c, in + off, n, &used, last, tmp,
					 out_step, &got);
		assert_true(rc >= 0);
		off += used;
		buf_add(out, tmp, got);
	}
	assert_int_equal(off, len);
	adb_compress_free(c);
}

/*
 * Decode in[0..len) fed in pieces of step, into slices of out_step.
 * Returns 1 when the input ended exactly at a stream's end, 0 when it
 * was cut short, or the decoder's error.
 */
static int decode(enum adb_compress_type type, const uint8_t *in, size_t len,
		  size_t step, size_t out_step, struct buf *out)
{
	struct adb_compress *c = adb_compress_new(type, false);
	uint8_t tmp[70000];
	size_t off = 0;
	int rc = 0;

	assert_non_null(c);
	for (;;) {
		size_t n = len - off < step ? len - off : step;
		size_t used, got;

		rc = adb_compress_decode(c, in + off, n, &used, tmp, out_step,
					 &got);
		if (rc < 0)
			break;
		off += used;
		buf_add(out, tmp, got);
		if (off == len && got < out_step)
			break;
		assert_true(used || got || off < len);
	}
	if (rc >= 0) {
		size_t used, got;

		/* Asked again with nothing: the same answer, no bytes. */
		rc =
		    adb_compress_decode(c, NULL, 0, &used, tmp, out_step, &got);
		assert_int_equal(got, 0);
	}
	adb_compress_free(c);
	return rc;
}

static uint8_t *sample(size_t len, bool random)
{
	uint8_t *b = malloc(len);
	uint32_t x = 12345;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245 + 12345;
		b[i] = random ? (uint8_t)(x >> 24)
			      : (uint8_t) "gadgetd adb sync "[i % 17];
	}
	return b;
}

static void test_round_trips(void **state)
{
	static const size_t lens[] = {0, 1, 4095, 65536, 300000};
	static const size_t steps[][2] = {
	    {65536, 65536}, {7, 13}, {100000, 65536}};

	for (size_t t = 0; t < 3; t++)
		for (size_t l = 0; l < 5; l++)
			for (int r = 0; r < 2; r++)
				for (size_t s = 0; s < 3; s++) {
					struct buf z = {0}, o = {0};
					uint8_t *in;

					if (lens[l] > 70000 &&
					    steps[s][1] < 100)
						continue; /* slow, nothing new
							   */
					in = sample(lens[l], r);
					encode(types[t], in, lens[l],
					       steps[s][0], steps[s][1], &z);
					assert_int_equal(
					    decode(types[t], z.b, z.len,
						   steps[s][0], steps[s][1],
						   &o),
					    1);
					assert_int_equal(o.len, lens[l]);
					if (lens[l])
						assert_memory_equal(o.b, in,
								    lens[l]);
					/* Brotli at quality 1 codes each tiny
					 * piece on its own: no ratio there. */
					if (!r && lens[l] > 4096 && s != 1)
						assert_true(z.len <
							    lens[l] / 4);
					free(in);
					free(z.b);
					free(o.b);
				}
}

static void test_truncated(void **state)
{
	uint8_t *in = sample(200000, false);

	for (size_t t = 0; t < 3; t++) {
		struct buf z = {0};

		encode(types[t], in, 200000, 65536, 65536, &z);
		/* Every cut short of the end leaves the stream unfinished
		 * (or, for a cut inside a header, corrupt). */
		for (size_t cut = 0; cut < z.len; cut += 1 + cut / 3) {
			struct buf o = {0};

			assert_true(
			    decode(types[t], z.b, cut, 4096, 65536, &o) <= 0);
			free(o.b);
		}
		free(z.b);
	}
	free(in);
}

static void test_corrupt(void **state)
{
	uint8_t *in = sample(100000, true);
	uint8_t *junk = sample(5000, true);

	for (size_t t = 0; t < 3; t++) {
		struct buf z = {0}, o = {0};
		int bad = 0;

		/* Random bytes are no stream. */
		assert_true(decode(types[t], junk, 5000, 5000, 65536, &o) < 0 ||
			    o.len == 0);
		free(o.b);
		encode(types[t], in, 100000, 65536, 65536, &z);
		/* Flip one bit at many places: never a crash, and most
		 * flips are caught (or change the bytes). */
		for (size_t at = 0; at < z.len; at += 97) {
			struct buf f = {0}, d = {0};
			int rc;

			buf_add(&f, z.b, z.len);
			f.b[at] ^= 0x10;
			rc = decode(types[t], f.b, f.len, 65536, 65536, &d);
			if (rc != 1 || d.len != 100000 ||
			    memcmp(d.b, in, 100000))
				bad++;
			free(f.b);
			free(d.b);
		}
		assert_true(bad > 0);
		free(z.b);
	}
	free(in);
	free(junk);
}

/* Bytes after a brotli stream's end are corrupt; zstd and LZ4 take a
 * second frame but not half of one. */
static void test_trailing(void **state)
{
	uint8_t *in = sample(5000, false);

	for (size_t t = 0; t < 3; t++) {
		struct buf z = {0}, o = {0};
		size_t one;

		encode(types[t], in, 5000, 5000, 65536, &z);
		one = z.len;
		buf_add(&z, z.b, one);
		if (types[t] == ADB_COMPRESS_BROTLI) {
			assert_int_equal(
			    decode(types[t], z.b, z.len, 65536, 65536, &o),
			    -EBADMSG);
		} else {
			assert_int_equal(
			    decode(types[t], z.b, z.len, 65536, 65536, &o), 1);
			assert_int_equal(o.len, 10000);
			free(o.b);
			o = (struct buf){0};
			assert_int_equal(
			    decode(types[t], z.b, one + 3, 65536, 65536, &o),
			    0);
		}
		free(o.b);
		free(z.b);
	}
	free(in);
}

/* A zstd frame that asks for a 1 GiB window is refused before anything
 * is allocated for it. */
static void test_zstd_window_too_large(void **state)
{
	/* magic, frame header descriptor 0, window descriptor exponent 20
	 * (windowLog 30), then a raw last block of 1 byte. */
	static const uint8_t frame[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00,
					0xa0, 0x09, 0x00, 0x00, 'x'};
	struct buf o = {0};

	assert_int_equal(
	    decode(ADB_COMPRESS_ZSTD, frame, sizeof(frame), 64, 65536, &o),
	    -EMSGSIZE);
	free(o.b);
	assert_string_equal(adb_compress_name(ADB_COMPRESS_LZ4), "lz4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trips),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_trailing),
	    cmocka_unit_test(test_zstd_window_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
