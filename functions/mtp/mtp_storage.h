/*
 * mtp_storage: one storage of an MTP store, as the store's parts see it.
 * mtp_store.c makes and frees storages; walking (mtp_walk) and uploads
 * (mtp_upload) are handed the one they work in, and reach the objects in
 * it through their handles' storage id.
 */
#ifndef GADGETD_MTP_STORAGE_H
#define GADGETD_MTP_STORAGE_H

#include "mtp_fs.h"

#include <stdbool.h>
#include <stdint.h>

struct mtp_storage {
	uint32_t id;
	int rootfd; /* everything in it is opened beneath this (mtp_fs) */
	bool readonly;
	struct mtp_fs_reserve reserve; /* what writes must leave free */
	char *path;
	char *desc;
};

#endif
