#include "mtp_proplist.h"
#include "mtp_container.h"
#include "mtp_dataset.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* "Every object" in GetObjectPropList's handle parameter. */
#define MTP_PROPLIST_ALL 0xFFFFFFFFu

struct mtp_proplist {
	struct mtp_store *store;
	uint32_t *h;   /* the objects, in the order they are sent */
	uint32_t *len; /* bytes of each one's entries when counted */
	size_t n;
	size_t next; /* the next object to render */
	uint32_t prop;
	struct mtp_buf part; /* what is being sent: the count, then an object */
	size_t part_off;
	int err;
};

/* Append the children of every folder in h[from, to) to h. */
static int mtp_proplist_descend(struct mtp_store *s, uint32_t **h, size_t *n,
				size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		struct mtp_obj_stat st;
		int rc;

		if (mtp_store_stat(s, (*h)[i], &st) < 0 || !st.dir)
			continue;
		rc = mtp_store_list(s, st.storage, (*h)[i], h, n);
		if (rc < 0)
			return rc;
		if (*n > MTP_PROPLIST_MAX_OBJS)
			return -E2BIG;
	}
	return 0;
}

/* The objects the request covers (see mtp_proplist_new). */
static int mtp_proplist_collect(struct mtp_store *s, uint32_t handle,
				uint32_t depth, uint32_t **h, size_t *n)
{
	size_t from = 0, to;
	int rc = 0;

	if (handle == MTP_PROPLIST_ALL) {
		handle = 0;
		depth = MTP_PROPLIST_ALL;
	}
	if (handle) {
		struct mtp_obj_stat st;

		/* A subtree of nothing is an error, not an empty list. */
		rc = mtp_store_stat(s, handle, &st);
		if (rc < 0)
			return rc;
		/* 64 entries: the capacity mtp_store_list() expects. */
		*h = malloc(64 * sizeof(**h));
		if (!*h)
			return -ENOMEM;
		(*h)[(*n)++] = handle;
		if (depth == 0)
			return 0;
		rc = mtp_proplist_descend(s, h, n, 0, 1);
		from = 1;
	} else {
		for (unsigned i = 0; rc == 0 && i < mtp_store_count(s); i++)
			rc = mtp_store_list(s, mtp_store_id(s, i),
					    MTP_STORE_ROOT, h, n);
		if (rc == 0 && *n > MTP_PROPLIST_MAX_OBJS)
			rc = -E2BIG;
	}
	for (uint32_t level = 1; rc == 0 && level < depth && from < *n;
	     level++) {
		to = *n;
		rc = mtp_proplist_descend(s, h, n, from, to);
		from = to;
	}
	/* The object named by handle is not part of its own subtree. */
	if (handle && depth && *n) {
		memmove(*h, *h + 1, (*n - 1) * sizeof(**h));
		(*n)--;
	}
	return rc;
}

/* The entries of object h appended to b: 0, 1 when it is not of format
 * fmt (0: any) and is left out, -ENOENT when it is gone. */
static int mtp_proplist_render_into(struct mtp_store *s, struct mtp_buf *b,
				    uint32_t h, uint16_t fmt, uint32_t prop,
				    uint32_t *count)
{
	struct mtp_obj_stat st;
	int rc = mtp_store_stat(s, h, &st);

	if (rc < 0)
		return rc;
	if (fmt && fmt != mtp_dataset_format_of(st.name, st.dir))
		return 1;
	return mtp_dataset_prop_entries(b, &st, prop, count);
}

/* The same into b emptied first. */
static int mtp_proplist_render(struct mtp_store *s, struct mtp_buf *b,
			       uint32_t h, uint16_t fmt, uint32_t prop,
			       uint32_t *count)
{
	mtp_buf_reset(b);
	return mtp_proplist_render_into(s, b, h, fmt, prop, count);
}

/*
 * Count what each object of pl->h takes, dropping those of another format
 * and those that vanished; *len gets the dataset's length. The object a
 * host named (one) must exist; in a subtree one was deleted meanwhile.
 */
static int mtp_proplist_count(struct mtp_proplist *pl, uint16_t fmt, bool one,
			      uint64_t *len)
{
	uint32_t count = 0;
	size_t k = 0;

	pl->len = malloc((pl->n ? pl->n : 1) * sizeof(*pl->len));
	if (!pl->len)
		return -ENOMEM;
	*len = 4;
	for (size_t i = 0; i < pl->n; i++) {
		int rc = mtp_proplist_render(pl->store, &pl->part, pl->h[i],
					     fmt, pl->prop, &count);

		if (rc == 1 || (rc == -ENOENT && !one))
			continue;
		if (rc < 0)
			return rc;
		pl->h[k] = pl->h[i];
		pl->len[k++] = pl->part.len;
		*len += pl->part.len;
	}
	pl->n = k;
	mtp_buf_reset(&pl->part);
	mtp_buf_u32(&pl->part, count);
	return pl->part.oom ? -ENOMEM : 0;
}

int mtp_proplist_new(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, uint32_t depth, struct mtp_proplist **out,
		     uint64_t *len)
{
	/* One named object, not a subtree: it must exist. */
	bool one = handle != MTP_PROPLIST_ALL && handle != 0 && depth == 0;
	struct mtp_proplist *pl = calloc(1, sizeof(*pl));
	int rc;

	if (!pl)
		return -ENOMEM;
	pl->store = s;
	pl->prop = prop;
	mtp_buf_init(&pl->part);
	rc = mtp_proplist_collect(s, handle, depth, &pl->h, &pl->n);
	if (rc == 0)
		rc = mtp_proplist_count(pl, fmt, one, len);
	if (rc < 0) {
		mtp_proplist_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

int mtp_proplist_fill(struct mtp_proplist *pl, uint8_t *out, size_t n)
{
	size_t done = 0;

	while (!pl->err && done < n) {
		size_t k = pl->part.len - pl->part_off;

		if (k == 0) {
			uint32_t unused = 0;

			pl->part_off = 0;
			/* Asked for more than was counted. */
			if (pl->next >= pl->n) {
				pl->err = -EIO;
				break;
			}
			/* Changed since counted: the length sent is wrong. */
			if (mtp_proplist_render(pl->store, &pl->part,
						pl->h[pl->next], 0, pl->prop,
						&unused) != 0 ||
			    pl->part.len != pl->len[pl->next])
				pl->err = -EIO;
			pl->next++;
			continue;
		}
		if (k > n - done)
			k = n - done;
		memcpy(out + done, pl->part.data + pl->part_off, k);
		pl->part_off += k;
		done += k;
	}
	/* Zeros keep the framing the host was promised. */
	memset(out + done, 0, n - done);
	return pl->err;
}

int mtp_proplist_one(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, struct mtp_buf *b)
{
	uint32_t count = 0;
	int rc;

	/* Rendered after the count's place, which is filled in last. */
	mtp_buf_reset(b);
	mtp_buf_u32(b, 0);
	rc = mtp_proplist_render_into(s, b, handle, fmt, prop, &count);
	if (rc < 0)
		return rc;
	mtp_buf_set_u32(b, 0, count);
	return b->oom ? -ENOMEM : 0;
}

void mtp_proplist_free(struct mtp_proplist *pl)
{
	if (!pl)
		return;
	free(pl->h);
	free(pl->len);
	mtp_buf_finish(&pl->part);
	free(pl);
}
