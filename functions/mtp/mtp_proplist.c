#include "mtp_proplist.h"
#include "mtp_container.h"
#include "mtp_dataset.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* "Every object" in GetObjectPropList's handle parameter. */
#define MTP_PROPLIST_ALL 0xFFFFFFFFu

size_t mtp_proplist_keep_max = MTP_PROPLIST_KEEP;

struct mtp_proplist {
	struct mtp_store *store;
	uint32_t *h;   /* the objects, in the order they are sent */
	struct mtp_obj_stat *st; /* their stats, until counted */
	uint32_t *len; /* bytes of each one's entries when counted */
	size_t n;
	size_t next; /* the next object to send */
	uint32_t prop;
	/* The entries of h[0, n_kept) as counted, back to back. */
	struct mtp_buf kept;
	size_t n_kept;
	size_t kept_off; /* where h[next]'s are in kept */
	struct mtp_buf part; /* the count, then an object rendered anew */
	const uint8_t *src; /* what is being sent: in part or in kept */
	size_t src_len, src_off;
	int err;
};

/* Append the children of every folder in h[from, to) to h and st. */
static int mtp_proplist_descend(struct mtp_proplist *pl, size_t from,
				size_t to)
{
	for (size_t i = from; i < to; i++) {
		int rc;

		if (!pl->st[i].dir)
			continue;
		rc = mtp_store_list_stat(pl->store, pl->st[i].storage,
					 pl->h[i], &pl->h, &pl->st, &pl->n);
		if (rc < 0)
			return rc;
		if (pl->n > MTP_PROPLIST_MAX_OBJS)
			return -E2BIG;
	}
	return 0;
}

/* The objects the request covers (see mtp_proplist_new), with the stats
 * made while listing them: one stat an object. */
static int mtp_proplist_collect(struct mtp_proplist *pl, uint32_t handle,
				uint32_t depth)
{
	struct mtp_store *s = pl->store;
	size_t from = 0, to;
	int rc = 0;

	if (handle == MTP_PROPLIST_ALL) {
		handle = 0;
		depth = MTP_PROPLIST_ALL;
	}
	if (handle) {
		/* 64 entries: the capacity mtp_store_list_stat() expects. */
		pl->h = malloc(64 * sizeof(*pl->h));
		pl->st = malloc(64 * sizeof(*pl->st));
		if (!pl->h || !pl->st)
			return -ENOMEM;
		/* A subtree of nothing is an error, not an empty list. */
		rc = mtp_store_stat(s, handle, &pl->st[0]);
		if (rc < 0)
			return rc;
		pl->h[pl->n++] = handle;
		if (depth == 0)
			return 0;
		rc = mtp_proplist_descend(pl, 0, 1);
		from = 1;
	} else {
		for (unsigned i = 0; rc == 0 && i < mtp_store_count(s); i++)
			rc = mtp_store_list_stat(s, mtp_store_id(s, i),
						 MTP_STORE_ROOT, &pl->h,
						 &pl->st, &pl->n);
		if (rc == 0 && pl->n > MTP_PROPLIST_MAX_OBJS)
			rc = -E2BIG;
	}
	for (uint32_t level = 1; rc == 0 && level < depth && from < pl->n;
	     level++) {
		to = pl->n;
		rc = mtp_proplist_descend(pl, from, to);
		from = to;
	}
	/* The object named by handle is not part of its own subtree. */
	if (handle && depth && pl->n) {
		pl->n--;
		memmove(pl->h, pl->h + 1, pl->n * sizeof(*pl->h));
		memmove(pl->st, pl->st + 1, pl->n * sizeof(*pl->st));
	}
	return rc;
}

/* The entries of st appended to b: 0, or 1 when it is not of format fmt
 * (0: any) and is left out. */
static int mtp_proplist_render_into(struct mtp_buf *b,
				    const struct mtp_obj_stat *st, uint16_t fmt,
				    uint32_t prop, uint32_t *count)
{
	if (fmt && fmt != mtp_dataset_format_of(st->name, st->dir))
		return 1;
	return mtp_dataset_prop_entries(b, st, prop, count);
}

/*
 * Render each object of pl->h once from the stat its listing made,
 * dropping those of another format; the entries are kept for the data
 * phase while they fit in mtp_proplist_keep_max, and only measured after
 * that. *len gets the dataset's length.
 */
