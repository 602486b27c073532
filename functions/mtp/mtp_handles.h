/*
 * mtp_handles: the table of the objects a host has been told about, and
 * their handles. An object is a name under a parent (a folder's handle,
 * or MTP_HANDLES_ROOT) in a storage (an id, which the table does not
 * interpret); nothing here touches a disk.
 *
 * A handle stays stable while its object lives (re-interning the same
 * name gives it back; a rekeyed object keeps it). A forgotten object's
 * handle is dead: it names nothing from then on, and its slot is given
 * to another object only under a new handle. Whoever caches anything by
 * handle is told, through the changed callback, each time an object is
 * forgotten or rekeyed.
 */
#ifndef GADGETD_MTP_HANDLES_H
#define GADGETD_MTP_HANDLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Upper bound on objects known at once, to bound memory whatever the host
 * lists. A handle of a forgotten object is never given to another object
 * until its slot was reused 2048 times, which takes more than 2 million
 * forgets (see mtp_handles.c).
 */
#define MTP_HANDLES_MAX ((1u << 21) - 1)
/* The parent of an object at the top of its storage. */
#define MTP_HANDLES_ROOT 0u

struct mtp_handles;

/* What the table holds of a live object; valid until the next call that
 * interns, forgets or rekeys. Its name is good longer: until the next
 * call that forgets or rekeys (interning moves no name, so a listing may
 * keep the names of what it interned; mtp_store_list_stat). */
struct mtp_handles_obj {
	char *name;
	uint32_t storage;
	uint32_t parent; /* a handle, or MTP_HANDLES_ROOT */
};

/* An object was forgotten or rekeyed: what was cached by handle may be
 * stale. Called from inside the table, which it must not change. */
typedef void (*mtp_handles_changed_fn)(void *data);

/* NULL when out of memory. fn (NULL: none) is called with data. */
struct mtp_handles *mtp_handles_new(mtp_handles_changed_fn fn, void *data);
void mtp_handles_free(struct mtp_handles *h);

/* Hold at most n objects at once (0: MTP_HANDLES_MAX), for tests. A
 * smaller table keeps half its size in quarantine (see mtp_handles.c). */
void mtp_handles_set_max(struct mtp_handles *h, uint32_t n);

/* The live object of handle, or NULL. */
const struct mtp_handles_obj *mtp_handles_obj(struct mtp_handles *h,
					      uint32_t handle);
/* The handle already given to (storage, parent, name), or 0. */
uint32_t mtp_handles_find(struct mtp_handles *h, uint32_t storage,
			  uint32_t parent, const char *name);
/* The handle of (storage, parent, name), adding an entry if needed.
 * -ENOSPC when the table is full, -ENOMEM. */
int mtp_handles_intern(struct mtp_handles *h, uint32_t storage, uint32_t parent,
		       const char *name, uint32_t *out);
/* Forget handle (a dead one is fine). Calls the changed callback. */
void mtp_handles_forget(struct mtp_handles *h, uint32_t handle);
/* Forget handle and everything listed below it. */
void mtp_handles_forget_tree(struct mtp_handles *h, uint32_t handle);
/* Forget every object of storage (its storage went away). */
void mtp_handles_forget_storage(struct mtp_handles *h, uint32_t storage);
/*
 * Re-key live handle under (parent, name) of its storage; a stale entry
 * there is forgotten. Calls the changed callback. -ENOMEM.
 */
int mtp_handles_rekey(struct mtp_handles *h, uint32_t handle, uint32_t parent,
		      const char *name);
/* The bytes the names of the objects take, and those of forgotten names
 * not yet reclaimed (for tests). */
size_t mtp_handles_name_bytes(struct mtp_handles *h);
/* True when folder `anc` is parent or one of its ancestors. */
bool mtp_handles_is_ancestor(struct mtp_handles *h, uint32_t anc,
			     uint32_t parent);

#endif
