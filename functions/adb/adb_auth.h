/*
 * adb_auth: who may talk to adbd. Holds the public keys of the adb_keys
 * file, checks AUTH SIGNATURE replies to our tokens, and remembers the
 * keys of hosts that offered an unknown RSAPUBLICKEY until an admin allows
 * them (`gadgetctl adb allow FINGERPRINT`).
 *
 * Fingerprints are MD5 of the decoded 524-byte key blob, as upper-case hex
 * pairs joined by ':' (what Android's "Allow USB debugging?" dialog shows).
 */
#ifndef GADGETD_ADB_AUTH_H
#define GADGETD_ADB_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ADB_AUTH_TOKEN 1
#define ADB_AUTH_SIGNATURE 2
#define ADB_AUTH_RSAPUBLICKEY 3

#define ADB_AUTH_TOKEN_SIZE 20
#define ADB_AUTH_KEY_BLOB_SIZE 524
#define ADB_AUTH_FP_SIZE 48 /* 16 pairs, 15 colons, NUL */
/* Refused signatures a connection remembers (adb_auth_signed_with()). */
#define ADB_AUTH_SIGNED_MAX 4

struct adb_auth;

/* keys_path: the adb_keys file; it need not exist. */
struct adb_auth *adb_auth_new(const char *keys_path);
void adb_auth_free(struct adb_auth *a);

/*
 * As root, before the worker becomes uid:gid: the keys file at path is
 * made root's, readable by group gid (0640) when missing, and taken back
 * when uid owns it (what gadgetd made before) or its group gid or anyone
 * may write it, since adb shells run as uid. A symbolic link is left
 * alone (and said); a file that is not a regular one is refused. 0 or
 * -errno.
 */
int adb_auth_prepare(const char *path, uid_t uid, gid_t gid);

/* Re-read the keys file (a missing file means no keys). Returns the
 * number of usable keys or -errno. */
int adb_auth_reload(struct adb_auth *a);

/* Make a new random token (it replaces the previous one). */
int adb_auth_new_token(struct adb_auth *a, uint8_t token[ADB_AUTH_TOKEN_SIZE]);

/* Invalidate the outstanding token, if any. */
void adb_auth_forget_token(struct adb_auth *a);

/* A new connection (or none): forget the outstanding token and the
 * signatures the last host sent (adb_auth_signed_with()). */
void adb_auth_reset(struct adb_auth *a);

/* 0 when sig signs the current token with one of the known keys, else
 * -EPERM (also when no token is outstanding). A token is used once. A
 * signature of the right size refused over a token is remembered with
 * it, the last ADB_AUTH_SIGNED_MAX of them: adb_auth_signed_with(). */
int adb_auth_verify(struct adb_auth *a, const uint8_t *sig, size_t len);

/*
 * The host offered its public key (RSAPUBLICKEY payload: "BASE64 comment",
 * maybe NUL-terminated). Returns 1 if the key is already allowed, 0 after
 * remembering it as pending, or -EINVAL for a malformed key. fp receives
 * the fingerprint in both success cases. A known key is NOT a proof of
 * anything: the caller must still have the host sign a token.
 */
int adb_auth_offer(struct adb_auth *a, const uint8_t *payload, size_t len,
		   char fp[ADB_AUTH_FP_SIZE]);

/* "FP comment\n" per pending key into out (NUL-terminated). */
void adb_auth_list_pending(const struct adb_auth *a, char *out, size_t size);

/* The line of the pending key fp (case-insensitive), "BASE64 comment"
 * as the host sent it, for the keys file; NULL if fp is not pending. */
const char *adb_auth_pending_line(const struct adb_auth *a, const char *fp);

/*
 * The key fp was added to the keys file (`gadgetctl adb allow`: gadgetd
 * appends to it, as the file is root's). Reads the file again; if fp was
 * pending here, it is trusted from now on (even when the file cannot be
 * read) and no longer pending. 0, or -ENOENT when fp was not pending here.
 * Allowing a key lets no host in by itself: the outstanding token, if any,
 * is invalidated, and a host must sign a token made after the allow
 * (adb_auth_new_token) with the key before it counts as proven, unless it
 * had signed one of its earlier tokens with it (adb_auth_signed_with()).
 */
int adb_auth_allowed(struct adb_auth *a, const char *fp);

/*
 * Whether a signature this connection's host sent, refused then (its key
 * was not trusted), verifies over its token with the key fp trusted now:
 * the host holds that key's private half, as the tokens were random and
 * sent to this host alone. AOSP hosts sign the first token with their
 * key and then offer its public half and wait, and adbd lets them in
 * once the user accepts the key. 1 (the remembered signatures are
 * forgotten), or 0: a host that only offered the key, or signed with
 * another, must sign a new token.
 */
int adb_auth_signed_with(struct adb_auth *a, const char *fp);

/*
 * Parse one key: base64 text of exactly len bytes (no comment) into the
 * 524-byte blob, checking the size and the modulus word count.
 * 0 or -EINVAL.
 */
int adb_auth_parse_key(const char *b64, size_t len,
		       uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE]);
void adb_auth_fingerprint(const uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE],
			  char fp[ADB_AUTH_FP_SIZE]);

#endif
