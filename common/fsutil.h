/*
 * fsutil: the file system steps several modules share, written once:
 * mkdir -p, and replacing a file atomically (temp file, fsync, rename).
 * Nothing here logs: each caller says what failed in its own words, from
 * the -errno and, for fsutil_mkdir_p, where the walk stopped.
 */
#ifndef GADGETD_FSUTIL_H
#define GADGETD_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How fsutil_mkdir_p walks (struct fsutil_mkdir.flags). */
enum {
	/* path names a file: make the folders above it only. */
	FSUTIL_MKDIR_PARENTS = 1u << 0,
	/* A symbolic link anywhere on the way is refused (-ELOOP), so that
	 * what is made, chmod-ed or chown-ed is never elsewhere. */
	FSUTIL_MKDIR_NOFOLLOW = 1u << 1,
	/* "." and ".." components are refused (-EINVAL). */
	FSUTIL_MKDIR_NO_DOTS = 1u << 2,
	/* Make nothing: a missing folder is -ENOENT. */
	FSUTIL_MKDIR_NO_CREATE = 1u << 3,
};

struct fsutil_mkdir {
	unsigned flags;
	mode_t mode;        /* the last folder, when made here */
	mode_t parent_mode; /* each missing folder before it */
	/* The last folder's owner when made here; (uid_t)-1 keeps ours. */
	uid_t uid;
	gid_t gid;
};

/* Where fsutil_mkdir_p stopped or ended. */
enum fsutil_mkdir_step {
	FSUTIL_MKDIR_OPEN,  /* making or opening the folder */
	FSUTIL_MKDIR_MODE,  /* setting the mode of a folder made here */
	FSUTIL_MKDIR_OWNER, /* setting the owner of the folder made here */
};

struct fsutil_mkdir_result {
	size_t len; /* path[0..len) names the folder the walk stopped at */
	enum fsutil_mkdir_step step;
	bool made; /* the last folder was made by this call */
};

/*
 * mkdir -p: walk path (absolute, or relative to the working folder) one
 * component at a time, making what is missing with mkdir and then chmod
 * (so the umask takes no bit); a folder made is 0700 until its mode is
 * set, so nobody slips in before. A folder that exists is left as it is,
 * owner and mode. Returns an O_DIRECTORY fd of the last folder (the
 * caller closes it) or -errno: -EINVAL for an empty path or a refused
 * dot, -ENAMETOOLONG over PATH_MAX, -ENOTDIR for something else than a
 * folder in the way, -ELOOP for a link under FSUTIL_MKDIR_NOFOLLOW,
 * -ENOENT for a missing folder under FSUTIL_MKDIR_NO_CREATE. res (may be
 * NULL) tells where it stopped. A folder made before a failure stays.
 */
int fsutil_mkdir_p(const char *path, const struct fsutil_mkdir *o,
		   struct fsutil_mkdir_result *res);

/*
 * Replace path with len bytes of buf, or leave it as it was: the bytes
 * go to a temp file beside it (".NAME.tmp", opened without following a
 * link, created with mode less the umask), which is fsync-ed, renamed over
 * path, and the folder fsync-ed so that the rename lasts. A reader sees
 * the old file or the new one, never a part. Returns 0 or -errno (the
 * temp file is removed); -ENAMETOOLONG when the temp name is too long.
 */
int fsutil_write_atomic(const char *path, const void *buf, size_t len,
			mode_t mode);

#endif
