/* adb_auth: keys file, signatures, pending keys, allow. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "adb/adb_auth.h"
#include "adb_testkey.h"

struct fixture {
	char dir[64];
	char path[128];
	struct adb_testkey *key, *other;
};

static struct adb_testkey *shared_key, *shared_other;

static int group_setup(void **state)
{
	/* RSA key generation is slow under ASan: make two, once. */
	shared_key = adb_testkey_new();
	shared_other = adb_testkey_new();
	return 0;
}

static int group_teardown(void **state)
{
	adb_testkey_free(shared_key);
	adb_testkey_free(shared_other);
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test_adb_auth.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/adb_keys", f->dir);
	f->key = shared_key;
	f->other = shared_other;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void write_keys(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Answer a fresh token with k's signature; returns adb_auth_verify's. */
static int sign_and_verify(struct adb_auth *a, struct adb_testkey *k)
{
	uint8_t token[ADB_AUTH_TOKEN_SIZE], sig[512];
	size_t n;

	assert_int_equal(adb_auth_new_token(a, token), 0);
	n = adb_testkey_sign(k, token, sig, sizeof(sig));
	return adb_auth_verify(a, sig, n);
}

static void test_missing_file_means_no_keys(void **state)
{
	struct fixture *f = *state;
	struct adb_auth *a = adb_auth_new(f->path);

	assert_int_equal(adb_auth_reload(a), 0);
	assert_int_equal(sign_and_verify(a, f->key), -EPERM);
	adb_auth_free(a);
}

static void test_signature_from_known_key(void **state)
{
	struct fixture *f = *state;
	char text[2048];
	struct adb_auth *a;

	snprintf(text, sizeof(text), "# comment\n\n%s\n%s\n",
		 adb_testkey_pub(f->other), adb_testkey_pub(f->key));
	write_keys(f->path, text);
	a = adb_auth_new(f->path);
	assert_int_equal(adb_auth_reload(a), 2);
	assert_int_equal(sign_and_verify(a, f->key), 0);
	assert_int_equal(sign_and_verify(a, f->other), 0);
	adb_auth_free(a);
}

static void test_bad_signatures(void **state)
{
	struct fixture *f = *state;
	uint8_t token[ADB_AUTH_TOKEN_SIZE], sig[512];
	struct adb_auth *a;
	size_t n;

	write_keys(f->path, adb_testkey_pub(f->key));
	a = adb_auth_new(f->path);
	assert_int_equal(adb_auth_reload(a), 1);
	/* The wrong key. */
	assert_int_equal(sign_and_verify(a, f->other), -EPERM);
	/* A signature over another token. */
	assert_int_equal(adb_auth_new_token(a, token), 0);
	token[0] ^= 1;
	n = adb_testkey_sign(f->key, token, sig, sizeof(sig));
	assert_int_equal(adb_auth_verify(a, sig, n), -EPERM);
	/* A token answers once only. */
	assert_int_equal(adb_auth_new_token(a, token), 0);
	n = adb_testkey_sign(f->key, token, sig, sizeof(sig));
	assert_int_equal(adb_auth_verify(a, sig, n), 0);
	assert_int_equal(adb_auth_verify(a, sig, n), -EPERM);
	/* Truncated and empty signatures. */
	assert_int_equal(adb_auth_new_token(a, token), 0);
	n = adb_testkey_sign(f->key, token, sig, sizeof(sig));
	assert_int_equal(adb_auth_verify(a, sig, n - 1), -EPERM);
	assert_int_equal(adb_auth_new_token(a, token), 0);
	assert_int_equal(adb_auth_verify(a, sig, 0), -EPERM);
	/* A failed try uses the token up: the right answer comes too late. */
	assert_int_equal(adb_auth_new_token(a, token), 0);
	n = adb_testkey_sign(f->key, token, sig, sizeof(sig));
	assert_int_equal(adb_auth_verify(a, sig, n - 1), -EPERM);
	assert_int_equal(adb_auth_verify(a, sig, n), -EPERM);
	/* A forgotten token (the connection ended) answers nothing. */
	assert_int_equal(adb_auth_new_token(a, token), 0);
	n = adb_testkey_sign(f->key, token, sig, sizeof(sig));
	adb_auth_forget_token(a);
	assert_int_equal(adb_auth_verify(a, sig, n), -EPERM);
	adb_auth_free(a);
}

static void test_malformed_key_lines_skipped(void **state)
{
	struct fixture *f = *state;
	char text[4096], bad[800];
	struct adb_auth *a;

	/* One character off, a truncated key, junk, then a good one. */
	strcpy(bad, adb_testkey_pub(f->other));
	bad[10] = '*';
	snprintf(text, sizeof(text), "%s\nQUFBQQ== short\n!!!!\n%.400s\n%s\n",
		 bad, adb_testkey_pub(f->other), adb_testkey_pub(f->key));
	write_keys(f->path, text);
	a = adb_auth_new(f->path);
	assert_int_equal(adb_auth_reload(a), 1);
	assert_int_equal(sign_and_verify(a, f->key), 0);
	assert_int_equal(sign_and_verify(a, f->other), -EPERM);
	adb_auth_free(a);
}

static void test_parse_key_errors(void **state)
{
	struct fixture *f = *state;
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE], raw[ADB_AUTH_KEY_BLOB_SIZE];
	char b64[800];
	const char *pub = adb_testkey_pub(f->key);
	size_t len = strcspn(pub, " ");

	assert_int_equal(adb_auth_parse_key(pub, len, blob), 0);
	assert_memory_equal(blob, adb_testkey_blob(f->key), sizeof(blob));
	assert_int_equal(adb_auth_parse_key(pub, len - 4, blob), -EINVAL);
	assert_int_equal(adb_auth_parse_key(pub, len - 1, blob), -EINVAL);
	assert_int_equal(adb_auth_parse_key("", 0, blob), -EINVAL);
	assert_int_equal(adb_auth_parse_key("====", 4, blob), -EINVAL);
	/* Right size, wrong modulus word count. */
	memcpy(raw, adb_testkey_blob(f->key), sizeof(raw));
	raw[0] = 32;
	EVP_EncodeBlock((unsigned char *)b64, raw, sizeof(raw));
	assert_int_equal(adb_auth_parse_key(b64, strlen(b64), blob), -EINVAL);
}

static void test_fingerprint_is_md5_of_blob(void **state)
{
	struct fixture *f = *state;
	unsigned char md[16];
	unsigned int n;
	char fp[ADB_AUTH_FP_SIZE], want[ADB_AUTH_FP_SIZE];

	EVP_Digest(adb_testkey_blob(f->key), ADB_AUTH_KEY_BLOB_SIZE, md, &n,
		   EVP_md5(), NULL);
	for (int i = 0; i < 16; i++)
		sprintf(want + 3 * i, i < 15 ? "%02X:" : "%02X", md[i]);
	adb_auth_fingerprint(adb_testkey_blob(f->key), fp);
	assert_string_equal(fp, want);
	assert_int_equal(strlen(fp), 47);
}

/* What gadgetd does on `adb allow` (the file is root's): the line. */
static void gadgetd_appends(const char *path, const char *line)
{
	FILE *fp = fopen(path, "a");

	assert_non_null(fp);
	fprintf(fp, "%s\n", line);
	assert_int_equal(fclose(fp), 0);
}

static void test_offer_pending_allow(void **state)
{
	struct fixture *f = *state;
	struct adb_auth *a = adb_auth_new(f->path);
	const char *pub = adb_testkey_pub(f->key);
	char fp[ADB_AUTH_FP_SIZE], lower[ADB_AUTH_FP_SIZE], list[512];
	const char *line;

	assert_int_equal(adb_auth_reload(a), 0);
	/* adb sends the public key NUL-terminated. */
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub,
					strlen(pub) + 1, fp), 0);
	/* Offered twice, listed once. */
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub, strlen(pub),
					fp), 0);
	adb_auth_list_pending(a, list, sizeof(list));
	assert_non_null(strstr(list, fp));
	assert_non_null(strstr(list, "tester@unit"));
	assert_ptr_equal(strstr(list, fp), strrchr(list, ':') - 44);
	assert_int_equal(sign_and_verify(a, f->key), -EPERM);
	assert_null(adb_auth_pending_line(a, "00:11:22"));
	assert_int_equal(adb_auth_allowed(a, "00:11:22"), -ENOENT);
	for (int i = 0; fp[i] || (lower[i] = 0); i++)
		lower[i] = (fp[i] >= 'A' && fp[i] <= 'F') ? fp[i] + 32 : fp[i];
	/* The line for the keys file is the one the host sent. */
	line = adb_auth_pending_line(a, lower);
	assert_non_null(line);
	assert_string_equal(line, pub);
	gadgetd_appends(f->path, line);
	assert_int_equal(adb_auth_allowed(a, lower), 0);
	assert_int_equal(sign_and_verify(a, f->key), 0);
	/* Nothing pending any more; the key is known now. */
	adb_auth_list_pending(a, list, sizeof(list));
	assert_string_equal(list, "");
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub, strlen(pub),
					fp), 1);
	/* And a new instance loads it from the file. */
	adb_auth_free(a);
	a = adb_auth_new(f->path);
	assert_int_equal(adb_auth_reload(a), 1);
	assert_int_equal(sign_and_verify(a, f->key), 0);
	adb_auth_free(a);
}

