/* adb_auth: adb_keys, token signatures and pending host keys. */
#include "adb_auth.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "log.h"

#define ADB_AUTH_MAX_KEYS 64
#define ADB_AUTH_MAX_PENDING 8
#define ADB_AUTH_MODULUS_WORDS 64
/* base64 of 524 bytes is 700 characters; leave room for the comment. */
#define ADB_AUTH_LINE_MAX 2048

struct adb_key {
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE];
	EVP_PKEY *pkey;
};

struct adb_pending {
	char fp[ADB_AUTH_FP_SIZE];
	char *line; /* "BASE64 comment" as the host sent it */
};

/* A signature refused over one of our tokens, kept for the allow. */
struct adb_signed {
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	uint8_t sig[ADB_AUTH_MODULUS_WORDS * 4];
};

struct adb_auth {
	char *path;
	struct adb_key keys[ADB_AUTH_MAX_KEYS];
	unsigned n_keys;
	struct adb_pending pending[ADB_AUTH_MAX_PENDING];
	unsigned n_pending;
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	int have_token;
	struct adb_signed signed_[ADB_AUTH_SIGNED_MAX];
	unsigned n_signed;   /* how many are kept, at most SIGNED_MAX */
	unsigned next_signed; /* where the next one goes */
};

static uint32_t auth_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int auth_b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Strict base64 (with '=' padding) into out; returns bytes or -EINVAL. */
static ssize_t auth_b64_decode(const char *in, size_t len, uint8_t *out,
			       size_t out_size)
{
	size_t n = 0;

	if (len == 0 || len % 4 != 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int j = 0; j < 4; j++) {
			char c = in[i + j];
			if (c == '=' && i + 4 == len && j >= 2) {
				v[j] = 0;
				pad++;
			} else if (pad || (v[j] = auth_b64_value(c)) < 0) {
				return -EINVAL;
			}
		}
		uint32_t w = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];
		uint8_t bytes[3] = { w >> 16, w >> 8, w };
		if (n + 3 - pad > out_size)
			return -EINVAL;
		memcpy(out + n, bytes, 3 - pad);
		n += 3 - pad;
	}
	return n;
}

int adb_auth_parse_key(const char *b64, size_t len,
		       uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE])
{
	uint8_t buf[ADB_AUTH_KEY_BLOB_SIZE + 3];
	ssize_t n = auth_b64_decode(b64, len, buf, sizeof(buf));

	if (n != ADB_AUTH_KEY_BLOB_SIZE)
		return -EINVAL;
	if (auth_get_le32(buf) != ADB_AUTH_MODULUS_WORDS)
		return -EINVAL;
	memcpy(blob, buf, ADB_AUTH_KEY_BLOB_SIZE);
	return 0;
}

void adb_auth_fingerprint(const uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE],
			  char fp[ADB_AUTH_FP_SIZE])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;

	EVP_Digest(blob, ADB_AUTH_KEY_BLOB_SIZE, md, &md_len, EVP_md5(), NULL);
	for (unsigned i = 0; i < 16; i++)
		snprintf(fp + 3 * i, 4, i < 15 ? "%02X:" : "%02X", md[i]);
}

/* The blob holds n as 64 little-endian words, i.e. little-endian bytes. */
static EVP_PKEY *auth_blob_to_pkey(const uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE])
{
	BIGNUM *n = BN_lebin2bn(blob + 8, 256, NULL);
	BIGNUM *e = BN_new();
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	EVP_PKEY *pkey = NULL;

	if (!n || !e || !bld || !ctx ||
	    !BN_set_word(e, auth_get_le32(blob + 8 + 512)) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(ctx);
	BN_free(n);
	BN_free(e);
	return pkey;
}

struct adb_auth *adb_auth_new(const char *keys_path)
{
	struct adb_auth *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->path = strdup(keys_path);
	if (!a->path) {
		free(a);
		return NULL;
	}
	return a;
}

static void auth_drop_keys(struct adb_auth *a)
{
	for (unsigned i = 0; i < a->n_keys; i++)
		EVP_PKEY_free(a->keys[i].pkey);
	a->n_keys = 0;
}

void adb_auth_free(struct adb_auth *a)
{
	if (!a)
		return;
	auth_drop_keys(a);
	for (unsigned i = 0; i < a->n_pending; i++)
		free(a->pending[i].line);
	free(a->path);
	free(a);
}

/* Split "BASE64 comment" into the key's extent; returns its length. */
static size_t auth_key_token_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] && !isspace((unsigned char)s[n]))
		n++;
	return n;
}

