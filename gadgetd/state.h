/* state: the last set that worked, kept across restarts of gadgetd. */
#ifndef GADGETD_STATE_H
#define GADGETD_STATE_H

#include <stddef.h>

/* Read "profile=NAME\nset=a,b\n"; -ENOENT when there is no state, -EINVAL
 * when a line is missing or NAME is not a valid profile name. */
int state_load(const char *path, char *profile, size_t psize, char *set,
	       size_t ssize);
/* Write atomically (temporary file, fsync, rename). set "" means off. */
int state_save(const char *path, const char *profile, const char *set);

#endif
