/*
 * adb_compress: the streaming compressors of sync's SEND2/RECV2
 * (sendrecv_v2_brotli, _lz4, _zstd): a brotli stream, LZ4 frames, zstd
 * frames, as AOSP adb writes them.
 *
 * One call moves as much as fits from an input slice to an output slice,
 * so memory stays bounded whatever the stream: the decoders refuse
 * windows over ADB_COMPRESS_WINDOW_MAX, and nothing is ever buffered whole.
 * The bytes to decode come from the USB host: corrupt, truncated or
 * trailing data is an error, never a crash.
 */
#ifndef GADGETD_ADB_COMPRESS_H
#define GADGETD_ADB_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum adb_compress_type {
	ADB_COMPRESS_BROTLI,
	ADB_COMPRESS_LZ4,
	ADB_COMPRESS_ZSTD,
};

/* The largest history window a decoder accepts (zstd windowLog 23;
 * brotli's own limit is 16 MiB, LZ4's blocks are at most 4 MiB). */
#define ADB_COMPRESS_WINDOW_MAX (8u * 1024 * 1024)

struct adb_compress;

/* NULL when out of memory. */
struct adb_compress *adb_compress_new(enum adb_compress_type type, bool encode);
void adb_compress_free(struct adb_compress *c);
const char *adb_compress_name(enum adb_compress_type type);

/*
 * Decode: take bytes from in[0..in_len) (*in_used tells how many) and
 * put up to out_cap bytes into out (*out_len). Returns 1 when a stream
 * (or, for LZ4 and zstd, a frame) has just ended and the decoder has
 * nothing more to give, 0 otherwise (call again with more input, or with
 * the rest of the input, or with more room), -EBADMSG for corrupt data,
 * -EMSGSIZE for a window over ADB_COMPRESS_WINDOW_MAX, -ENOMEM.
 * After a brotli stream has ended, any further byte is -EBADMSG.
 */
int adb_compress_decode(struct adb_compress *c, const uint8_t *in,
			size_t in_len, size_t *in_used, uint8_t *out,
			size_t out_cap, size_t *out_len);

/*
 * Encode: like decode; with finish, the stream is ended once in is used
 * up: returns 1 when the last byte of the stream is out, 0 while there is
 * more to give (call again with finish and more room). Without finish
 * returns 0. -EIO or -ENOMEM on failure.
 */
int adb_compress_encode(struct adb_compress *c, const uint8_t *in,
			size_t in_len, size_t *in_used, bool finish,
			uint8_t *out, size_t out_cap, size_t *out_len);

#endif
