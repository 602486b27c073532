/* A throw-away adb host key for tests: what adb keeps in ~/.android/adbkey. */
#ifndef ADB_TESTKEY_H
#define ADB_TESTKEY_H

#include <stddef.h>
#include <stdint.h>

struct adb_testkey;

/* A fresh 2048-bit RSA key. */
struct adb_testkey *adb_testkey_new(void);
void adb_testkey_free(struct adb_testkey *k);
/* "BASE64 name" as in adbkey.pub (NUL-terminated, no newline). */
const char *adb_testkey_pub(const struct adb_testkey *k);
/* The 524-byte blob. */
const uint8_t *adb_testkey_blob(const struct adb_testkey *k);
/* Sign a 20-byte token as adb does; returns the signature length. */
size_t adb_testkey_sign(const struct adb_testkey *k, const uint8_t *token,
			uint8_t *sig, size_t size);

#endif
