/*
 * mtp_store_handle: the table of the objects a host has been told about,
 * and their handles (see mtp_store.h for what a handle promises).
 */
#include "mtp_store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A handle is a slot of the table and that slot's generation:
 * gen << MTP_STORE_SLOT_BITS | (slot index + 1). Forgetting an object
 * bumps its slot's generation, so the old handle names nothing from then
 * on, whatever the slot holds later. Freed slots wait in a FIFO and are
 * taken again only while more than MTP_STORE_QUARANTINE others wait, so a
 * stale handle can name another object only after its slot went round
 * all 2^11 generations: more than 2 million deletions later. (With the
 * table full, over 2 million objects known, a freed slot is taken at once;
 * a smaller test table has a quarantine of half its size.)
 */
#define MTP_STORE_SLOT_BITS 21
#define MTP_STORE_SLOT_MASK ((1u << MTP_STORE_SLOT_BITS) - 1)
#define MTP_STORE_GEN_MASK ((1u << (32 - MTP_STORE_SLOT_BITS)) - 1)
#define MTP_STORE_QUARANTINE 1024u

static uint32_t mtp_store_handle_hash(uint32_t storage, uint32_t parent,
				      const char *name)
{
	uint32_t h = 2166136261u ^ storage ^ (parent * 16777619u);

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

void mtp_store_handle_set_max_objs(struct mtp_store *s, uint32_t n)
{
	s->max_objs = n && n < MTP_STORE_MAX_OBJS ? n : MTP_STORE_MAX_OBJS;
	s->quarantine = s->max_objs / 2 < MTP_STORE_QUARANTINE
			    ? s->max_objs / 2
			    : MTP_STORE_QUARANTINE;
}

/* The slot of handle h, whatever its generation (h names a slot). */
struct mtp_obj *mtp_store_handle_slot(struct mtp_store *s, uint32_t h)
{
	return &s->objs[(h & MTP_STORE_SLOT_MASK) - 1];
}

static uint32_t mtp_store_handle_of(struct mtp_store *s, uint32_t idx)
{
	return s->objs[idx].gen << MTP_STORE_SLOT_BITS | (idx + 1);
}

struct mtp_obj *mtp_store_handle_obj(struct mtp_store *s, uint32_t handle)
{
	uint32_t slot = handle & MTP_STORE_SLOT_MASK;
	struct mtp_obj *o;

	if (slot == 0 || slot > s->n_objs)
		return NULL;
	o = &s->objs[slot - 1];
	if (!o->name || o->gen != handle >> MTP_STORE_SLOT_BITS)
		return NULL;
	return o;
}

static uint32_t *mtp_store_handle_bucket(struct mtp_store *s,
					 const struct mtp_obj *o)
{
	return &s->buckets[mtp_store_handle_hash(o->storage, o->parent,
						 o->name) &
			   (s->n_buckets - 1)];
}

static void mtp_store_handle_unhash(struct mtp_store *s, uint32_t handle)
{
	uint32_t *p =
	    mtp_store_handle_bucket(s, mtp_store_handle_slot(s, handle));

	while (*p && *p != handle)
		p = &mtp_store_handle_slot(s, *p)->next;
	if (*p)
		*p = mtp_store_handle_slot(s, handle)->next;
	mtp_store_handle_slot(s, handle)->next = 0;
}

static void mtp_store_handle_rehash(struct mtp_store *s, uint32_t handle)
{
	uint32_t *b =
	    mtp_store_handle_bucket(s, mtp_store_handle_slot(s, handle));

	mtp_store_handle_slot(s, handle)->next = *b;
	*b = handle;
}

static int mtp_store_handle_grow(struct mtp_store *s)
{
	if (s->n_objs >= s->max_objs)
		return -ENOSPC;
	if (s->n_objs == s->cap_objs) {
		uint32_t cap = s->cap_objs ? 2 * s->cap_objs : 1024;
		struct mtp_obj *o = realloc(s->objs, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		s->objs = o;
		s->cap_objs = cap;
	}
	if (s->n_objs + 1 > s->n_buckets) {
		uint32_t nb = s->n_buckets ? 2 * s->n_buckets : 1024;
		uint32_t *b = calloc(nb, sizeof(*b));

		if (!b)
			return -ENOMEM;
		free(s->buckets);
		s->buckets = b;
		s->n_buckets = nb;
		for (uint32_t i = 0; i < s->n_objs; i++)
			if (s->objs[i].name)
				mtp_store_handle_rehash(
				    s, mtp_store_handle_of(s, i));
	}
	return 0;
}

static uint32_t mtp_store_handle_find(struct mtp_store *s, uint32_t storage,
				      uint32_t parent, const char *name)
{
	uint32_t h;

	if (!s->n_buckets)
		return 0;
	h = s->buckets[mtp_store_handle_hash(storage, parent, name) &
		       (s->n_buckets - 1)];
	for (; h; h = mtp_store_handle_slot(s, h)->next) {
		const struct mtp_obj *o = mtp_store_handle_slot(s, h);

		if (o->storage == storage && o->parent == parent &&
		    !strcmp(o->name, name))
			return h;
	}
	return 0;
}

/* A slot for a new entry: a freed one out of quarantine, else a new one,
 * else (the table is full) any freed one. Its index, or -errno. */
static int64_t mtp_store_handle_take_slot(struct mtp_store *s)
{
	uint32_t idx;
	int rc;

	if (s->n_free <= s->quarantine) {
		rc = mtp_store_handle_grow(s);
		if (rc == 0) {
			s->objs[s->n_objs].gen = 0;
			return s->n_objs++;
		}
		if (!s->n_free)
			return rc;
	}
	idx = s->free_head - 1;
	s->free_head = s->objs[idx].next_free;
	if (!s->free_head)
		s->free_tail = 0;
	s->n_free--;
	return idx;
}

/* The handle of (storage, parent, name), adding an entry if needed. */
int mtp_store_handle_intern(struct mtp_store *s, uint32_t storage,
			    uint32_t parent, const char *name, uint32_t *out)
{
	struct mtp_obj *o;
	char *copy;
	int64_t idx;

	*out = mtp_store_handle_find(s, storage, parent, name);
	if (*out)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	idx = mtp_store_handle_take_slot(s);
	if (idx < 0) {
		free(copy);
		return (int)idx;
	}
	o = &s->objs[idx];
	o->name = copy;
	o->storage = storage;
	o->parent = parent;
	o->next = 0;
	o->next_free = 0;
	*out = mtp_store_handle_of(s, (uint32_t)idx);
	mtp_store_handle_rehash(s, *out);
	return 0;
}

void mtp_store_handle_forget(struct mtp_store *s, uint32_t handle)
{
	struct mtp_obj *o = mtp_store_handle_obj(s, handle);
	uint32_t idx;

	mtp_store_changed(s);
	if (!o)
		return;
	mtp_store_handle_unhash(s, handle);
	free(o->name);
	o->name = NULL;
	/* The handle dies with the object; 0xFFFFFFFF means "all" in MTP
	 * and is never handed out. */
	idx = (handle & MTP_STORE_SLOT_MASK) - 1;
	do
		o->gen = (o->gen + 1) & MTP_STORE_GEN_MASK;
	while (mtp_store_handle_of(s, idx) == 0xFFFFFFFFu);
	o->next_free = 0;
	if (s->free_tail)
		s->objs[s->free_tail - 1].next_free = idx + 1;
	else
		s->free_head = idx + 1;
	s->free_tail = idx + 1;
	s->n_free++;
}

/* True when anc is h or one of its folders (all live). */
static bool mtp_store_handle_under(struct mtp_store *s, uint32_t h,
				   uint32_t anc)
{
	for (unsigned i = 0; h != MTP_STORE_ROOT && i <= MTP_STORE_MAX_DEPTH;
	     i++) {
		struct mtp_obj *o;

		if (h == anc)
			return true;
		o = mtp_store_handle_obj(s, h);
		if (!o)
			return false;
		h = o->parent;
	}
	return false;
}

/* Forget handle and everything listed below it: a deleted folder's
 * children must neither linger in memory nor be reported again. They are
 * found first and forgotten after, as forgetting kills the handles the
 * search follows. */
void mtp_store_handle_forget_tree(struct mtp_store *s, uint32_t handle)
{
	uint32_t *found = NULL, n = 0, cap = 0;

	for (uint32_t i = 0; i < s->n_objs; i++) {
		uint32_t h = mtp_store_handle_of(s, i);

		if (!s->objs[i].name || h == handle ||
		    !mtp_store_handle_under(s, h, handle))
			continue;
		if (n == cap) {
			uint32_t *a =
			    realloc(found, (cap ? 2 * cap : 64) * sizeof(*a));

			if (!a)
				break; /* the rest lingers, unreachable */
			found = a;
			cap = cap ? 2 * cap : 64;
		}
		found[n++] = h;
	}
	for (uint32_t i = 0; i < n; i++)
		mtp_store_handle_forget(s, found[i]);
	free(found);
	mtp_store_handle_forget(s, handle);
}

/* Re-key handle under (parent, name); a stale entry there is dropped. */
int mtp_store_handle_rekey(struct mtp_store *s, uint32_t handle,
			   uint32_t parent, const char *name)
{
	struct mtp_obj *o = mtp_store_handle_slot(s, handle);
	uint32_t old = mtp_store_handle_find(s, o->storage, parent, name);
	char *n = strdup(name);

	if (!n)
		return -ENOMEM;
	if (old && old != handle)
		mtp_store_handle_forget(s, old);
	mtp_store_handle_unhash(s, handle);
	free(o->name);
	o->name = n;
	o->parent = parent;
	mtp_store_handle_rehash(s, handle);
	return 0;
}

/* True when folder `anc` is parent or one of its ancestors. */
bool mtp_store_handle_is_ancestor(struct mtp_store *s, uint32_t anc,
				  uint32_t parent)
{
	for (unsigned i = 0;
	     parent != MTP_STORE_ROOT && i < MTP_STORE_MAX_DEPTH; i++) {
		struct mtp_obj *o = mtp_store_handle_obj(s, parent);

		if (parent == anc)
			return true;
		if (!o)
			return false;
		parent = o->parent;
	}
	return false;
}

uint32_t mtp_store_handle(struct mtp_store *s, uint32_t storage,
			  uint32_t parent, const char *name)
{
	return mtp_store_handle_find(s, storage, parent, name);
}
