/*
 * Fuzz the AOA control-request handler (accessory_ctrl) and the string
 * codec (accessory_info_parse) with libFuzzer.
 *
 * The input is a sequence of records: 8 bytes of SETUP packet, then, for
 * an OUT request that was accepted, min(wLength, what is left) bytes of
 * data stage. Invariants checked after every step: an IN answer never
 * exceeds wLength, every string stays NUL-terminated within its buffer,
 * and the text form of the strings parses back to the same strings.
 */
#include "accessory/accessory_ctrl.h"
#include "accessory/accessory_info.h"
#include "log.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_accessory_start(void *data)
{
	/* Let some STARTs fail, as a failed state-file write would. */
	return (*(unsigned *)data)++ % 3 == 2 ? -5 : 0;
}

static const struct accessory_ctrl_ops fuzz_accessory_ops = {
	.start = fuzz_accessory_start,
};

static void fuzz_accessory_check(const struct accessory_ctrl *c)
{
	const struct accessory_info *ai = accessory_ctrl_info(c);
	struct accessory_info back;
	char text[ACCESSORY_INFO_TEXT_MAX];
	int n;
	unsigned i;

	for (i = 0; i < ACCESSORY_INFO_N; i++)
		if (!memchr(ai->s[i], 0, ACCESSORY_INFO_MAX))
			abort();
	n = accessory_info_format(ai, text, sizeof(text));
	if (n < 0 || accessory_info_parse(&back, text, n) != 0 ||
	    memcmp(&back, ai, sizeof(back)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned starts = 0;
	struct accessory_ctrl *c = accessory_ctrl_new(&fuzz_accessory_ops, &starts);
	struct accessory_info ai;
	static uint8_t in[65536];
	size_t off = 0;

	/* Stalls are logged at debug level; keep the fuzzer quiet. */
	log_init("fuzz_accessory", true, LOG_LEVEL_ERROR);
	/* The same bytes as a state file. */
	accessory_info_parse(&ai, (const char *)data, size);
	while (c && size - off >= sizeof(struct usb_ctrlrequest)) {
		struct usb_ctrlrequest req;
		size_t w_length, n;
		int r;

		memcpy(&req, data + off, sizeof(req));
		off += sizeof(req);
		w_length = le16toh(req.wLength);
		r = accessory_ctrl_setup(c, &req, in);
		if (r > (int)w_length)
			abort();
		if (r == 0 && !(req.bRequestType & USB_DIR_IN) && w_length) {
			n = w_length < size - off ? w_length : size - off;
			accessory_ctrl_data(c, &req, data + off, n);
			off += n;
		}
		fuzz_accessory_check(c);
	}
	accessory_ctrl_free(c);
	return 0;
}
