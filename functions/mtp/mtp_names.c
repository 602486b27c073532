/*
 * mtp_names: names packed in blocks that never move (see mtp_names.h).
 */
#include "mtp_names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The first block holds 4 KiB of names, each next one twice the last up
 * to 64 KiB: a small store costs little, and a block's unused end (a name
 * that does not fit starts the next one) stays under 0.4 % of a big one.
 * A name longer than a block gets a block of its own size. */
#define MTP_NAMES_FIRST 4096u
#define MTP_NAMES_MAX_BLOCK 65536u

struct mtp_names_block {
	struct mtp_names_block *prev;
	size_t size, used;
	char data[];
};

struct mtp_names {
	struct mtp_names_block *cur; /* the block names go into; NULL: none */
	size_t next_size;	     /* the next block's */
	size_t live, dead;
};

struct mtp_names *mtp_names_new(void)
{
	struct mtp_names *a = calloc(1, sizeof(*a));

	if (a)
		a->next_size = MTP_NAMES_FIRST;
	return a;
}

void mtp_names_free(struct mtp_names *a)
{
	if (!a)
		return;
	while (a->cur) {
		struct mtp_names_block *b = a->cur;

		a->cur = b->prev;
		free(b);
	}
	free(a);
}

/* A new current block with room for n bytes; false when out of memory. */
static bool mtp_names_block_new(struct mtp_names *a, size_t n)
{
	size_t size = a->next_size > n ? a->next_size : n;
	struct mtp_names_block *b = malloc(sizeof(*b) + size);

	if (!b)
		return false;
	b->prev = a->cur;
	b->size = size;
	b->used = 0;
	a->cur = b;
	if (a->next_size < MTP_NAMES_MAX_BLOCK)
		a->next_size *= 2;
	return true;
}

bool mtp_names_reserve(struct mtp_names *a, size_t n)
{
	return (a->cur && a->cur->size - a->cur->used >= n) ||
	       mtp_names_block_new(a, n);
}

char *mtp_names_add(struct mtp_names *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (!mtp_names_reserve(a, n))
		return NULL;
	p = a->cur->data + a->cur->used;
	memcpy(p, s, n);
	a->cur->used += n;
	a->live += n;
	return p;
}

void mtp_names_drop(struct mtp_names *a, const char *s)
{
	size_t n = strlen(s) + 1;

	a->live -= n;
	/* The last name added (an intern that found the table full) is
	 * taken back: a host listing a full table again and again must not
	 * grow the dead bytes. */
	if (s == a->cur->data + a->cur->used - n)
		a->cur->used -= n;
	else
		a->dead += n;
}

size_t mtp_names_live(const struct mtp_names *a)
{
	return a->live;
}

size_t mtp_names_dead(const struct mtp_names *a)
{
	return a->dead;
}
