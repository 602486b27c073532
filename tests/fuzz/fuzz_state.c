/*
 * libFuzzer target: the state file (state_load), as a damaged disk or a
 * stray edit may leave it. Whatever loads must be names gadgetd can use
 * that survive a save and a load unchanged; whatever is refused is
 * refused whole, with a message naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_runtime.h"
#include "config.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[200], out[200];
	struct state st, st2;
	char err[1024];
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
	memset(&st, 0x55, sizeof(st));
	rc = state_load(in, &st, err, sizeof(err));
	if (rc == -ENOENT || (rc != 0 && rc != -EINVAL))
		abort();
	if (rc < 0) {
		/* Refused whole, and the message names the file. */
		if (st.profile[0] || st.set[0] || st.conf_profile[0] ||
		    strncmp(err, in, strlen(in)))
			abort();
		return 0;
	}
	if (!config_profile_name_ok(st.profile) ||
	    (st.conf_profile[0] && !config_profile_name_ok(st.conf_profile)) ||
	    strspn(st.set, "abcdefghijklmnopqrstuvwxyz0123456789_,") != strlen(st.set))
		abort();
	if (state_save(out, &st) != 0)
		abort();
	if (state_load(out, &st2, err, sizeof(err)) != 0)
		abort();
	if (memcmp(&st, &st2, sizeof(st)))
		abort(); /* what was saved does not read back the same */
	return 0;
}
