/*
 * adb_packet: the 24-byte ADB message header and the byte-stream reader
 * that cuts what arrives on the bulk OUT endpoint into messages.
 */
#ifndef GADGETD_ADB_PACKET_H
#define GADGETD_ADB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADB_CNXN 0x4e584e43u
#define ADB_AUTH 0x48545541u
#define ADB_OPEN 0x4e45504fu
#define ADB_OKAY 0x59414b4fu
#define ADB_CLSE 0x45534c43u
#define ADB_WRTE 0x45545257u

#define ADB_HDR_SIZE 24
#define ADB_VERSION_MIN 0x01000000u
#define ADB_VERSION 0x01000001u
/* From this version on the data_check field is not checked (and is 0). */
#define ADB_VERSION_SKIP_CHECKSUM 0x01000001u
#define ADB_MAX_PAYLOAD (1024 * 1024)
/* What a pre-CNXN peer may send: adb's MAX_PAYLOAD_V1. */
#define ADB_MAX_PAYLOAD_V1 (4 * 1024)

struct adb_hdr {
	uint32_t cmd;
	uint32_t arg0;
	uint32_t arg1;
	uint32_t len;
	uint32_t check;
	uint32_t magic;
};

/* Decode 24 bytes; no validation. */
void adb_packet_decode(const uint8_t *buf, struct adb_hdr *h);
/* Encode a header for cmd with payload data[0..len) (check is 0 unless
 * with_check). */
void adb_packet_encode(uint8_t *buf, uint32_t cmd, uint32_t arg0,
		       uint32_t arg1, const void *data, uint32_t len,
		       int with_check);
/* Sum of the payload bytes, as the data_check of old protocol versions. */
uint32_t adb_packet_checksum(const void *data, size_t len);
/*
 * Check a decoded header: -EBADMSG for a bad magic, -ENOTSUP for an
 * unknown command, -EMSGSIZE when len exceeds max_payload.
 */
int adb_packet_validate(const struct adb_hdr *h, uint32_t max_payload);
/* "CNXN" etc. for logs; unprintable commands come out as "????". */
void adb_packet_cmd_name(uint32_t cmd, char name[5]);

/*
 * adb_packet_reader: reassembles messages from a byte stream, whatever the
 * split of the transfers. A message whose payload arrives in one piece with its
 * header's end is handed on without a copy.
 */
struct adb_packet_reader;

/* Called for every whole message. A negative return stops the feed and
 * is returned by adb_packet_reader_feed. */
typedef int (*adb_packet_reader_fn)(void *data, const struct adb_hdr *h,
				    const uint8_t *payload);

/*
 * Called once for a message whose header is in but whose payload is
 * still to come (not all of it in the bytes being fed), before any of
 * the payload; the message itself follows through adb_packet_reader_fn.
 * Lets the owner answer a WRTE while its payload is still on the bus.
 */
typedef void (*adb_packet_head_fn)(void *data, const struct adb_hdr *h);

struct adb_packet_reader *adb_packet_reader_new(adb_packet_reader_fn fn,
						void *data);
void adb_packet_reader_free(struct adb_packet_reader *r);
/* Set (or clear, NULL) the head callback; it gets the reader's data. */
void adb_packet_reader_set_head(struct adb_packet_reader *r,
				adb_packet_head_fn head);
/* Limit accepted from now on (the negotiated max payload). */
void adb_packet_reader_set_max(struct adb_packet_reader *r,
			       uint32_t max_payload);
/* Forget any partial message. */
void adb_packet_reader_reset(struct adb_packet_reader *r);
/*
 * Feed received bytes. Returns 0, the first negative return of the
 * callback, or -EBADMSG / -EMSGSIZE for a header that cannot be framed
 * (the reader is then reset; the caller should reset the connection).
 * Messages with an unknown command but a sound header are delivered: the
 * callback decides what to do with them.
 */
int adb_packet_reader_feed(struct adb_packet_reader *r, const uint8_t *buf,
			   size_t len);

/*
 * Receiving a payload in place: where the rest of the payload of the
 * message whose header is in may be written, and how many bytes it
 * still wants (*len); NULL (and 0) when the reader wants a header.
 * Calls head() first if it has not been called for this message.
 * Nothing past *len may be written: the next message's bytes go through
 * adb_packet_reader_feed.
 */
uint8_t *adb_packet_reader_room(struct adb_packet_reader *r, size_t *len);
/*
 * n bytes were written where adb_packet_reader_room said: hands the
 * message on once its payload is whole. Returns 0, the callback's
 * negative return, or -EINVAL for more than the room (nothing counted).
 */
int adb_packet_reader_filled(struct adb_packet_reader *r, size_t n);

/*
 * Whether the CNXN banner ("host::features=a,b,c", or with other
 * properties before it, separated by ';') in payload (len bytes, from the
 * host: not trusted to end with a NUL) lists feature.
 */
bool adb_packet_banner_has_feature(const uint8_t *payload, size_t len, const char *feature);

#endif
