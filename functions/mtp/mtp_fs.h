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
 * Open the folder at path (a storage's root) following no symbolic link
 * in any component (openat2's RESOLVE_NO_SYMLINKS from the current or
 * the root folder): -ELOOP when a component is a link, -ENOSYS without
 * openat2.
 */
int mtp_fs_open_root(const char *path);

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

/* What writes to a storage must leave free on its file system. */
struct mtp_fs_reserve {
	uint64_t bytes;
	uint64_t inodes;
};

/*
 * Whether the file system of fd can take `objects` new files or folders
 * holding `bytes` of data and keep reserve r: 0, or -ENOSPC. Every new
 * object counts one block (f_frsize) besides its data, so that even empty
 * files and folders are paid for, and one inode of f_favail. A file system
 * without an inode table (f_files 0: btrfs, vfat) is checked for bytes only.
 */
int mtp_fs_room(int fd, const struct mtp_fs_reserve *r, uint64_t bytes,
		uint64_t objects);

/* Remove name in dirfd, folders with everything in them, without
 * following links or entering mounts. */
int mtp_fs_remove(int dirfd, const char *name);

/*
 * A copy of the visible object sdir/name to ddir/name (which must not
 * exist), folders recursively, made in bounded steps so that an event
 * loop can run between them; invisible objects inside are skipped.
 *
 * It first walks the source and counts its bytes and objects: the whole
 * tree must fit above the reserve (mtp_fs_room) before anything is made,
 * else -ENOSPC. Each file and folder is checked again as it is made and
 * each piece of data before it is written, as the board may fill the disk
 * meanwhile. On failure, and when abandoned, what was copied is removed.
 */
struct mtp_fs_copy;

/* sdir and ddir are duplicated: the caller keeps its own fds. */
int mtp_fs_copy_new(int sdir, int ddir, const char *name,
		    const struct mtp_fs_reserve *r, struct mtp_fs_copy **out);
/* One step (at most MTP_FS_COPY_STEP_BYTES of data or
 * MTP_FS_COPY_STEP_ENTRIES entries): 1 while there is more to do, 0 when
 * the copy is complete, -errno when it failed (nothing of it stays). */
int mtp_fs_copy_step(struct mtp_fs_copy *c);
/* Free the job; a copy not complete is removed. */
void mtp_fs_copy_free(struct mtp_fs_copy *c);
/* Free the job and remove the copy, complete or not. */
void mtp_fs_copy_discard(struct mtp_fs_copy *c);

#define MTP_FS_COPY_STEP_BYTES (4u << 20)
#define MTP_FS_COPY_STEP_ENTRIES 256u

/* The whole copy at once (mtp_fs_copy_new, steps, free): 0 or -errno. */
int mtp_fs_copy(int sdir, int ddir, const char *name,
		const struct mtp_fs_reserve *r);

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
