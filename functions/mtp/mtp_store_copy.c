/* mtp_store_copy: copying a file or a folder tree, in steps (mtp_fs_copy). */
#include "mtp_store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mtp_store_copy {
	struct mtp_fs_copy *fc;
	uint32_t storage, parent;
	char *name;
};

void mtp_store_copy_abort(struct mtp_store *s, struct mtp_store_copy *c)
{
	if (!c)
		return;
	mtp_store_changed(s);
	mtp_fs_copy_free(c->fc);
	free(c->name);
	free(c);
}

int mtp_store_copy_begin(struct mtp_store *s, uint32_t handle, uint32_t storage,
			 uint32_t parent, struct mtp_store_copy **out)
{
	struct mtp_storage *st, *dst = mtp_store_find(s, storage);
	struct mtp_store_copy *c;
	const struct mtp_handles_obj *o;
	int sfd, dfd, rc;

	mtp_store_changed(s);
	if (!dst)
		return -ENOENT;
	if (dst->readonly)
		return -EROFS;
	rc = mtp_store_parent_fd(s, handle, &o, &st, &sfd);
	if (rc < 0)
		return rc;
	if (st == dst && mtp_handles_is_ancestor(s->handles, handle, parent)) {
		close(sfd);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	rc = c ? 0 : -ENOMEM;
	if (rc == 0)
		rc = mtp_walk_open_dir(s->handles, dst, parent, &dfd);
	if (rc == 0) {
		c->storage = storage;
		c->parent = parent;
		c->name = strdup(o->name);
		rc = c->name ? mtp_fs_copy_new(sfd, dfd, o->name, &dst->reserve,
					       &c->fc)
			     : -ENOMEM;
		close(dfd);
	}
	close(sfd);
	if (rc < 0) {
		mtp_store_copy_abort(s, c);
		return rc;
	}
	*out = c;
	return 0;
}

int mtp_store_copy_step(struct mtp_store *s, struct mtp_store_copy *c,
			uint32_t *copy)
{
	int rc = mtp_fs_copy_step(c->fc);

	if (rc > 0)
		return rc;
	if (rc == 0)
		rc = mtp_handles_intern(s->handles, c->storage, c->parent,
					c->name, copy);
	/* A copy the host cannot be given a handle for goes again. */
	if (rc < 0)
		mtp_fs_copy_discard(c->fc);
	else
		mtp_fs_copy_free(c->fc);
	c->fc = NULL;
	mtp_store_copy_abort(s, c);
	return rc;
}

int mtp_store_copy(struct mtp_store *s, uint32_t handle, uint32_t storage,
		   uint32_t parent, uint32_t *copy)
{
	struct mtp_store_copy *c;
	int rc = mtp_store_copy_begin(s, handle, storage, parent, &c);

	if (rc < 0)
		return rc;
	while ((rc = mtp_store_copy_step(s, c, copy)) > 0)
		;
	return rc;
}

uint32_t mtp_store_copy_storage(const struct mtp_store_copy *c)
{
	return c->storage;
}
