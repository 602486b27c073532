/*
 * mtp_prep: a storage's folder, readied as root before the MTP worker
 * becomes its function's user (plugin.h, prepare). The worker cannot do
 * this later: it runs unprivileged, confined to its storages.
 */
#ifndef GADGETD_MTP_PREP_H
#define GADGETD_MTP_PREP_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Storage i's folder path (option storageN_path):
 *  - it exists: it is handed to uid:gid and closed to others (o-rwx);
 *    only the folder itself, what the board put inside keeps its owner;
 *  - it is missing and create is set (storageN_create = true): it is
 *    made like mkdir -p, missing parents root's and 0755, the folder
 *    uid:gid's and 0750. An existing parent is never changed. The path
 *    must be absolute without "." or ".." and is walked without following
 *    any link: a link on the way is refused (-ELOOP);
 *  - it is missing and create is not set: left for init to report (a typo
 *    must not make a folder).
 * Returns 0 or -errno, after logging which option and which folder failed.
 * name starts the log lines ("mtp", mtp.h's struct mtp_flavour).
 */
int mtp_prep_storage(const char *name, unsigned i, const char *path,
		     bool create, uid_t uid, gid_t gid);

/* Log, once, why the worker could not serve storage i's folder path:
 * rc is mtp_store_add()'s. */
void mtp_prep_fail(const char *name, unsigned i, const char *path, int rc);

#endif
