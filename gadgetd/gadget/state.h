/*
 * state: the last set the user chose, kept across restarts of gadgetd.
 *
 *   profile=android
 *   set=mtp,adb
 *   conf_profile=android
 *
 * set is empty when the gadget was turned off. conf_profile is
 * gadgetd.conf's `profile` when the state was saved: once the
 * configuration names another profile, the state no longer applies (an
 * older file without the line applies only to gadgetd.conf's profile).
 * Each line comes once, in any order; nothing else is allowed.
 */
#ifndef GADGETD_STATE_H
#define GADGETD_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* A set name: up to 16 function names of 31 characters and their commas. */
#define STATE_SET_MAX 512
/* Anything larger is not a file gadgetd wrote. */
#define STATE_FILE_MAX 4096

struct state {
	char profile[CONFIG_PROFILE_NAME_MAX];
	char set[STATE_SET_MAX];
	char conf_profile[CONFIG_PROFILE_NAME_MAX];  /* "" in older files */
};

/*
 * Read path into *st. -ENOENT when there is no state file; -EINVAL for
 * any malformed content (too large, a NUL byte, a line that is not one of
 * the three, a duplicate, a missing profile= or set=, a value too long or
 * with characters a name cannot have, no final newline), with err saying
 * "PATH:LINE: FIELD: why"; other -errno for I/O errors. *st is all empty
 * unless 0 is returned.
 */
int state_load(const char *path, struct state *st, char *err, size_t err_size);

/*
 * Write atomically: PATH.tmp, fsync, rename over path, fsync of path's
 * directory (so that the rename itself survives a power cut). Missing
 * directories are created. A failure before the rename leaves the old
 * file as it was and no PATH.tmp; a failed fsync of the directory is
 * reported, the new file being in place.
 */
int state_save(const char *path, const struct state *st);

/*
 * The lock state (gadgetctl lock) survives a restart of gadgetd, so that
 * a crash or an upgrade never unlocks the device, but not a reboot: it
 * is a marker file, RUN_DIR/locked, in gadgetd's runtime folder (a
 * tmpfs). A phone's shell or the logind follower locks again at boot.
 */
/* Locked when the marker exists, or cannot be looked at (anything but
 * ENOENT): a doubt locks. */
bool state_lock_load(const char *run_dir);
/* Create the marker (atomically) or remove it. 0 or -errno. */
int state_lock_save(const char *run_dir, bool locked);

#endif