/*
 * Allowing a pending key proves nothing about the host that offered it: a
 * token outstanding at the allow is dead, and only a signature over a
 * token made after the allow counts.
 */
static void test_allow_needs_new_token(void **state)
{
	struct fixture *f = *state;
	struct adb_auth *a = adb_auth_new(f->path);
	const char *pub = adb_testkey_pub(f->key);
	uint8_t first[ADB_AUTH_TOKEN_SIZE], pending[ADB_AUTH_TOKEN_SIZE];
	uint8_t sig_first[512], sig_pending[512];
	size_t n_first, n_pending;
	char fp[ADB_AUTH_FP_SIZE];

	assert_int_equal(adb_auth_reload(a), 0);
	/* What adb does with an unknown key: sign the first token (refused),
	 * then answer the second with its public key. */
	assert_int_equal(adb_auth_new_token(a, first), 0);
	n_first = adb_testkey_sign(f->key, first, sig_first, sizeof(sig_first));
	assert_int_equal(adb_auth_verify(a, sig_first, n_first), -EPERM);
	assert_int_equal(adb_auth_new_token(a, pending), 0);
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub,
					strlen(pub) + 1, fp), 0);
	/* Someone holding the key signs the token that was outstanding. */
	n_pending = adb_testkey_sign(f->key, pending, sig_pending,
				     sizeof(sig_pending));
	/* gadgetd wrote nothing here: the key is trusted all the same. */
	assert_int_equal(adb_auth_allowed(a, fp), 0);
	/* Neither the token outstanding at the allow nor the first one
	 * counts, before or after a new token is made. */
	assert_int_equal(adb_auth_verify(a, sig_pending, n_pending), -EPERM);
	assert_int_equal(adb_auth_verify(a, sig_first, n_first), -EPERM);
	assert_int_equal(adb_auth_new_token(a, first), 0);
	assert_int_equal(adb_auth_verify(a, sig_first, n_first), -EPERM);
	assert_int_equal(adb_auth_new_token(a, first), 0);
	assert_int_equal(adb_auth_verify(a, sig_pending, n_pending), -EPERM);
	/* Another key's signature over the new token does not either. */
	assert_int_equal(sign_and_verify(a, f->other), -EPERM);
	/* The allowed key over a token made after the allow does. */
	assert_int_equal(sign_and_verify(a, f->key), 0);
	adb_auth_free(a);
}

