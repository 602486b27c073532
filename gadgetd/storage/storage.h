/*
 * storage: virtual media in the LUNs of a mass_storage function
 * (`gadgetctl storage insert|eject|status`), written to the function's
 * ConfigFS folder (lun.N/file, cdrom, ro, forced_eject).
 *
 * The kernel's f_mass_storage does the media change: a new file in a
 * removable LUN's `file` makes the LUN report "medium changed" (UNIT
 * ATTENTION) to the host, an empty one "no medium", and the host sees
 * both without a re-enumeration. Writing `forced_eject` takes the medium
 * away even while the host holds it (PREVENT MEDIUM REMOVAL).
 *
 * An image named by a client is hostile input. For a confined request
 * (a member of group, see access.h) it must lie beneath the function's
 * media_dir: it is opened with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV), so that "..", a symbolic link
 * anywhere on the way or another mount cannot lead out, and it must be a
 * regular file or a block device. The kernel is then given
 * /proc/self/fd/N, the very file gadgetd checked, so nothing can be
 * swapped in between. Root and admin_group may name any file.
 */
#ifndef GADGETD_STORAGE_H
#define GADGETD_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* f_mass_storage's FSG_MAX_LUNS. */
#define STORAGE_MAX_LUNS 16

enum storage_op {
	STORAGE_NONE,   /* the words name no storage command */
	STORAGE_STATUS,
	STORAGE_INSERT,
	STORAGE_EJECT,
};

/* A parsed `storage` request; the strings point into its argv. */
struct storage_req {
	enum storage_op op;
	bool cdrom, ro, force;
	int lun;               /* 0 unless --lun N */
	const char *function;  /* NULL: the set's one mass_storage function */
	const char *image;     /* insert only */
};

/*
 * argv as gadgetctl sends it: "insert" [--cdrom] [--ro] [--lun N]
 * [FUNCTION] IMAGE, "eject" [--force] [--lun N] [FUNCTION], "status"
 * [FUNCTION]. 0, or -EINVAL with msg giving the usage; req->op is then
 * still the command named (STORAGE_NONE: none), for who may be told.
 */
int storage_parse(int argc, char **argv, struct storage_req *req, char *msg,
		  size_t size);

/* A member of group on whose behalf the kernel opens an image: as that
 * user (fsuid and fsgid), so that it reads and writes only what the
 * member may. */
struct storage_cred {
	uid_t uid;
	gid_t gid;
};

/*
 * Open image for a LUN: O_RDONLY|O_CLOEXEC, a regular file or a block
 * device. confined: it must be beneath media_dir (NULL: none, and then
 * every image is refused), relative to it or absolute under it, resolved
 * as above. Returns the fd, or -errno with msg naming the image:
 * -EACCES outside media_dir or without one, -ELOOP for a symbolic link,
 * -ENOENT, -EINVAL for something that is no file.
 */
int storage_open_image(const char *media_dir, const char *image, bool confined,
		       char *msg, size_t size);

/*
 * Put the image open on fd in LUN lun of the function whose ConfigFS
 * folder is open on fdir. as: NULL for gadgetd itself (root and
 * admin_group), else the member the kernel opens the image as: what the
 * member may not write goes in read-only, what the member may not read
 * is refused. First what the kernel will check (it can be read; a
 * regular file or a block device; at least one sector, 300 for a
 * CD-ROM): a failure there changes nothing (-EINVAL, -EACCES). Then
 * the medium in the LUN, if any, is ejected (refused with -EBUSY while
 * the host holds it: the user then ejects with force), cdrom and ro are
 * set, then the file. Should the kernel still refuse the image, the LUN
 * is left empty and msg says so: the old medium is never reopened by the
 * name the kernel shows for it. 0 or -errno with msg.
 */
int storage_insert(int fdir, int lun, int fd, bool cdrom, bool ro,
		   const struct storage_cred *as, char *msg, size_t size);

/* Eject the medium of LUN lun; force: even while the host holds it
 * (forced_eject). Ejecting an empty LUN is fine. 0 or -errno with msg
 * (-EBUSY: the host holds it and force was not given). */
int storage_eject(int fdir, int lun, bool force, char *msg, size_t size);

/* How many lun.N folders the function has (LUNs are 0..n-1). */
int storage_luns(int fdir);

/* One line per LUN: "NAME lun.N: PATH|no medium[, cdrom][, ro]
 * [, removable]". name is the function's, for the lines. confined (a
 * member of group): a PATH not beneath media_dir (NULL: none) reads "a
 * medium outside media_dir". */
void storage_status(int fdir, const char *name, bool confined,
		    const char *media_dir, FILE *out);

#endif
