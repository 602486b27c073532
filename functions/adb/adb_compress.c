/* adb_compress: brotli, LZ4 frame and zstd streams for sync's SEND2/RECV2. */
#include "adb_compress.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <errno.h>
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/* LZ4F wants room for a whole compressed block: it is fed this much at a
 * time, and what it writes is staged and handed out in pieces. */
#define ADB_COMPRESS_LZ4_CHUNK (64 * 1024)
/* zstd's windowLog matching ADB_COMPRESS_WINDOW_MAX. */
#define ADB_COMPRESS_ZSTD_WLOG 23

struct adb_compress {
	enum adb_compress_type type;
	bool encode;
	bool ended; /* a stream/frame ended and nothing came after it */
	BrotliEncoderState *benc;
	BrotliDecoderState *bdec;
	LZ4F_cctx *lenc;
	LZ4F_dctx *ldec;
	ZSTD_CCtx *zenc;
	ZSTD_DCtx *zdec;
	/* LZ4 encoding: the frame's bytes not handed out yet. */
	uint8_t *stage;
	size_t stage_cap, stage_len, stage_off;
	bool begun;
};

const char *adb_compress_name(enum adb_compress_type type)
{
	switch (type) {
	case ADB_COMPRESS_BROTLI: return "brotli";
	case ADB_COMPRESS_LZ4: return "lz4";
	case ADB_COMPRESS_ZSTD: return "zstd";
	}
	return "?";
}

static int compress_lz4_new(struct adb_compress *c)
{
	LZ4F_preferences_t prefs = {0};

	if (!c->encode)
		return LZ4F_isError(LZ4F_createDecompressionContext(
			   &c->ldec, LZ4F_VERSION))
			   ? -ENOMEM
			   : 0;
	if (LZ4F_isError(LZ4F_createCompressionContext(&c->lenc, LZ4F_VERSION)))
		return -ENOMEM;
	c->stage_cap = LZ4F_compressBound(ADB_COMPRESS_LZ4_CHUNK, &prefs) +
		       LZ4F_HEADER_SIZE_MAX;
	c->stage = malloc(c->stage_cap);
	return c->stage ? 0 : -ENOMEM;
}

static int compress_zstd_new(struct adb_compress *c)
{
	if (c->encode) {
		c->zenc = ZSTD_createCCtx();
		/* Level 1, as adb: the link is the bottleneck. */
		if (c->zenc)
			ZSTD_CCtx_setParameter(c->zenc, ZSTD_c_compressionLevel,
					       1);
		return c->zenc ? 0 : -ENOMEM;
	}
	c->zdec = ZSTD_createDCtx();
	if (!c->zdec)
		return -ENOMEM;
	ZSTD_DCtx_setParameter(c->zdec, ZSTD_d_windowLogMax,
			       ADB_COMPRESS_ZSTD_WLOG);
	return 0;
}

struct adb_compress *adb_compress_new(enum adb_compress_type type, bool encode)
{
	struct adb_compress *c = calloc(1, sizeof(*c));
	int rc = -ENOMEM;

	if (!c)
		return NULL;
	c->type = type;
	c->encode = encode;
	switch (type) {
	case ADB_COMPRESS_BROTLI:
		if (encode) {
			c->benc = BrotliEncoderCreateInstance(NULL, NULL, NULL);
			if (c->benc) {
				BrotliEncoderSetParameter(
				    c->benc, BROTLI_PARAM_QUALITY, 1);
				rc = 0;
			}
		} else {
			c->bdec = BrotliDecoderCreateInstance(NULL, NULL, NULL);
			rc = c->bdec ? 0 : -ENOMEM;
		}
		break;
	case ADB_COMPRESS_LZ4: rc = compress_lz4_new(c); break;
	case ADB_COMPRESS_ZSTD: rc = compress_zstd_new(c); break;
	}
	if (rc < 0) {
		adb_compress_free(c);
		return NULL;
	}
	return c;
}