/*
 * A host that signed one of its tokens with a key nobody trusted yet, and
 * then offered that key, is proven once the key is allowed; one that
 * signed with another key, or whose connection started over, is not.
 */
static void test_signed_with(void **state)
{
	struct fixture *f = *state;
	const char *pub = adb_testkey_pub(f->key);
	char fp[ADB_AUTH_FP_SIZE];
	struct adb_auth *a;

	/* Signed with the key, then offered it. */
	a = adb_auth_new(f->path);
	assert_int_equal(sign_and_verify(a, f->other), -EPERM);
	assert_int_equal(sign_and_verify(a, f->key), -EPERM);
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub,
					strlen(pub) + 1, fp), 0);
	/* Not trusted yet: no key to check with. */
	assert_int_equal(adb_auth_signed_with(a, fp), 0);
	assert_int_equal(adb_auth_allowed(a, fp), 0);
	assert_int_equal(adb_auth_signed_with(a, fp), 1);
	/* Used: forgotten. */
	assert_int_equal(adb_auth_signed_with(a, fp), 0);
	adb_auth_free(a);

	/* Signed with another key only. */
	a = adb_auth_new(f->path);
	assert_int_equal(sign_and_verify(a, f->other), -EPERM);
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub,
					strlen(pub) + 1, fp), 0);
	assert_int_equal(adb_auth_allowed(a, fp), 0);
	assert_int_equal(adb_auth_signed_with(a, fp), 0);
	adb_auth_free(a);

	/* Signed with the key, then the connection started over. */
	a = adb_auth_new(f->path);
	assert_int_equal(sign_and_verify(a, f->key), -EPERM);
	adb_auth_reset(a);
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)pub,
					strlen(pub) + 1, fp), 0);
	assert_int_equal(adb_auth_allowed(a, fp), 0);
	assert_int_equal(adb_auth_signed_with(a, fp), 0);
	adb_auth_free(a);
}

static void test_offer_malformed(void **state)
{
	struct fixture *f = *state;
	struct adb_auth *a = adb_auth_new(f->path);
	char fp[ADB_AUTH_FP_SIZE], text[900], list[64];

	assert_int_equal(adb_auth_offer(a, (const uint8_t *)"", 0, fp), -EINVAL);
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)"abc", 3, fp),
			 -EINVAL);
	/* A control character in the comment would corrupt the file. */
	snprintf(text, sizeof(text), "%s", adb_testkey_pub(f->key));
	strcat(text, "\x1b[2J");
	assert_int_equal(adb_auth_offer(a, (const uint8_t *)text, strlen(text),
					fp), -EINVAL);
	adb_auth_list_pending(a, list, sizeof(list));
	assert_string_equal(list, "");
	adb_auth_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing_file_means_no_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signature_from_known_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_signatures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_key_lines_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_key_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprint_is_md5_of_blob, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offer_pending_allow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_needs_new_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signed_with, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offer_malformed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
