/*
 * accessory_info: the six identification strings an Android Open Accessory
 * host sends with SEND_STRING (manufacturer, model, description, version,
 * URI, serial), and their text form.
 *
 * The text form is used both for the state file that carries the strings
 * from the control instance to the data instance across a gadget switch,
 * and for the header the data instance sends to a board application:
 *
 *   manufacturer=Acme\n
 *   model=Head Unit\n
 *   description=...\n
 *   version=1.0\n
 *   uri=https://...\n
 *   serial=0001\n
 *   \n
 *
 * Always all six keys in this order, then an empty line. A value holds at
 * most ACCESSORY_INFO_MAX - 1 bytes and no control characters (bytes below
 * 0x20 and 0x7f): those a host sends are replaced by '?' on reception, so
 * a value never contains a newline. Other bytes (UTF-8) pass unchanged.
 */
#ifndef GADGETD_ACCESSORY_INFO_H
#define GADGETD_ACCESSORY_INFO_H

#include <stddef.h>
#include <stdint.h>

/* SEND_STRING's wIndex values. */
enum accessory_info_field {
	ACCESSORY_INFO_MANUFACTURER,
	ACCESSORY_INFO_MODEL,
	ACCESSORY_INFO_DESCRIPTION,
	ACCESSORY_INFO_VERSION,
	ACCESSORY_INFO_URI,
	ACCESSORY_INFO_SERIAL,
};

#define ACCESSORY_INFO_N 6
/* AOA's limit: 256 bytes including the terminating NUL. */
#define ACCESSORY_INFO_MAX 256
/* Room for the whole text form: six "key=value\n" plus the empty line. */
#define ACCESSORY_INFO_TEXT_MAX 2048
/* The state file's name under the state directory. */
#define ACCESSORY_INFO_FILE "accessory.info"

struct accessory_info {
	char s[ACCESSORY_INFO_N][ACCESSORY_INFO_MAX];
};

void accessory_info_clear(struct accessory_info *ai);

/* "manufacturer", "model", ...; NULL for field >= ACCESSORY_INFO_N. */
const char *accessory_info_key(unsigned field);

/*
 * Store what a host sent as field: data[0..len) must hold a NUL within
 * its first ACCESSORY_INFO_MAX bytes; what follows the NUL is ignored.
 * Returns 0, -EINVAL for a bad field, -EMSGSIZE when len is 0 or above
 * ACCESSORY_INFO_MAX, or -EBADMSG when there is no NUL. On error the
 * stored value is unchanged.
 */
int accessory_info_set(struct accessory_info *ai, unsigned field,
		       const uint8_t *data, size_t len);

/* Write the text form into buf; returns its length or -ENOSPC. */
int accessory_info_format(const struct accessory_info *ai, char *buf,
			  size_t size);

/*
 * Parse the text form (exactly what accessory_info_format writes; every
 * key once, in any order, then the empty line and nothing after it).
 * Returns 0, -EBADMSG for anything malformed (unknown or repeated key,
 * missing '=', control character or NUL, missing terminator, trailing
 * bytes) or -EMSGSIZE for an overlong value. *ai is only written on
 * success.
 */
int accessory_info_parse(struct accessory_info *ai, const char *text,
			 size_t len);

/*
 * Write dir/ACCESSORY_INFO_FILE atomically (temporary file, fsync,
 * rename), creating dir (one level) if needed. Returns 0 or -errno.
 */
int accessory_info_save(const struct accessory_info *ai, const char *dir);
/* Read and parse dir/ACCESSORY_INFO_FILE. Returns 0 or -errno. */
int accessory_info_load(struct accessory_info *ai, const char *dir);

#endif
