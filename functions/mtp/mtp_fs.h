/*
 * mtp_fs: the file-system primitives of an MTP storage, confined beneath a
 * directory fd.
 *
 * The board may plant symbolic links, hard links and mounts inside a
 * storage; none of them may let the USB host read or write elsewhere. So
 * every open goes through openat2() with RESOLVE_BENEATH,
 * RESOLVE_NO_SYMLINKS and RESOLVE_NO_XDEV (Linux 5.6), and an object is
 * "visible" only when it is a folder that is not a mount point or a
 * regular file with a single link (another link may live outside the
 * storage). Invisible objects are neither listed, served, overwritten nor
 * descended into.
 *
 * Functions return 0 (or an fd) on success and -errno on failure.
 */
#ifndef GADGETD_MTP_FS_H
#define GADGETD_MTP_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Deepest folder nesting walked, removed or copied. */
#define MTP_FS_MAX_DEPTH 64

/*
 * Names starting with this are the hidden temporary files that uploads
 * are written to before they replace their target: never listed, never
 * accepted from the host, removed by mtp_fs_sweep() and skipped by
 * mtp_fs_copy().
 */
#define MTP_FS_TMP_PREFIX ".gadgetd-mtp-"

struct mtp_fs_stat {
	bool dir;
	mode_t mode; /* permission bits */
	uint64_t size; /* 0 for a folder */
	time_t mtime;
	time_t ctime;
};

/*
 * openat2(dirfd, name, flags | O_CLOEXEC, mode) confined as above. A
 * symbolic link or a mount point on the way or at the end gives -ENOENT,
 * so that callers treat it like an object that is not there. -ENOSYS on
 * kernels without openat2.
 */
int mtp_fs_open(int dirfd, const char *name, int flags, mode_t mode);

/*
 * Stat name in dirfd without following it. 0 for a visible object (st
 * filled), -ENOENT when nothing has that name, -EACCES for an invisible
 * one (link, device, FIFO, socket, mount point, hard-linked file).
 */
int mtp_fs_entry(int dirfd, const char *name, struct mtp_fs_stat *st);

/* 0 when fd is a regular file with a single link; -EISDIR for another
 * kind of file, -EACCES for a hard-linked one. */
int mtp_fs_servable(int fd);

/*
 * The bytes that may still be written on the file system of fd while
 * keeping `reserve` bytes free (0 when less than the reserve is free).
 */
int mtp_fs_headroom(int fd, uint64_t reserve, uint64_t *bytes);

/* Remove name in dirfd, folders with everything in them, without
 * following links or entering mounts. */
int mtp_fs_remove(int dirfd, const char *name);

/*
 * Copy the visible object sdir/name to ddir/name (which must not exist),
 * folders recursively; invisible objects inside are skipped. Before each
 * piece is written the file system of ddir must keep `reserve` bytes
 * free, else -ENOSPC. On failure what was copied is removed again.
 */
int mtp_fs_copy(int sdir, int ddir, const char *name, uint64_t reserve);

/* True for a name starting with MTP_FS_TMP_PREFIX. */
bool mtp_fs_is_tmp(const char *name);

/*
 * Remove the temporary files left in dirfd and the folders below it (by
 * a worker that was killed during an upload), visiting at most *budget
 * entries (decremented): -E2BIG when the budget ran out. Errors on
 * single entries are skipped.
 */
int mtp_fs_sweep(int dirfd, unsigned *budget);

#endif
