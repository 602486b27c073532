/*
 * mtp_handles: the table of the objects a host has been told about, and
 * their handles (see mtp_handles.h for what a handle promises).
 */
#include "mtp_handles.h"

#include "mtp_fs.h"
#include "mtp_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A handle is a slot of the table and that slot's generation:
 * gen << MTP_HANDLES_SLOT_BITS | (slot index + 1). Forgetting an object
 * bumps its slot's generation, so the old handle names nothing from then
 * on, whatever the slot holds later. Freed slots wait in a FIFO and are
 * taken again only while more than MTP_HANDLES_QUARANTINE others wait, so
 * a stale handle can name another object only after its slot went round
 * all 2^11 generations: more than 2 million deletions later. (With the
 * table full, over 2 million objects known, a freed slot is taken at once;
 * a smaller test table has a quarantine of half its size.)
 */
#define MTP_HANDLES_SLOT_BITS 21
#define MTP_HANDLES_SLOT_MASK ((1u << MTP_HANDLES_SLOT_BITS) - 1)
#define MTP_HANDLES_GEN_MASK ((1u << (32 - MTP_HANDLES_SLOT_BITS)) - 1)
#define MTP_HANDLES_QUARANTINE 1024u

_Static_assert(MTP_HANDLES_MAX == MTP_HANDLES_SLOT_MASK,
	       "a handle's slot bits number MTP_HANDLES_MAX slots");

/* 24 bytes: a live slot is in a hash chain (next, by handle), a free one
 * in the FIFO (next_free, by slot index + 1); 0 ends either. */
struct mtp_handles_slot {
	struct mtp_handles_obj obj; /* obj.name NULL once the object is gone */
	union {
		uint32_t next;
		uint32_t next_free;
	};
	uint32_t gen; /* the slot's generation */
};

_Static_assert(sizeof(struct mtp_handles_slot) <= 24,
	       "a slot costs every object known: keep it at 24 bytes");

/* Dead name bytes are reclaimed once they outweigh the live ones and
 * reach this much (mtp_handles_compact). */
#define MTP_HANDLES_COMPACT_MIN 65536u

struct mtp_handles {
	struct mtp_handles_slot *objs; /* objs[(h & SLOT_MASK) - 1] */
	uint32_t n_objs;	       /* slots in use or freed */
	uint32_t cap_objs;
	uint32_t max_objs;
	uint32_t free_head, free_tail; /* slot index + 1; 0: none */
	uint32_t n_free;
	uint32_t quarantine; /* freed slots kept out of use */
	uint32_t *buckets;
	uint32_t n_buckets;
	struct mtp_names *names; /* every obj.name */
	mtp_handles_changed_fn changed_fn;
	void *changed_data;
};

