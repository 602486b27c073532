/*
 * libFuzzer target for the MTP plugin: the PTP codecs, then the whole
 * plugin (framing, session, operations, store) fed host bytes through a
 * faked runtime, on a scratch storage under /tmp.
 *
 * Input: byte 0 chooses. Even: the rest goes to the codecs. Odd: the
 * rest is a list of chunks, each a u16 little-endian length then that
 * many bytes, handed to the plugin's rx(); a length of 0xFFFF stands for
 * a class request (cancel, then device status) instead.
 */
#include "fake_plugin_mtp.h"
#include "mtp/mtp.h"
#include "mtp/mtp_container.h"
#include "mtp/mtp_dataset.h"
#include "mtp/mtp_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_codecs(const uint8_t *p, size_t n)
{
	char s[MTP_STR_MAX + 1];
	struct mtp_container c;
	struct mtp_objinfo oi;
	struct mtp_rd r;
	struct mtp_buf b;

	mtp_rd_init(&r, p, n);
	while (r.off < r.len && mtp_rd_str(&r, s, sizeof(s)) == 0)
		;
	mtp_container_parse_cmd(p, n, &c);
	mtp_container_parse_hdr(p, n, &c);
	mtp_dataset_parse_object_info(p, n, &oi);
	/* Whatever decodes must encode again. */
	mtp_rd_init(&r, p, n);
	if (mtp_rd_str(&r, s, sizeof(s)) == 0) {
		mtp_buf_init(&b);
		if (mtp_buf_str(&b, s) != 0)
			abort();
		mtp_buf_finish(&b);
	}
}

static const char *fuzz_root(void)
{
	static char root[64];

	if (!root[0]) {
		strcpy(root, "/tmp/fuzz_mtp.XXXXXX");
		if (!mkdtemp(root))
			abort();
	}
	return root;
}

static void fuzz_class(void *priv, uint32_t tid)
{
	struct usb_ctrlrequest cancel = {
	    .bRequestType = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_CANCEL,
	    .wLength = 6,
	};
	struct usb_ctrlrequest status = {
	    .bRequestType = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_GET_DEVICE_STATUS,
	    .wLength = 4,
	};
	uint8_t d[6] = {0x01, 0x40}, in[64];

	memcpy(d + 2, &tid, 4);
	if (gadgetd_plugin.setup(priv, &cancel, in) == 0)
		gadgetd_plugin.setup_data(priv, &cancel, d, sizeof(d));
	gadgetd_plugin.setup(priv, &status, in);
}

static void fuzz_plugin(const uint8_t *p, size_t n)
{
	struct plugin *pl = fake_mtp_reset();
	struct plugin_desc desc;
	void *priv;
	size_t off = 0;

	fake_mtp_set_option("storage0_path", fuzz_root());
	fake_mtp_set_option("storage1_path", "/tmp");
	fake_mtp_set_option("storage1_readonly", "true");
	if (gadgetd_plugin.init(pl, &desc, &priv) != 0)
		abort();
	fake_mtp_set_enabled(true, 512);
	gadgetd_plugin.enable(priv);
	while (off + 2 <= n) {
		size_t len = p[off] | p[off + 1] << 8;

		off += 2;
		if (len == 0xFFFF) {
			fuzz_class(priv, 1);
			continue;
		}
		if (len > n - off)
			len = n - off;
		gadgetd_plugin.rx(priv, MTP_EP_OUT, p + off, len);
		off += len;
		/* Let any file being sent drain, then forget the output. */
		for (int i = 0; i < 64; i++) {
			fake_mtp_drain();
			gadgetd_plugin.tx_drained(priv, MTP_EP_IN);
		}
		fake_mtp_clear();
	}
	gadgetd_plugin.disable(priv);
	gadgetd_plugin.finish(priv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_plugin(data + 1, size - 1);
	else
		fuzz_codecs(data + 1, size - 1);
	return 0;
}