static int auth_add_key(struct adb_auth *a,
			const uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE])
{
	EVP_PKEY *pkey;

	for (unsigned i = 0; i < a->n_keys; i++)
		if (!memcmp(a->keys[i].blob, blob, ADB_AUTH_KEY_BLOB_SIZE))
			return 0;
	if (a->n_keys == ADB_AUTH_MAX_KEYS)
		return -ENOSPC;
	pkey = auth_blob_to_pkey(blob);
	if (!pkey)
		return -EINVAL;
	memcpy(a->keys[a->n_keys].blob, blob, ADB_AUTH_KEY_BLOB_SIZE);
	a->keys[a->n_keys++].pkey = pkey;
	return 0;
}

static void auth_load_line(struct adb_auth *a, const char *line,
			   unsigned lineno)
{
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE];
	size_t n;

	while (isspace((unsigned char)*line))
		line++;
	if (*line == '\0' || *line == '#')
		return;
	n = auth_key_token_len(line, strlen(line));
	if (adb_auth_parse_key(line, n, blob) < 0 || auth_add_key(a, blob) < 0)
		log_warnx("adb: %s:%u: not a usable adb public key", a->path,
			  lineno);
}

int adb_auth_reload(struct adb_auth *a)
{
	char line[ADB_AUTH_LINE_MAX];
	unsigned lineno = 0;
	FILE *f;

	auth_drop_keys(a);
	f = fopen(a->path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		log_warn("adb: cannot read %s", a->path);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		auth_load_line(a, line, lineno);
	}
	fclose(f);
	return a->n_keys;
}

int adb_auth_new_token(struct adb_auth *a, uint8_t token[ADB_AUTH_TOKEN_SIZE])
{
	if (RAND_bytes(a->token, sizeof(a->token)) != 1)
		return -EIO;
	memcpy(token, a->token, sizeof(a->token));
	a->have_token = 1;
	return 0;
}

static int auth_verify_one(EVP_PKEY *pkey, const uint8_t *token,
			   const uint8_t *sig, size_t len)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
	int ok;

	/* adbd's RSA_verify(NID_sha1, token, ...): the token is used as
	 * the digest inside a SHA-1 DigestInfo. */
	ok = ctx && EVP_PKEY_verify_init(ctx) > 0 &&
	     EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) > 0 &&
	     EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha1()) > 0 &&
	     EVP_PKEY_verify(ctx, sig, len, token, ADB_AUTH_TOKEN_SIZE) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok;
}

void adb_auth_forget_token(struct adb_auth *a)
{
	OPENSSL_cleanse(a->token, sizeof(a->token));
	a->have_token = 0;
}

void adb_auth_reset(struct adb_auth *a)
{
	adb_auth_forget_token(a);
	OPENSSL_cleanse(a->signed_, sizeof(a->signed_));
	a->n_signed = a->next_signed = 0;
}

/* A signature no trusted key made, over the outstanding token: kept with
 * the token, the oldest giving way, in case its key is allowed next. */
static void auth_remember_signed(struct adb_auth *a, const uint8_t *sig,
				 size_t len)
{
	struct adb_signed *s = &a->signed_[a->next_signed];

	if (len != sizeof(s->sig))
		return; /* no key of ours makes another size */
	memcpy(s->token, a->token, sizeof(s->token));
	memcpy(s->sig, sig, len);
	a->next_signed = (a->next_signed + 1) % ADB_AUTH_SIGNED_MAX;
	if (a->n_signed < ADB_AUTH_SIGNED_MAX)
		a->n_signed++;
}

