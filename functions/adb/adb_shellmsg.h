/*
 * adb_shellmsg: the framing of shell protocol v2 (AOSP shell_protocol.h).
 *
 * Each packet is a 5-byte header, {u8 id, u32 length (little-endian)},
 * followed by length bytes of payload. The host sends stdin, close-stdin
 * and window-size packets; the device sends stdout, stderr and one exit
 * packet whose payload is the exit status byte.
 *
 * The reader cuts a byte stream into packets whatever the WRTE
 * boundaries, and lets its caller take less of a payload than it is given
 * (stdin may be full), so it never buffers payload itself.
 */
#ifndef GADGETD_ADB_SHELLMSG_H
#define GADGETD_ADB_SHELLMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADB_SHELL_ID_STDIN 0
#define ADB_SHELL_ID_STDOUT 1
#define ADB_SHELL_ID_STDERR 2
#define ADB_SHELL_ID_EXIT 3
#define ADB_SHELL_ID_CLOSE_STDIN 4
#define ADB_SHELL_ID_WINSIZE 5
#define ADB_SHELLMSG_HDR 5

struct adb_shellmsg_reader {
	uint8_t hdr[ADB_SHELLMSG_HDR];
	uint8_t have; /* header bytes so far; ADB_SHELLMSG_HDR: in a payload */
	uint8_t id;
	uint32_t left; /* payload bytes not yet taken */
};

/* Writes a header for a payload of len bytes into out. */
void adb_shellmsg_put_hdr(uint8_t out[ADB_SHELLMSG_HDR], uint8_t id,
			  uint32_t len);

/* Takes header bytes from d (len of them); returns how many it used.
 * When it returns with adb_shellmsg_in_payload() true, a header has just
 * completed: id and left describe the packet. Used bytes never exceed the
 * header's rest, so a payload is never consumed here. */
size_t adb_shellmsg_take_hdr(struct adb_shellmsg_reader *r, const uint8_t *d,
			     size_t len);

static inline bool adb_shellmsg_in_payload(const struct adb_shellmsg_reader *r)
{
	return r->have == ADB_SHELLMSG_HDR;
}

/* How many of avail bytes belong to the current payload. */
static inline size_t adb_shellmsg_payload(const struct adb_shellmsg_reader *r,
					  size_t avail)
{
	return avail < r->left ? avail : r->left;
}

/* The caller took n payload bytes (n <= left); returns true when that
 * ended the packet, and the reader then waits for the next header. */
bool adb_shellmsg_took(struct adb_shellmsg_reader *r, size_t n);

#endif