static int mtp_proplist_count(struct mtp_proplist *pl, uint16_t fmt,
			      uint64_t *len)
{
	uint32_t count = 0;
	size_t k = 0;

	pl->len = malloc((pl->n ? pl->n : 1) * sizeof(*pl->len));
	if (!pl->len)
		return -ENOMEM;
	*len = 4;
	for (size_t i = 0; i < pl->n; i++) {
		bool keep = k == pl->n_kept &&
			    pl->kept.len < mtp_proplist_keep_max;
		struct mtp_buf *b = keep ? &pl->kept : &pl->part;
		size_t before;
		int rc;

		if (!keep)
			mtp_buf_reset(b);
		before = b->len;
		rc = mtp_proplist_render_into(b, &pl->st[i], fmt, pl->prop,
					      &count);
		if (rc == 1)
			continue;
		if (rc < 0)
			return rc;
		if (b->oom)
			return -ENOMEM;
		pl->h[k] = pl->h[i];
		pl->len[k++] = b->len - before;
		*len += b->len - before;
		if (keep)
			pl->n_kept = k;
	}
	pl->n = k;
	/* The names in st are the store's, valid no longer than this call. */
	free(pl->st);
	pl->st = NULL;
	mtp_buf_reset(&pl->part);
	mtp_buf_u32(&pl->part, count);
	pl->src = pl->part.data;
	pl->src_len = pl->part.len;
	return pl->part.oom ? -ENOMEM : 0;
}

int mtp_proplist_new(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, uint32_t depth, struct mtp_proplist **out,
		     uint64_t *len)
{
	struct mtp_proplist *pl = calloc(1, sizeof(*pl));
	int rc;

	if (!pl)
		return -ENOMEM;
	pl->store = s;
	pl->prop = prop;
	mtp_buf_init(&pl->kept);
	mtp_buf_init(&pl->part);
	rc = mtp_proplist_collect(pl, handle, depth);
	if (rc == 0)
		rc = mtp_proplist_count(pl, fmt, len);
	if (rc < 0) {
		mtp_proplist_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

/* Point src at the next object's entries: kept, or rendered anew (and
 * checked against what was counted). */
static void mtp_proplist_next(struct mtp_proplist *pl)
{
	struct mtp_obj_stat st;
	uint32_t unused = 0;
	size_t i = pl->next++;

	pl->src_off = 0;
	if (i < pl->n_kept) {
		pl->src = pl->kept.data + pl->kept_off;
		pl->src_len = pl->len[i];
		pl->kept_off += pl->len[i];
		return;
	}
	/* Changed since counted: the length sent is wrong. */
	mtp_buf_reset(&pl->part);
	if (mtp_store_stat(pl->store, pl->h[i], &st) < 0 ||
	    mtp_proplist_render_into(&pl->part, &st, 0, pl->prop, &unused) ||
	    pl->part.len != pl->len[i])
		pl->err = -EIO;
	pl->src = pl->part.data;
	pl->src_len = pl->part.len;
}

int mtp_proplist_fill(struct mtp_proplist *pl, uint8_t *out, size_t n)
{
	size_t done = 0;

	while (!pl->err && done < n) {
		size_t k = pl->src_len - pl->src_off;

		if (k == 0) {
			/* Asked for more than was counted. */
			if (pl->next >= pl->n) {
				pl->err = -EIO;
				break;
			}
			mtp_proplist_next(pl);
			continue;
		}
		if (k > n - done)
			k = n - done;
		memcpy(out + done, pl->src + pl->src_off, k);
		pl->src_off += k;
		done += k;
	}
	/* Zeros keep the framing the host was promised. */
	memset(out + done, 0, n - done);
	return pl->err;
}

int mtp_proplist_one(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, struct mtp_buf *b)
{
	struct mtp_obj_stat st;
	uint32_t count = 0;
	int rc;

	/* Rendered after the count's place, which is filled in last. */
	mtp_buf_reset(b);
	mtp_buf_u32(b, 0);
	rc = mtp_store_stat(s, handle, &st);
	if (rc == 0)
		rc = mtp_proplist_render_into(b, &st, fmt, prop, &count);
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
	free(pl->st);
	free(pl->len);
	mtp_buf_finish(&pl->kept);
	mtp_buf_finish(&pl->part);
	free(pl);
}
