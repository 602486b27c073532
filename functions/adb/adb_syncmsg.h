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

#include <stddef.h>
#include <stdint.h>

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

/* Little-endian stores for building replies. */
void adb_syncmsg_put32(uint8_t *p, uint32_t v);
void adb_syncmsg_put64(uint8_t *p, uint64_t v);

#endif
