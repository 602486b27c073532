/* mtp_store_list: listing a folder, and assigning handles to what is in it. */
#include "mtp_store_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static bool mtp_store_list_dirent_ok(struct mtp_store *s, int dfd,
				     const struct dirent *de)
{
	struct mtp_fs_stat sb;

	/* A temporary file no upload owns was left by a killed worker. */
	if (mtp_fs_is_tmp(de->d_name) && de->d_type != DT_DIR &&
	    !mtp_store_upload_owns(s, de->d_name)) {
		if (mtp_fs_entry(dfd, de->d_name, &sb) == 0 && !sb.dir)
			unlinkat(dfd, de->d_name, 0);
		return false;
	}
	if (!mtp_store_name_ok(de->d_name))
		return false;
	/* d_type cannot tell a mount point or a hard-linked file. */
	if (de->d_type != DT_DIR && de->d_type != DT_REG &&
	    de->d_type != DT_UNKNOWN)
		return false;
	return mtp_fs_entry(dfd, de->d_name, &sb) == 0;
}

static int mtp_store_list_push(uint32_t **out, size_t *n, uint32_t h)
{
	/* Capacity is 64, then powers of two: grow when n reaches it. */
	if (*n == 0 || (*n >= 64 && (*n & (*n - 1)) == 0)) {
		size_t cap = *n ? 2 * *n : 64;
		uint32_t *a = realloc(*out, cap * sizeof(**out));

		if (!a)
			return -ENOMEM;
		*out = a;
	}
	(*out)[(*n)++] = h;
	return 0;
}

int mtp_store_list(struct mtp_store *s, uint32_t storage, uint32_t parent,
		   uint32_t **out, size_t *n)
{
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
		uint32_t h;

		if (!mtp_store_list_dirent_ok(s, dirfd(d), de))
			continue;
		rc =
		    mtp_store_handle_intern(s, storage, parent, de->d_name, &h);
		if (rc == 0)
			rc = mtp_store_list_push(out, n, h);
		if (rc < 0)
			break;
	}
	closedir(d);
	return rc;
}