void adb_compress_free(struct adb_compress *c)
{
	if (!c)
		return;
	if (c->benc)
		BrotliEncoderDestroyInstance(c->benc);
	if (c->bdec)
		BrotliDecoderDestroyInstance(c->bdec);
	if (c->lenc)
		LZ4F_freeCompressionContext(c->lenc);
	if (c->ldec)
		LZ4F_freeDecompressionContext(c->ldec);
	ZSTD_freeCCtx(c->zenc);
	ZSTD_freeDCtx(c->zdec);
	free(c->stage);
	free(c);
}

static int compress_brotli_decode(struct adb_compress *c, const uint8_t *in,
				  size_t in_len, size_t *in_used, uint8_t *out,
				  size_t out_cap, size_t *out_len)
{
	size_t ai = in_len, ao = out_cap;
	const uint8_t *ni = in;
	uint8_t *no = out;
	BrotliDecoderResult r;

	if (c->ended)
		return in_len ? -EBADMSG : 1; /* one stream, nothing after */
	r = BrotliDecoderDecompressStream(c->bdec, &ai, &ni, &ao, &no, NULL);
	*in_used = in_len - ai;
	*out_len = out_cap - ao;
	switch (r) {
	case BROTLI_DECODER_RESULT_ERROR: return -EBADMSG;
	case BROTLI_DECODER_RESULT_SUCCESS: c->ended = true; return 1;
	case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
	case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: return 0;
	}
	return -EBADMSG;
}

static int compress_lz4_decode(struct adb_compress *c, const uint8_t *in,
			       size_t in_len, size_t *in_used, uint8_t *out,
			       size_t out_cap, size_t *out_len)
{
	size_t src = in_len, dst = out_cap, r;

	r = LZ4F_decompress(c->ldec, out, &dst, in, &src, NULL);
	*in_used = src;
	*out_len = dst;
	if (LZ4F_isError(r)) {
		/* The context is unusable after an error. */
		LZ4F_resetDecompressionContext(c->ldec);
		return -EBADMSG;
	}
	return r == 0 ? 1 : 0;
}

static int compress_zstd_decode(struct adb_compress *c, const uint8_t *in,
				size_t in_len, size_t *in_used, uint8_t *out,
				size_t out_cap, size_t *out_len)
{
	ZSTD_inBuffer ib = {in, in_len, 0};
	ZSTD_outBuffer ob = {out, out_cap, 0};
	size_t r = ZSTD_decompressStream(c->zdec, &ob, &ib);

	*in_used = ib.pos;
	*out_len = ob.pos;
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) ==
			       ZSTD_error_frameParameter_windowTooLarge
			   ? -EMSGSIZE
			   : -EBADMSG;
	return r == 0 ? 1 : 0;
}

int adb_compress_decode(struct adb_compress *c, const uint8_t *in,
			size_t in_len, size_t *in_used, uint8_t *out,
			size_t out_cap, size_t *out_len)
{
	int rc = -EBADMSG;

	*in_used = 0;
	*out_len = 0;
	if (c->encode)
		return -EINVAL;
	/* Between frames with no input, say so again: a new call would
	 * start a frame and lose that fact. */
	if (c->ended && in_len == 0)
		return 1;
	switch (c->type) {
	case ADB_COMPRESS_BROTLI:
		return compress_brotli_decode(c, in, in_len, in_used, out,
					      out_cap, out_len);
	case ADB_COMPRESS_LZ4:
		rc = compress_lz4_decode(c, in, in_len, in_used, out, out_cap,
					 out_len);
		break;
	case ADB_COMPRESS_ZSTD:
		rc = compress_zstd_decode(c, in, in_len, in_used, out, out_cap,
					  out_len);
		break;
	}
	if (rc == 0 && (*in_used || *out_len))
		c->ended = false;
	else if (rc == 1)
		c->ended = true;
	return rc;
}

