/*
 * mtp_proplist: the ObjectPropList dataset of a GetObjectPropList,
 * produced as the data phase goes.
 *
 * mtp_proplist_new() collects the objects the request covers, with the
 * stat each listing made (one stat an object), and renders each one's
 * entries once to count them, so the dataset's length is known before a
 * byte is sent. The rendered entries are kept for mtp_proplist_fill()
 * up to 4 MiB (about 16 000 objects of libmtp's whole-device request,
 * which then streams at the bus's pace); past that, only each object's
 * handle and length are kept (8 bytes) and its entries are rendered anew
 * as the data phase goes, checked against the length counted.
 */
#ifndef GADGETD_MTP_PROPLIST_H
#define GADGETD_MTP_PROPLIST_H

#include "mtp_buf.h"
#include "mtp_store.h"

#include <stddef.h>
#include <stdint.h>

/* Beyond this many objects a request is refused (-E2BIG); libmtp then
 * falls back to listing folder by folder. */
#define MTP_PROPLIST_MAX_OBJS 200000

/* Rendered entries kept from the count for the data phase, at most. */
#define MTP_PROPLIST_KEEP (4u << 20)
/* MTP_PROPLIST_KEEP; tests lower it to reach the rendering anew. */
extern size_t mtp_proplist_keep_max;

struct mtp_proplist;

/*
 * The list of property prop (0xFFFFFFFF: all; the caller checked it is
 * one we have) of the objects of format fmt (0: any) covered by handle
 * and depth: handle alone at depth 0, otherwise what lies up to depth
 * levels below it, where handle 0 stands for the roots; handle
 * 0xFFFFFFFF is every object of every storage. *len gets the dataset's
 * length. -ENOENT when handle does not exist, -E2BIG for too many
 * objects, -ENOMEM.
 */
int mtp_proplist_new(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, uint32_t depth, struct mtp_proplist **out,
		     uint64_t *len);
/*
 * The next n bytes of the dataset into out: 0, or -EIO when the store
 * changed since it was counted (the rest of out is then zeros, so the
 * framing holds; answer Incomplete_Transfer).
 */
int mtp_proplist_fill(struct mtp_proplist *pl, uint8_t *out, size_t n);
/*
 * The whole dataset of one object (a handle at depth 0, what libmtp asks
 * for each object it walks) into b, emptied first: a single stat and no
 * allocation beyond b, so it can go out as one data phase. An object of
 * another format gives an empty list. -ENOENT when handle does not exist.
 */
int mtp_proplist_one(struct mtp_store *s, uint32_t handle, uint16_t fmt,
		     uint32_t prop, struct mtp_buf *b);
void mtp_proplist_free(struct mtp_proplist *pl);

#endif