static uint32_t mtp_handles_hash(uint32_t storage, uint32_t parent,
				 const char *name)
{
	uint32_t h = 2166136261u ^ storage ^ (parent * 16777619u);

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

struct mtp_handles *mtp_handles_new(mtp_handles_changed_fn fn, void *data)
{
	struct mtp_handles *t = calloc(1, sizeof(*t));

	if (t)
		t->names = mtp_names_new();
	if (!t || !t->names) {
		free(t);
		return NULL;
	}
	t->changed_fn = fn;
	t->changed_data = data;
	mtp_handles_set_max(t, 0);
	return t;
}

void mtp_handles_free(struct mtp_handles *t)
{
	if (!t)
		return;
	mtp_names_free(t->names);
	free(t->objs);
	free(t->buckets);
	free(t);
}

void mtp_handles_set_max(struct mtp_handles *t, uint32_t n)
{
	t->max_objs = n && n < MTP_HANDLES_MAX ? n : MTP_HANDLES_MAX;
	t->quarantine = t->max_objs / 2 < MTP_HANDLES_QUARANTINE
			    ? t->max_objs / 2
			    : MTP_HANDLES_QUARANTINE;
}

static void mtp_handles_changed(struct mtp_handles *t)
{
	if (t->changed_fn)
		t->changed_fn(t->changed_data);
}

/* The slot of handle h, whatever its generation (h names a slot). */
static struct mtp_handles_slot *mtp_handles_slot(struct mtp_handles *t,
						 uint32_t h)
{
	return &t->objs[(h & MTP_HANDLES_SLOT_MASK) - 1];
}

static uint32_t mtp_handles_of(struct mtp_handles *t, uint32_t idx)
{
	return t->objs[idx].gen << MTP_HANDLES_SLOT_BITS | (idx + 1);
}

/* The slot of a live handle, or NULL. */
static struct mtp_handles_slot *mtp_handles_live(struct mtp_handles *t,
						 uint32_t handle)
{
	uint32_t slot = handle & MTP_HANDLES_SLOT_MASK;
	struct mtp_handles_slot *o;

	if (slot == 0 || slot > t->n_objs)
		return NULL;
	o = &t->objs[slot - 1];
	if (!o->obj.name || o->gen != handle >> MTP_HANDLES_SLOT_BITS)
		return NULL;
	return o;
}

const struct mtp_handles_obj *mtp_handles_obj(struct mtp_handles *t,
					      uint32_t handle)
{
	struct mtp_handles_slot *o = mtp_handles_live(t, handle);

	return o ? &o->obj : NULL;
}

static uint32_t *mtp_handles_bucket(struct mtp_handles *t,
				    const struct mtp_handles_slot *o)
{
	return &t->buckets[mtp_handles_hash(o->obj.storage, o->obj.parent,
					    o->obj.name) &
			   (t->n_buckets - 1)];
}

static void mtp_handles_unhash(struct mtp_handles *t, uint32_t handle)
{
	uint32_t *p = mtp_handles_bucket(t, mtp_handles_slot(t, handle));

	while (*p && *p != handle)
		p = &mtp_handles_slot(t, *p)->next;
	if (*p)
		*p = mtp_handles_slot(t, handle)->next;
	mtp_handles_slot(t, handle)->next = 0;
}

static void mtp_handles_rehash(struct mtp_handles *t, uint32_t handle)
{
	uint32_t *b = mtp_handles_bucket(t, mtp_handles_slot(t, handle));

	mtp_handles_slot(t, handle)->next = *b;
	*b = handle;
}

static int mtp_handles_grow(struct mtp_handles *t)
{
	if (t->n_objs >= t->max_objs)
		return -ENOSPC;
	if (t->n_objs == t->cap_objs) {
		uint32_t cap = t->cap_objs ? 2 * t->cap_objs : 1024;
		struct mtp_handles_slot *o = realloc(t->objs, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		t->objs = o;
		t->cap_objs = cap;
	}
	if (t->n_objs + 1 > t->n_buckets) {
		uint32_t nb = t->n_buckets ? 2 * t->n_buckets : 1024;
		uint32_t *b = calloc(nb, sizeof(*b));

		if (!b)
			return -ENOMEM;
		free(t->buckets);
		t->buckets = b;
		t->n_buckets = nb;
		for (uint32_t i = 0; i < t->n_objs; i++)
			if (t->objs[i].obj.name)
				mtp_handles_rehash(t, mtp_handles_of(t, i));
	}
	return 0;
}

uint32_t mtp_handles_find(struct mtp_handles *t, uint32_t storage,
			  uint32_t parent, const char *name)
{
	uint32_t h;

	if (!t->n_buckets)
		return 0;
	h = t->buckets[mtp_handles_hash(storage, parent, name) &
		       (t->n_buckets - 1)];
	for (; h; h = mtp_handles_slot(t, h)->next) {
		const struct mtp_handles_obj *o = &mtp_handles_slot(t, h)->obj;

		if (o->storage == storage && o->parent == parent &&
		    !strcmp(o->name, name))
			return h;
	}
	return 0;
}

/* A slot for a new entry: a freed one out of quarantine, else a new one,
 * else (the table is full) any freed one. Its index, or -errno. */
static int64_t mtp_handles_take_slot(struct mtp_handles *t)
{
	uint32_t idx;
	int rc;

	if (t->n_free <= t->quarantine) {
		rc = mtp_handles_grow(t);
		if (rc == 0) {
			t->objs[t->n_objs].gen = 0;
			return t->n_objs++;
		}
		if (!t->n_free)
			return rc;
	}
	idx = t->free_head - 1;
	t->free_head = t->objs[idx].next_free;
	if (!t->free_head)
		t->free_tail = 0;
	t->n_free--;
	return idx;
}

int mtp_handles_intern(struct mtp_handles *t, uint32_t storage, uint32_t parent,
		       const char *name, uint32_t *out)
{
	struct mtp_handles_slot *o;
	char *copy;
	int64_t idx;

	*out = mtp_handles_find(t, storage, parent, name);
	if (*out)
		return 0;
	copy = mtp_names_add(t->names, name);
	if (!copy)
		return -ENOMEM;
	idx = mtp_handles_take_slot(t);
	if (idx < 0) {
		mtp_names_drop(t->names, copy);
		return (int)idx;
	}
	o = &t->objs[idx];
	o->obj.name = copy;
	o->obj.storage = storage;
	o->obj.parent = parent;
	o->next = 0;
	*out = mtp_handles_of(t, (uint32_t)idx);
	mtp_handles_rehash(t, *out);
	return 0;
}

/*
 * Once the dead names outweigh the live ones, copy the live ones into a
 * new arena and free the old: what a host deleted stops costing memory.
 * It moves every name, so it runs only on the way out of a call that
 * forgets or rekeys (mtp_handles.h: a name is good until then). Out of
 * memory, the old arena stays.
 */
static void mtp_handles_compact(struct mtp_handles *t)
{
	size_t dead = mtp_names_dead(t->names);
	struct mtp_names *n;

	if (dead < MTP_HANDLES_COMPACT_MIN || dead <= mtp_names_live(t->names))
		return;
	n = mtp_names_new();
	if (!n || !mtp_names_reserve(n, mtp_names_live(t->names))) {
		mtp_names_free(n);
		return;
	}
	/* The room is there: no add below can fail. */
	for (uint32_t i = 0; i < t->n_objs; i++)
		if (t->objs[i].obj.name)
			t->objs[i].obj.name =
			    mtp_names_add(n, t->objs[i].obj.name);
	mtp_names_free(t->names);
	t->names = n;
}

/* mtp_handles_forget without the compaction. */
static void mtp_handles_drop(struct mtp_handles *t, uint32_t handle)
{
	struct mtp_handles_slot *o = mtp_handles_live(t, handle);
	uint32_t idx;

	mtp_handles_changed(t);
	if (!o)
		return;
	mtp_handles_unhash(t, handle);
	mtp_names_drop(t->names, o->obj.name);
	o->obj.name = NULL;
	/* The handle dies with the object; 0xFFFFFFFF means "all" in MTP
	 * and is never handed out. */
	idx = (handle & MTP_HANDLES_SLOT_MASK) - 1;
	do
		o->gen = (o->gen + 1) & MTP_HANDLES_GEN_MASK;
	while (mtp_handles_of(t, idx) == 0xFFFFFFFFu);
	o->next_free = 0;
	if (t->free_tail)
		t->objs[t->free_tail - 1].next_free = idx + 1;
	else
		t->free_head = idx + 1;
	t->free_tail = idx + 1;
	t->n_free++;
}

void mtp_handles_forget(struct mtp_handles *t, uint32_t handle)
{
	mtp_handles_drop(t, handle);
	mtp_handles_compact(t);
}

/* True when anc is h or one of its folders (all live). */
static bool mtp_handles_under(struct mtp_handles *t, uint32_t h, uint32_t anc)
{
	for (unsigned i = 0; h != MTP_HANDLES_ROOT && i <= MTP_FS_MAX_DEPTH;
	     i++) {
		const struct mtp_handles_obj *o;

		if (h == anc)
			return true;
		o = mtp_handles_obj(t, h);
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
void mtp_handles_forget_tree(struct mtp_handles *t, uint32_t handle)
{
	uint32_t *found = NULL, n = 0, cap = 0;

	for (uint32_t i = 0; i < t->n_objs; i++) {
		uint32_t h = mtp_handles_of(t, i);

		if (!t->objs[i].obj.name || h == handle ||
		    !mtp_handles_under(t, h, handle))
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
		mtp_handles_drop(t, found[i]);
	free(found);
	mtp_handles_forget(t, handle);
}

void mtp_handles_forget_storage(struct mtp_handles *t, uint32_t storage)
{
	/* Dropping frees a slot but moves none: one pass finds them all. */
	for (uint32_t i = 0; i < t->n_objs; i++)
		if (t->objs[i].obj.name && t->objs[i].obj.storage == storage)
			mtp_handles_drop(t, mtp_handles_of(t, i));
	mtp_handles_compact(t);
	mtp_handles_changed(t);
}

/* Re-key handle under (parent, name); a stale entry there is dropped. */
int mtp_handles_rekey(struct mtp_handles *t, uint32_t handle, uint32_t parent,
		      const char *name)
{
	struct mtp_handles_slot *o = mtp_handles_slot(t, handle);
	uint32_t old = mtp_handles_find(t, o->obj.storage, parent, name);
	/* Copied first: name may be this object's own (a move keeps it). */
	char *n = mtp_names_add(t->names, name);

	/* What was cached of handle names the object under its old key. */
	mtp_handles_changed(t);
	if (!n)
		return -ENOMEM;
	if (old && old != handle)
		mtp_handles_drop(t, old);
	mtp_handles_unhash(t, handle);
	mtp_names_drop(t->names, o->obj.name);
	o->obj.name = n;
	o->obj.parent = parent;
	mtp_handles_rehash(t, handle);
	mtp_handles_compact(t);
	return 0;
}

size_t mtp_handles_name_bytes(struct mtp_handles *t)
{
	return mtp_names_live(t->names) + mtp_names_dead(t->names);
}

/* True when folder `anc` is parent or one of its ancestors. */
bool mtp_handles_is_ancestor(struct mtp_handles *t, uint32_t anc,
			     uint32_t parent)
{
	for (unsigned i = 0; parent != MTP_HANDLES_ROOT && i < MTP_FS_MAX_DEPTH;
	     i++) {
		const struct mtp_handles_obj *o = mtp_handles_obj(t, parent);

		if (parent == anc)
			return true;
		if (!o)
			return false;
		parent = o->parent;
	}
	return false;
}
