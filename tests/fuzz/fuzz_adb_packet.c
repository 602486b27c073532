/*
 * libFuzzer target: the ADB OUT byte-stream reader. The first input byte
 * picks how the rest is cut into transfers, so every split of the same
 * bytes is tried, and whether a payload's rest is received in place
 * (adb_packet_reader_room, as the TCP transport does) or fed; whatever
 * arrives must come out as sound messages.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adb/adb_packet.h"

#define FUZZ_MAX 65536

static int on_msg(void *data, const struct adb_hdr *h, const uint8_t *payload)
{
	uint8_t sum = 0;

	/* The reader may only hand on framed, bounded messages. */
	if (h->magic != (h->cmd ^ 0xffffffffu) || h->len > FUZZ_MAX)
		abort();
	if ((h->len != 0) != (payload != NULL))
		abort();
	for (uint32_t i = 0; i < h->len; i++)
		sum += payload[i]; /* ASan: the whole payload is readable */
	(void)sum;
	return h->cmd == ADB_CLSE && h->arg0 == 0xdead ? -ECANCELED : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One reader for all runs: its 1 MiB buffer is costly to make. */
	static struct adb_packet_reader *r;
	size_t step;
	bool in_place;

	if (size < 1)
		return 0;
	in_place = data[0] & 0x80;
	step = data[0] & 0x7f ? data[0] & 0x7f : 24;
	data++;
	size--;
	if (!r)
		r = adb_packet_reader_new(on_msg, NULL);
	if (!r)
		return 0;
	adb_packet_reader_reset(r);
	adb_packet_reader_set_max(r, FUZZ_MAX);
	while (size) {
		size_t n = size < step ? size : step, room_len = 0;
		uint8_t *room = in_place ? adb_packet_reader_room(r, &room_len)
					 : NULL;
		int rc;

		if (room) {
			/* ASan: the whole room is writable. */
			memset(room, 0xa5, room_len);
			n = n < room_len ? n : room_len;
			memcpy(room, data, n);
			rc = adb_packet_reader_filled(r, n);
		} else {
			rc = adb_packet_reader_feed(r, data, n);
		}

		if (rc < 0 && rc != -EBADMSG && rc != -EMSGSIZE &&
		    rc != -ECANCELED)
			abort();
		data += n;
		size -= n;
	}
	return 0;
}
