#include "fake_statvfs.h"

#include <ftw.h>
#include <string.h>
#include <sys/statvfs.h>

#define FAKE_STATVFS_BLOCK 4096

/* The build's _FILE_OFFSET_BITS=64 makes <sys/statvfs.h> send fstatvfs()
 * to fstatvfs64, on 64-bit targets too: that is the symbol to wrap. */
int __real_fstatvfs64(int fd, struct statvfs *buf);
int __wrap_fstatvfs64(int fd, struct statvfs *buf);

static char fake_root[256];
static uint64_t fake_capacity;
static uint64_t fake_used;
static uint64_t fake_inodes; /* 0: no inode table, as btrfs says */
static uint64_t fake_entries;

static int fake_statvfs_add(const char *path, const struct stat *sb, int flag,
			    struct FTW *ftw)
{
	if (ftw->level > 0)
		fake_entries++;
	if (flag == FTW_F && S_ISREG(sb->st_mode))
		fake_used += ((uint64_t)sb->st_size + FAKE_STATVFS_BLOCK - 1) /
			     FAKE_STATVFS_BLOCK * FAKE_STATVFS_BLOCK;
	return 0;
}

void fake_statvfs_set(const char *root, uint64_t capacity)
{
	fake_root[0] = 0;
	if (root)
		strncpy(fake_root, root, sizeof(fake_root) - 1);
	fake_capacity = capacity;
	fake_inodes = 0;
}

void fake_statvfs_set_inodes(uint64_t inodes)
{
	fake_inodes = inodes;
}

uint64_t fake_statvfs_free_inodes(void)
{
	fake_statvfs_free();
	return fake_entries < fake_inodes ? fake_inodes - fake_entries : 0;
}

uint64_t fake_statvfs_free(void)
{
	fake_used = 0;
	fake_entries = 0;
	nftw(fake_root, fake_statvfs_add, 16, FTW_PHYS);
	return fake_used < fake_capacity ? fake_capacity - fake_used : 0;
}

static unsigned fake_looks;

unsigned fake_statvfs_looks(void)
{
	return fake_looks;
}

int __wrap_fstatvfs64(int fd, struct statvfs *buf)
{
	if (!fake_root[0])
		return __real_fstatvfs64(fd, buf);
	fake_looks++;
	memset(buf, 0, sizeof(*buf));
	buf->f_bsize = buf->f_frsize = FAKE_STATVFS_BLOCK;
	buf->f_blocks = fake_capacity / FAKE_STATVFS_BLOCK;
	buf->f_bfree = buf->f_bavail = fake_statvfs_free() / FAKE_STATVFS_BLOCK;
	buf->f_files = fake_inodes;
	buf->f_ffree = buf->f_favail = fake_statvfs_free_inodes();
	return 0;
}
