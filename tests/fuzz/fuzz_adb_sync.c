/*
 * libFuzzer target: the sync: request parser. The first byte picks the
 * split into WRTE-sized pieces; every event must respect the protocol's
 * limits, and after an error the parser is not fed again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adb/adb_syncmsg.h"

static void check_event(const struct adb_syncmsg_event *ev)
{
	switch (ev->type) {
	case ADB_SYNC_EV_NONE:
	case ADB_SYNC_EV_DONE:
		break;
	case ADB_SYNC_EV_REQUEST:
		if (ev->path_len > ADB_SYNC_PATH_MAX ||
		    strlen(ev->path) != ev->path_len)
			abort();
		break;
	case ADB_SYNC_EV_DATA:
		if (ev->len == 0 || ev->len > ADB_SYNC_DATA_MAX)
			abort();
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct adb_syncmsg_parser p;
	size_t step;

	if (size < 1)
		return 0;
	step = data[0] ? data[0] : 8;
	data++;
	size--;
	adb_syncmsg_parser_init(&p);
	while (size) {
		size_t n = size < step ? size : step, pos = 0;

		while (pos < n) {
			struct adb_syncmsg_event ev;
			size_t used;

			if (adb_syncmsg_parse(&p, data + pos, n - pos, &used,
					      &ev) < 0)
				return 0;
			if (used == 0 && ev.type == ADB_SYNC_EV_NONE)
				abort(); /* no progress: would spin */
			if (used > n - pos)
				abort();
			check_event(&ev);
			pos += used;
		}
		data += n;
		size -= n;
	}
	return 0;
}
