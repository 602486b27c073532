/* Test host keys: the adb public key format built with OpenSSL. */
#include "adb_testkey.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

struct adb_testkey {
	EVP_PKEY *pkey;
	uint8_t blob[524];
	char pub[800];
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* u32 words=64, u32 n0inv = -1/n mod 2^32, n, rr = 2^4096 mod n, u32 e;
 * numbers little-endian. */
static void build_blob(struct adb_testkey *k)
{
	BIGNUM *n = NULL, *e = NULL, *r32 = BN_new(), *inv = BN_new(),
	       *rr = BN_new();
	BN_CTX *ctx = BN_CTX_new();

	assert_true(EVP_PKEY_get_bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_N, &n));
	assert_true(EVP_PKEY_get_bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_E, &e));
	BN_set_bit(r32, 32);
	BN_mod_inverse(inv, n, r32, ctx);
	BN_sub(inv, r32, inv);
	BN_set_bit(rr, 4096);
	BN_mod(rr, rr, n, ctx);
	put32(k->blob, 64);
	put32(k->blob + 4, (uint32_t)BN_get_word(inv));
	BN_bn2lebinpad(n, k->blob + 8, 256);
	BN_bn2lebinpad(rr, k->blob + 264, 256);
	put32(k->blob + 520, (uint32_t)BN_get_word(e));
	BN_free(n);
	BN_free(e);
	BN_free(r32);
	BN_free(inv);
	BN_free(rr);
	BN_CTX_free(ctx);
}

struct adb_testkey *adb_testkey_new(void)
{
	struct adb_testkey *k = calloc(1, sizeof(*k));
	int n;

	assert_non_null(k);
	k->pkey = EVP_RSA_gen(2048);
	assert_non_null(k->pkey);
	build_blob(k);
	n = EVP_EncodeBlock((unsigned char *)k->pub, k->blob, sizeof(k->blob));
	strcpy(k->pub + n, " tester@unit");
	return k;
}

void adb_testkey_free(struct adb_testkey *k)
{
	EVP_PKEY_free(k->pkey);
	free(k);
}

const char *adb_testkey_pub(const struct adb_testkey *k)
{
	return k->pub;
}

const uint8_t *adb_testkey_blob(const struct adb_testkey *k)
{
	return k->blob;
}

size_t adb_testkey_sign(const struct adb_testkey *k, const uint8_t *token,
			uint8_t *sig, size_t size)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(k->pkey, NULL);
	size_t len = size;

	assert_non_null(ctx);
	assert_true(EVP_PKEY_sign_init(ctx) > 0);
	assert_true(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) > 0);
	assert_true(EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha1()) > 0);
	assert_true(EVP_PKEY_sign(ctx, sig, &len, token, 20) > 0);
	EVP_PKEY_CTX_free(ctx);
	return len;
}
