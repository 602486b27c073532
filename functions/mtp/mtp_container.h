/*
 * mtp_container: PTP/MTP wire encoding.
 *
 * Everything on the wire is little-endian. A container is a 12-byte header
 * {u32 length, u16 type, u16 code, u32 transaction id} followed by up to
 * five u32 parameters (command, response, event) or by a dataset (data).
 * A PTP string is a u8 count of UTF-16 code units including the final NUL,
 * then the code units; the empty string is the single byte 0.
 */
#ifndef GADGETD_MTP_CONTAINER_H
#define GADGETD_MTP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The primitives every codec of the plugin uses come with the container. */
#include "mtp_buf.h"
#include "mtp_rd.h"

#define MTP_HDR_LEN 12
#define MTP_MAX_PARAMS 5

enum mtp_container_type {
	MTP_TYPE_COMMAND = 1,
	MTP_TYPE_DATA = 2,
	MTP_TYPE_RESPONSE = 3,
	MTP_TYPE_EVENT = 4,
};

struct mtp_container {
	uint32_t len;
	uint16_t type;
	uint16_t code;
	uint32_t tid;
	unsigned nparams;
	uint32_t params[MTP_MAX_PARAMS];
};

/* Parse a command container of exactly len bytes. -EBADMSG when the
 * length field disagrees, the type is not COMMAND, or the parameter area
 * is not a whole number of u32 (at most five). */
int mtp_container_parse_cmd(const uint8_t *p, size_t len,
			    struct mtp_container *c);
/* Parse only the 12-byte header of a data container. */
int mtp_container_parse_hdr(const uint8_t *p, size_t len,
			    struct mtp_container *c);
/* Write a header into out[MTP_HDR_LEN]. */
void mtp_container_hdr(uint8_t *out, uint32_t len, uint16_t type, uint16_t code,
		       uint32_t tid);
/* Build a response or event container with n params into out (32 bytes
 * are enough); returns its length. */
size_t mtp_container_build(uint8_t *out, uint16_t type, uint16_t code,
			   uint32_t tid, const uint32_t *params, unsigned n);

/*
 * The data stages of two still image class requests on ep0 (USB Still
 * Image Capture Device Definition, which MTP 1.1 keeps): they are not
 * containers, but the same little-endian wire.
 */
/* The 6 bytes of Cancel Request (0x64): u16 CancelTransaction (0x4001),
 * then the u32 id of the transaction the host cancels. */
#define MTP_CANCEL_LEN 6
/*
 * Parse a Cancel Request's data stage of len bytes into *tid. -EBADMSG
 * when it is shorter than MTP_CANCEL_LEN or its code is not
 * CancelTransaction; bytes after the sixth are ignored.
 */
int mtp_container_parse_cancel(const uint8_t *p, size_t len, uint32_t *tid);
/* Get Device Status (0x67) without parameters: u16 wLength (4, itself
 * included), u16 a response code. */
#define MTP_DEVICE_STATUS_LEN 4
/* Write that status with response code code into out[MTP_DEVICE_STATUS_LEN];
 * returns its length. */
size_t mtp_container_device_status(uint8_t *out, uint16_t code);

#endif
