/*
 * mtp_events: tell the host about changes made on the board.
 *
 * Every folder the host has listed is watched with inotify. A new name
 * the host does not know yet is announced with ObjectAdded, a known one
 * that disappears with ObjectRemoved, a known file rewritten or touched
 * with ObjectInfoChanged. Changes the host made itself through MTP are
 * not echoed back: their handles are already known (added) or already
 * forgotten (removed).
 */
#ifndef GADGETD_MTP_EVENTS_H
#define GADGETD_MTP_EVENTS_H

#include "mtp_store.h"

#include <stdint.h>

struct loop;
struct mtp_events;

typedef void (*mtp_events_fn)(void *data, uint16_t code, uint32_t param);

/* Registers itself as the store's listed-folder callback. name starts
 * its log lines ("mtp"); it must outlive the events. */
struct mtp_events *mtp_events_new(const char *name, struct loop *l,
				  struct mtp_store *s, mtp_events_fn fn,
				  void *data);
void mtp_events_free(struct mtp_events *e);

/* The host itself just wrote handle: do not report its close back. */
void mtp_events_mute(struct mtp_events *e, uint32_t handle);

/* Stop watching the folders of storage, which goes away (e may be
 * NULL). */
void mtp_events_forget_storage(struct mtp_events *e, uint32_t storage);

/* Process pending inotify records now (the loop does this by itself). */
void mtp_events_dispatch(struct mtp_events *e);

#endif