int adb_auth_verify(struct adb_auth *a, const uint8_t *sig, size_t len)
{
	int rc = -EPERM;

	if (!a->have_token)
		return -EPERM;
	for (unsigned i = 0; i < a->n_keys; i++) {
		/* A signature is exactly as long as the key's modulus. */
		if (len != (size_t)EVP_PKEY_get_size(a->keys[i].pkey))
			continue;
		if (auth_verify_one(a->keys[i].pkey, a->token, sig, len)) {
			rc = 0;
			break;
		}
	}
	if (rc < 0)
		auth_remember_signed(a, sig, len);
	/* Used once, whatever the outcome: no replay, no second guess. */
	adb_auth_forget_token(a);
	return rc;
}

int adb_auth_signed_with(struct adb_auth *a, const char *fp)
{
	char key_fp[ADB_AUTH_FP_SIZE];
	EVP_PKEY *pkey = NULL;

	for (unsigned i = 0; i < a->n_keys && !pkey; i++) {
		adb_auth_fingerprint(a->keys[i].blob, key_fp);
		if (!strcasecmp(key_fp, fp))
			pkey = a->keys[i].pkey;
	}
	for (unsigned i = 0; pkey && i < a->n_signed; i++) {
		const struct adb_signed *s = &a->signed_[i];

		if (auth_verify_one(pkey, s->token, s->sig, sizeof(s->sig))) {
			adb_auth_reset(a);
			return 1;
		}
	}
	return 0;
}

static int auth_known_blob(const struct adb_auth *a,
			   const uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE])
{
	for (unsigned i = 0; i < a->n_keys; i++)
		if (!memcmp(a->keys[i].blob, blob, ADB_AUTH_KEY_BLOB_SIZE))
			return 1;
	return 0;
}

static int auth_remember_pending(struct adb_auth *a, const char *fp,
				 const char *text, size_t len)
{
	struct adb_pending *p;

	for (unsigned i = 0; i < a->n_pending; i++)
		if (!strcmp(a->pending[i].fp, fp))
			return 0;
	if (a->n_pending == ADB_AUTH_MAX_PENDING) {
		/* Forget the oldest offer rather than refuse a new host. */
		free(a->pending[0].line);
		memmove(a->pending, a->pending + 1,
			sizeof(a->pending[0]) * (ADB_AUTH_MAX_PENDING - 1));
		a->n_pending--;
	}
	p = &a->pending[a->n_pending];
	p->line = strndup(text, len);
	if (!p->line)
		return -ENOMEM;
	memcpy(p->fp, fp, ADB_AUTH_FP_SIZE);
	a->n_pending++;
	return 0;
}

int adb_auth_offer(struct adb_auth *a, const uint8_t *payload, size_t len,
		   char fp[ADB_AUTH_FP_SIZE])
{
	const char *text = (const char *)payload;
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE];
	size_t n, line_len = 0;
	int rc;

	while (line_len < len && text[line_len] != '\0' &&
	       text[line_len] != '\n')
		line_len++;
	n = auth_key_token_len(text, line_len);
	if (adb_auth_parse_key(text, n, blob) < 0)
		return -EINVAL;
	/* Control characters would end up in the keys file. */
	for (size_t i = 0; i < line_len; i++)
		if ((unsigned char)text[i] < 0x20 && text[i] != '\t')
			return -EINVAL;
	adb_auth_fingerprint(blob, fp);
	if (auth_known_blob(a, blob))
		return 1;
	rc = auth_remember_pending(a, fp, text, line_len);
	return rc < 0 ? rc : 0;
}

void adb_auth_list_pending(const struct adb_auth *a, char *out, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return;
	out[0] = '\0';
	for (unsigned i = 0; i < a->n_pending && used < size; i++) {
		const char *line = a->pending[i].line;
		const char *comment =
		    line + auth_key_token_len(line, strlen(line));
		int n;

		while (isspace((unsigned char)*comment))
			comment++;
		n = snprintf(out + used, size - used, "%s %s\n",
			     a->pending[i].fp, *comment ? comment : "(no name)");
		if (n < 0)
			break;
		used += n;
	}
}

static struct adb_pending *auth_find_pending(const struct adb_auth *a,
					     const char *fp)
{
	for (unsigned i = 0; i < a->n_pending; i++)
		if (!strcasecmp(a->pending[i].fp, fp))
			return (struct adb_pending *)&a->pending[i];
	return NULL;
}

