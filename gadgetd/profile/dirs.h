/*
 * dirs: the folders gadgetd owns (its runtime folder, the state file's
 * folder), made at start with the owner and mode they must have.
 */
#ifndef GADGETD_DIRS_H
#define GADGETD_DIRS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * mkdir -p path: missing parents are made 0755, path itself mode, both
 * whatever the umask, owned by whoever runs gadgetd (root). A folder that
 * exists is left as it is, owner and mode (it may be a shared one, such as
 * /var/lib). Returns 0 or -errno with err naming the path that failed and
 * why ("cannot create /var/lib/gadgetd: Read-only file system").
 */
int dirs_make(const char *path, mode_t mode, char *err, size_t err_size);

/* The folder of a file's path ("/var/lib/gadgetd/state" gives
 * "/var/lib/gadgetd"); "." for a bare name. */
void dirs_parent(const char *file, char *buf, size_t size);

#endif
