/*
 * libFuzzer target: the sendrecv_v2 decoders (adb_compress.c) on what a
 * hostile host pushes. Byte 0 picks the codec (mod 3) and byte 1 how the
 * rest is cut into pieces; the output slices vary too. Checks: a decoder
 * never reports more than it was given or room for, an ended stream
 * reports its end again when asked with nothing, and it never crashes.
 * Output is bounded per input so that a stream that expands a lot only
 * costs time, as in the plugin.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adb/adb_compress.h"

#define FUZZ_OUT_MAX (64u * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum adb_compress_type types[] = {
	    ADB_COMPRESS_BROTLI,
	    ADB_COMPRESS_LZ4,
	    ADB_COMPRESS_ZSTD,
	};
	static uint8_t out[65536];
	struct adb_compress *c;
	size_t step, off = 2, total = 0;
	int rc = 0;

	if (size < 2)
		return 0;
	c = adb_compress_new(types[data[0] % 3], false);
	if (!c)
		return 0;
	step = data[1] ? data[1] * 16u : 65536;
	while (total < FUZZ_OUT_MAX) {
		size_t n = size - off < step ? size - off : step;
		size_t cap = 1 + (total + off) % sizeof(out), used, got;

		rc = adb_compress_decode(c, data + off, n, &used, out, cap,
					 &got);
		if (used > n || got > cap)
			abort();
		if (rc < 0)
			break;
		off += used;
		total += got;
		if (off == size && got < cap)
			break;
		if (!used && !got && rc != 1)
			break;
	}
	if (rc == 1) {
		size_t used, got;

		if (adb_compress_decode(c, NULL, 0, &used, out, sizeof(out),
					&got) != 1 ||
		    got)
			abort();
	}
	adb_compress_free(c);
	return 0;
}
