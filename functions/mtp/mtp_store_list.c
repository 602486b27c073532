/* mtp_store_list: listing a folder, and assigning handles to what is in it. */
#include "mtp_store_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* True for an entry the host may see; *sb gets its stat. */
static bool mtp_store_list_dirent_ok(struct mtp_store *s, int dfd,
				     const struct dirent *de,
				     struct mtp_fs_stat *sb)
{
	/* A temporary file no upload owns was left by a killed worker. */
	if (mtp_fs_is_tmp(de->d_name) && de->d_type != DT_DIR &&
	    !mtp_upload_owns(&s->uploads, de->d_name)) {
		if (mtp_fs_entry(dfd, de->d_name, sb) == 0 && !sb->dir)
			unlinkat(dfd, de->d_name, 0);
		return false;
	}
	if (!mtp_store_name_ok(de->d_name))
		return false;
	/* d_type cannot tell a mount point or a hard-linked file. */
	if (de->d_type != DT_DIR && de->d_type != DT_REG &&
	    de->d_type != DT_UNKNOWN)
		return false;
	return mtp_fs_entry(dfd, de->d_name, sb) == 0;
}

/* Append os's handle, and os itself when stats is given, at *n. The
 * capacity is 64, then powers of two: the arrays grow when n reaches it
 * (a failed second realloc leaves the first one's room, still right). */
static int mtp_store_list_push(uint32_t **out, struct mtp_obj_stat **stats,
			       size_t *n, const struct mtp_obj_stat *os)
{
	if (*n == 0 || (*n >= 64 && (*n & (*n - 1)) == 0)) {
		size_t cap = *n ? 2 * *n : 64;
		uint32_t *a = realloc(*out, cap * sizeof(**out));
		struct mtp_obj_stat *b;

		if (!a)
			return -ENOMEM;
		*out = a;
		if (stats) {
			b = realloc(*stats, cap * sizeof(**stats));
			if (!b)
				return -ENOMEM;
			*stats = b;
		}
	}
	(*out)[*n] = os->handle;
	if (stats)
		(*stats)[*n] = *os;
	(*n)++;
	return 0;
}

int mtp_store_list_stat(struct mtp_store *s, uint32_t storage,
			uint32_t parent, uint32_t **out,
			struct mtp_obj_stat **stats, size_t *n)
{
	struct mtp_storage *st = mtp_store_find(s, storage);
	struct dirent *de;
	DIR *d;
	int fd, rc;

	rc = mtp_store_dirfd(s, storage, parent, &fd);
	if (rc < 0)
		return rc;
	if (s->listed_fn)
		s->listed_fn(s->listed_data, storage, parent, fd);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct mtp_fs_stat sb;
		uint32_t h;

		if (!mtp_store_list_dirent_ok(s, dirfd(d), de, &sb))
			continue;
		rc = mtp_handles_intern(s->handles, storage, parent, de->d_name,
					&h);
		if (rc == 0) {
			struct mtp_obj_stat os = {
			    .handle = h,
			    .storage = storage,
			    .parent = parent,
			    .dir = sb.dir,
			    .readonly = st && st->readonly,
			    .size = sb.size,
			    .mtime = sb.mtime,
			    .ctime = sb.ctime,
			    /* h was just interned: its slot is live. */
			    .name = mtp_handles_obj(s->handles, h)->name,
			};

			rc = mtp_store_list_push(out, stats, n, &os);
		}
		if (rc < 0)
			break;
	}
	closedir(d);
	return rc;
}

int mtp_store_list(struct mtp_store *s, uint32_t storage, uint32_t parent,
		   uint32_t **out, size_t *n)
{
	return mtp_store_list_stat(s, storage, parent, out, NULL, n);
}