const char *adb_auth_pending_line(const struct adb_auth *a, const char *fp)
{
	const struct adb_pending *p = auth_find_pending(a, fp);

	return p ? p->line : NULL;
}

int adb_auth_allowed(struct adb_auth *a, const char *fp)
{
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE];
	struct adb_pending *p;

	adb_auth_reload(a);
	p = auth_find_pending(a, fp);
	if (!p)
		return -ENOENT;
	/* Parsed when it was offered; trusted here even if the file the
	 * key went to cannot be read back. */
	if (adb_auth_parse_key(p->line, auth_key_token_len(p->line,
		strlen(p->line)), blob) == 0 && auth_add_key(a, blob) < 0)
		log_warnx("adb: no room for key %s beside the %u of %s", fp,
			  a->n_keys, a->path);
	free(p->line);
	memmove(p, p + 1,
		sizeof(*p) * (a->n_pending - (size_t)(p - a->pending) - 1));
	a->n_pending--;
	/* A token sent while the key was unknown may already have been
	 * answered or seen; what proves the key is a token made from now on. */
	adb_auth_forget_token(a);
	return 0;
}

/*
 * The keys file as the worker found it (fd, st), made just now or not:
 * root's, and writable by neither uid nor, through group gid or others,
 * any adb shell. Only what uid could write is changed.
 */
static int auth_prepare_file(int fd, const struct stat *st, const char *keys,
			     bool made, uid_t uid, gid_t gid)
{
	mode_t mode = st->st_mode & 07777;
	int r;

	if (!S_ISREG(st->st_mode)) {
		log_warnx("adb: keys = \"%s\": not a regular file", keys);
		return -EINVAL;
	}
	if (made || (uid != 0 && st->st_uid == uid)) {
		if (fchown(fd, 0, gid) < 0 || fchmod(fd, 0640) < 0) {
			r = -errno;
			log_warn("adb: cannot make %s root's (group %u, 0640)",
				 keys, (unsigned)gid);
			return r;
		}
		if (made)
			log_info("adb: made an empty %s (root's, group %u, 0640)",
				 keys, (unsigned)gid);
		else
			log_warnx("adb: %s belonged to the worker's user (uid %u), "
				  "whose adb shells could add keys to it or empty "
				  "it; it is root's now (group %u, 0640)", keys,
				  (unsigned)uid, (unsigned)gid);
		return 0;
	}
	if (uid == 0 || !((st->st_gid == gid && (mode & S_IWGRP)) ||
			  (mode & S_IWOTH)))
		return 0;
	mode &= ~(mode_t)(S_IWGRP | S_IWOTH);
	if (fchmod(fd, mode) < 0) {
		r = -errno;
		log_warn("adb: cannot take write permission on %s from its group "
			 "and others", keys);
		return r;
	}
	log_warnx("adb: %s was writable by the worker's group or by anyone, so "
		  "by adb shells; it is %04o now", keys, (unsigned)mode);
	return 0;
}

/*
 * As root, before the worker becomes uid:gid. The keys file is root's,
 * readable by the worker's group: the worker's user, which adb's shells
 * run as, must not be able to add a key to it or empty it, or an allowed
 * host could let itself in for good, and stay in after an admin revoked
 * its key. gadgetd appends to it on `gadgetctl adb allow`
 * (plugin_keys_append()). A missing file is made so (root, group gid,
 * 0640); one that an older gadgetd made for uid is taken back.
 */
int adb_auth_prepare(const char *keys, uid_t uid, gid_t gid)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd = open(keys, flags | O_CREAT | O_EXCL, 0640), r;
	bool made = fd >= 0;
	struct stat st;

	if (fd < 0 && errno == EEXIST)
		fd = open(keys, flags);
	if (fd < 0) {
		/* No folder: adb_auth says so when it reads. */
		if (errno == ELOOP)
			log_warnx("adb: %s is a symbolic link: gadgetd adds no "
				  "key to it (`gadgetctl adb allow`)", keys);
		return 0;
	}
	r = fstat(fd, &st) < 0 ? -errno
			       : auth_prepare_file(fd, &st, keys, made, uid, gid);
	close(fd);
	return r;
}
