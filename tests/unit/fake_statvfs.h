/*
 * A small disk for the MTP unit tests, without privileges: link with
 * -Wl,--wrap=fstatvfs64 and every fstatvfs() reports a file system of
 * `capacity` bytes whose used space is the size of the regular files
 * under `root` (hidden ones included), as a tmpfs of that size would.
 */
#ifndef GADGETD_FAKE_STATVFS_H
#define GADGETD_FAKE_STATVFS_H

#include <stdint.h>

/* root NULL: the real fstatvfs() again. */
void fake_statvfs_set(const char *root, uint64_t capacity);
/* What the fake disk has free now. */
uint64_t fake_statvfs_free(void);
/* Give the fake disk an inode table of that many inodes, of which every
 * file and folder under root takes one (0, after each set: none, as
 * btrfs reports). */
void fake_statvfs_set_inodes(uint64_t inodes);
uint64_t fake_statvfs_free_inodes(void);
/* How many fstatvfs() calls the fake disk has answered so far. */
unsigned fake_statvfs_looks(void);

#endif
