/*
 * libFuzzer target: the state file (state_load), as a damaged disk or a
 * stray edit may leave it. Whatever loads must be two NUL-terminated
 * lines' worth of text that survives a save and a load unchanged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_runtime.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[200], out[200];
	/* The sizes gadget.c passes. */
	char profile[256], set[512], profile2[256], set2[512];
	int fd, rc;

	if (!in[0]) {
		const char *dir = fuzz_rt_scratch("fuzz_state");

		snprintf(in, sizeof(in), "%s/state", dir);
		snprintf(out, sizeof(out), "%s/sub/state", dir);
	}
	fd = open(in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	rc = state_load(in, profile, sizeof(profile), set, sizeof(set));
	if (rc == -ENOENT || (rc != 0 && rc != -EINVAL))
		abort();
	if (rc < 0)
		return 0;
	if (strchr(profile, '\n') || strchr(set, '\n'))
		abort();
	if (state_save(out, profile, set) != 0)
		abort();
	if (state_load(out, profile2, sizeof(profile2), set2, sizeof(set2)) != 0)
		abort();
	if (strcmp(profile, profile2) || strcmp(set, set2))
		abort(); /* what was saved does not read back the same */
	return 0;
}
