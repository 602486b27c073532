/*
 * libFuzzer target: the adb key code a file or a host feeds. The input is
 * at once an adb_keys file (loaded with adb_auth_reload), an RSAPUBLICKEY
 * payload (adb_auth_offer), a base64 key (adb_auth_parse_key) and an AUTH
 * SIGNATURE with no token outstanding (must be refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adb/adb_auth.h"
#include "fuzz_runtime.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_fp(const char *fp)
{
	static const char hex[] = "0123456789ABCDEF";

	if (strlen(fp) != ADB_AUTH_FP_SIZE - 1)
		abort();
	for (unsigned i = 0; i < ADB_AUTH_FP_SIZE - 1; i++)
		if (i % 3 == 2 ? fp[i] != ':' : !memchr(hex, fp[i], 16))
			abort();
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[200];
	uint8_t blob[ADB_AUTH_KEY_BLOB_SIZE];
	char fp[ADB_AUTH_FP_SIZE], list[128];
	struct adb_auth *a;
	int rc;

	if (!path[0]) {
		log_init("fuzz_adb_keys", true, LOG_LEVEL_ERROR);
		snprintf(path, sizeof(path), "%s/adb_keys",
			 fuzz_rt_scratch("fuzz_adb_keys"));
	}
	write_file(path, data, size);
	a = adb_auth_new(path);
	if (!a)
		return 0;
	rc = adb_auth_reload(a);
	if (rc < 0 || rc > 64)
		abort();
	rc = adb_auth_offer(a, data, size, fp);
	if (rc != -EINVAL && rc != 0 && rc != 1)
		abort();
	if (rc >= 0) {
		check_fp(fp);
		/* Offered keys are either in the file or now pending. */
		adb_auth_list_pending(a, list, sizeof(list));
		if (strlen(list) >= sizeof(list))
			abort();
	}
	if (adb_auth_verify(a, data, size) != -EPERM)
		abort(); /* no token was ever made */
	if (adb_auth_parse_key((const char *)data, size, blob) == 0) {
		if (blob[0] != 64 || blob[1] || blob[2] || blob[3])
			abort();
		adb_auth_fingerprint(blob, fp);
		check_fp(fp);
	}
	adb_auth_free(a);
	return 0;
}
