/*
 * mtp_names: the names of the handle table's objects (mtp_handles.c),
 * packed one after another in blocks: a name costs its bytes and its NUL,
 * without the 8-byte header and 16-byte rounding of a malloc of its own
 * (a 16-byte camera name took 32 bytes with strdup). A name never moves:
 * a pointer to it is good until the arena is freed. Dropped names stay
 * where they are as dead bytes; the owner compacts by copying the live
 * names into a new arena (mtp_handles_compact).
 */
#ifndef GADGETD_MTP_NAMES_H
#define GADGETD_MTP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

struct mtp_names;

/* NULL when out of memory. */
struct mtp_names *mtp_names_new(void);
void mtp_names_free(struct mtp_names *a);

/* A copy of s, good until a is freed; NULL when out of memory. */
char *mtp_names_add(struct mtp_names *a, const char *s);
/* Room for n bytes of names (their NULs counted) in one block, so that
 * adding them cannot fail; false when out of memory. */
bool mtp_names_reserve(struct mtp_names *a, size_t n);
/* The copy at s (from mtp_names_add) is no longer used: its bytes are
 * dead, or free again when it was the last one added. */
void mtp_names_drop(struct mtp_names *a, const char *s);

/* The bytes of the names added and not dropped (their NULs counted). */
size_t mtp_names_live(const struct mtp_names *a);
/* The bytes of the dropped names, still held. */
size_t mtp_names_dead(const struct mtp_names *a);

#endif