static int compress_brotli_encode(struct adb_compress *c, const uint8_t *in,
				  size_t in_len, size_t *in_used, bool finish,
				  uint8_t *out, size_t out_cap, size_t *out_len)
{
	size_t ai = in_len, ao = out_cap;
	const uint8_t *ni = in;
	uint8_t *no = out;

	if (!BrotliEncoderCompressStream(c->benc,
					 finish ? BROTLI_OPERATION_FINISH
						: BROTLI_OPERATION_PROCESS,
					 &ai, &ni, &ao, &no, NULL))
		return -EIO;
	*in_used = in_len - ai;
	*out_len = out_cap - ao;
	return finish && BrotliEncoderIsFinished(c->benc) ? 1 : 0;
}

/* Hand out staged LZ4 bytes; true when the stage is empty. */
static bool compress_lz4_unstage(struct adb_compress *c, uint8_t *out,
				 size_t out_cap, size_t *out_len)
{
	size_t n = c->stage_len - c->stage_off;

	if (n > out_cap - *out_len)
		n = out_cap - *out_len;
	memcpy(out + *out_len, c->stage + c->stage_off, n);
	*out_len += n;
	c->stage_off += n;
	if (c->stage_off < c->stage_len)
		return false;
	c->stage_off = c->stage_len = 0;
	return true;
}

static int compress_lz4_encode(struct adb_compress *c, const uint8_t *in,
			       size_t in_len, size_t *in_used, bool finish,
			       uint8_t *out, size_t out_cap, size_t *out_len)
{
	size_t r;

	while (compress_lz4_unstage(c, out, out_cap, out_len)) {
		if (!c->begun) {
			r = LZ4F_compressBegin(c->lenc, c->stage, c->stage_cap,
					       NULL);
			c->begun = true;
		} else if (*in_used < in_len) {
			size_t n = in_len - *in_used;

			if (n > ADB_COMPRESS_LZ4_CHUNK)
				n = ADB_COMPRESS_LZ4_CHUNK;
			r = LZ4F_compressUpdate(c->lenc, c->stage, c->stage_cap,
						in + *in_used, n, NULL);
			if (!LZ4F_isError(r))
				*in_used += n;
		} else if (finish && !c->ended) {
			r = LZ4F_compressEnd(c->lenc, c->stage, c->stage_cap,
					     NULL);
			c->ended = true;
		} else {
			return c->ended ? 1 : 0;
		}
		if (LZ4F_isError(r))
			return -EIO;
		c->stage_len = r;
	}
	return 0;
}

static int compress_zstd_encode(struct adb_compress *c, const uint8_t *in,
				size_t in_len, size_t *in_used, bool finish,
				uint8_t *out, size_t out_cap, size_t *out_len)
{
	ZSTD_inBuffer ib = {in, in_len, 0};
	ZSTD_outBuffer ob = {out, out_cap, 0};
	size_t r = ZSTD_compressStream2(c->zenc, &ob, &ib,
					finish ? ZSTD_e_end : ZSTD_e_continue);

	*in_used = ib.pos;
	*out_len = ob.pos;
	if (ZSTD_isError(r))
		return -EIO;
	return finish && r == 0 ? 1 : 0;
}

int adb_compress_encode(struct adb_compress *c, const uint8_t *in,
			size_t in_len, size_t *in_used, bool finish,
			uint8_t *out, size_t out_cap, size_t *out_len)
{
	*in_used = 0;
	*out_len = 0;
	if (!c->encode)
		return -EINVAL;
	switch (c->type) {
	case ADB_COMPRESS_BROTLI:
		return compress_brotli_encode(c, in, in_len, in_used, finish,
					      out, out_cap, out_len);
	case ADB_COMPRESS_LZ4:
		return compress_lz4_encode(c, in, in_len, in_used, finish, out,
					   out_cap, out_len);
	case ADB_COMPRESS_ZSTD:
		return compress_zstd_encode(c, in, in_len, in_used, finish, out,
					    out_cap, out_len);
	}
	return -EINVAL;
}
