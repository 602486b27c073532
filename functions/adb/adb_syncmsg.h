/*
 * adb_syncmsg: the wire format of the sync: service (AOSP SYNC.TXT).
 *
 * Requests are {u32 id, u32 len} followed by len bytes of path (at most
 * ADB_SYNC_PATH_MAX). After SEND the host streams DATA {id, len} + len
 * bytes (len <= 64 KiB) and ends with DONE {id, mtime}. sendrecv_v2's
 * SND2 and RCV2 carry no ",mode" in the path but a setup message right
 * after it, with the same id: SND2 {id, mode, flags}, RCV2 {id, flags};
 * the flags pick a compression of the DATA bytes and a dry run. The parser below
 * cuts a byte stream of requests into events, whatever the WRTE boundaries.
 */
#ifndef GADGETD_ADB_SYNCMSG_H
#define GADGETD_ADB_SYNCMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define ADB_SYNC_ID(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	 (uint32_t)(d) << 24)
#define ADB_SYNC_STAT ADB_SYNC_ID('S', 'T', 'A', 'T')
#define ADB_SYNC_STA2 ADB_SYNC_ID('S', 'T', 'A', '2')
#define ADB_SYNC_LST2 ADB_SYNC_ID('L', 'S', 'T', '2')
#define ADB_SYNC_LIST ADB_SYNC_ID('L', 'I', 'S', 'T')
#define ADB_SYNC_LIS2 ADB_SYNC_ID('L', 'I', 'S', '2')
#define ADB_SYNC_DENT ADB_SYNC_ID('D', 'E', 'N', 'T')
#define ADB_SYNC_DNT2 ADB_SYNC_ID('D', 'N', 'T', '2')
#define ADB_SYNC_SEND ADB_SYNC_ID('S', 'E', 'N', 'D')
#define ADB_SYNC_RECV ADB_SYNC_ID('R', 'E', 'C', 'V')
#define ADB_SYNC_DATA ADB_SYNC_ID('D', 'A', 'T', 'A')
#define ADB_SYNC_DONE ADB_SYNC_ID('D', 'O', 'N', 'E')
#define ADB_SYNC_OKAY ADB_SYNC_ID('O', 'K', 'A', 'Y')
#define ADB_SYNC_FAIL ADB_SYNC_ID('F', 'A', 'I', 'L')
#define ADB_SYNC_QUIT ADB_SYNC_ID('Q', 'U', 'I', 'T')
#define ADB_SYNC_SND2 ADB_SYNC_ID('S', 'N', 'D', '2')
#define ADB_SYNC_RCV2 ADB_SYNC_ID('R', 'C', 'V', '2')

/* sendrecv_v2 flags (AOSP file_sync_protocol.h SyncFlag). */
#define ADB_SYNC_FLAG_BROTLI 1u
#define ADB_SYNC_FLAG_LZ4 2u
#define ADB_SYNC_FLAG_ZSTD 4u
#define ADB_SYNC_FLAG_DRY_RUN 0x80000000u

#define ADB_SYNC_PATH_MAX 1024
#define ADB_SYNC_DATA_MAX (64 * 1024)
#define ADB_SYNC_STAT_V1_SIZE 16
#define ADB_SYNC_STAT_V2_SIZE 72
#define ADB_SYNC_DENT_V1_SIZE 20
#define ADB_SYNC_DENT_V2_SIZE 76

enum adb_syncmsg_event_type {
	ADB_SYNC_EV_NONE,    /* all input used; need more */
	ADB_SYNC_EV_REQUEST, /* id, path (NUL-terminated), path_len; for
			      * SND2 mode and flags, for RCV2 flags */
	ADB_SYNC_EV_DATA,    /* a piece of a DATA message: data, len */
	ADB_SYNC_EV_DONE,    /* end of a SEND: mtime */
};

struct adb_syncmsg_event {
	enum adb_syncmsg_event_type type;
	uint32_t id;
	const char *path;
	size_t path_len;
	const uint8_t *data;
	size_t len;
	uint32_t mtime;
	uint32_t mode;
	uint32_t flags;
};

struct adb_syncmsg_parser {
	int state;
	uint8_t hdr[8];
	size_t hdr_have;
	uint32_t id;
	uint32_t left;
	char path[ADB_SYNC_PATH_MAX + 1];
	size_t path_have;
	uint8_t setup[12];
	size_t setup_have;
};

void adb_syncmsg_parser_init(struct adb_syncmsg_parser *p);
/*
 * Take bytes from buf until one event is complete (or buf is used up).
 * *used tells how much was taken. Returns 0 with ev filled, or:
 * -ENAMETOOLONG for a path over ADB_SYNC_PATH_MAX, -EINVAL for a NUL
 * inside a path, -EMSGSIZE for DATA over 64 KiB, -EPROTO for anything but
 * DATA/DONE after SEND, -ENOTSUP for an unknown request id, -EPROTO for
 * a SND2/RCV2 setup message with another id. The parser
 * must not be fed again after an error.
 */
int adb_syncmsg_parse(struct adb_syncmsg_parser *p, const uint8_t *buf,
		      size_t len, size_t *used, struct adb_syncmsg_event *ev);

/* A little-endian u32 store (requests in tests and fuzzers). */
void adb_syncmsg_put32(uint8_t *p, uint32_t v);

/*
 * Replies, every field little-endian (AOSP SYNC.TXT, file_sync_protocol.h):
 *   {id, arg}: 8 bytes. OKAY {OKAY, 0}; FAIL {FAIL, len} + len bytes of
 *     message; DATA {DATA, len} + len bytes; DONE {DONE, 0} ends a RECV.
 *   STAT (v1): {id, mode, size, mtime}, 16 bytes. v1 has no error field:
 *     a failed lstat() reads as all zeros after the id.
 *   STA2/LST2: {id, error, dev:64, ino:64, mode, nlink, uid, gid, size:64,
 *     atime:64, mtime:64, ctime:64}, 72 bytes; error is an errno, and the
 *     fields after it are zero when it is set.
 *   DENT: {DENT, mode, size, mtime, namelen} + name, 20 + namelen bytes.
 *   DNT2: STA2's 72 bytes with id DNT2, then namelen, + name: 76 + namelen.
 *   A listing ends with one record of its entries' fixed size whose id is
 *     DONE and whose other fields are zero.
 * Each writer fills exactly the size named above; the caller reserves it.
 */
void adb_syncmsg_put_header(uint8_t *p, uint32_t id, uint32_t arg);
/* STAT v1 for st, or the failure record when st is NULL. */
void adb_syncmsg_put_stat_v1(uint8_t *p, const struct stat *st);
/* STA2 or LST2 (id) for st, or the failure record for errno err != 0
 * (then st is not read). */
void adb_syncmsg_put_stat_v2(uint8_t *p, uint32_t id, const struct stat *st,
			     int err);
/* DENT for name[0..len) with st; returns the bytes written. */
size_t adb_syncmsg_put_dent_v1(uint8_t *p, const struct stat *st,
			       const char *name, size_t len);
/* DNT2 for name[0..len) with st, or with errno err != 0 and zeros (st is
 * not read); returns the bytes written. */
size_t adb_syncmsg_put_dent_v2(uint8_t *p, const struct stat *st, int err,
			       const char *name, size_t len);
/* The DONE that ends a LIST (v2 false) or LIS2 listing; returns its size. */
size_t adb_syncmsg_put_list_done(uint8_t *p, bool v2);

#endif
