/*
 * libFuzzer target for the MTP plugin: the PTP codecs, then the whole
 * plugin (framing, session, operations, store) fed host bytes through a
 * faked runtime.
 *
 * The storages live on tmpfs, in a directory of this process under
 * /dev/shm: "rw" is emptied after every input, so each run starts from the
 * same empty storage, and "ro", a read-only storage with a few files and
 * folders, is made once. Nothing touches a disk, which keeps a run well
 * under a millisecond.
 *
 * Input: byte 0 chooses. Even: the rest goes to the codecs. Odd: the
 * rest is a list of chunks, each a u16 little-endian length then that
 * many bytes, handed to the plugin's rx(); a length of 0xFFFF stands for
 * a class request (cancel, then device status) instead.
 */
#include "fuzz_runtime.h"
#include "mtp/mtp.h"
#include "mtp/mtp_container.h"
#include "mtp/mtp_dataset.h"
#include "mtp/mtp_proto.h"

#include <fcntl.h>
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

static char fuzz_rw[160], fuzz_ro[160];

static void fuzz_put(const char *dir, const char *name, size_t size)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, size) < 0)
		abort();
	close(fd);
}

static void fuzz_storages(void)
{
	char sub[200];

	const char *dir;

	if (fuzz_rw[0])
		return;
	dir = fuzz_rt_scratch("fuzz_mtp");
	snprintf(fuzz_rw, sizeof(fuzz_rw), "%s/rw", dir);
	snprintf(fuzz_ro, sizeof(fuzz_ro), "%s/ro", dir);
	snprintf(sub, sizeof(sub), "%s/DCIM", fuzz_ro);
	if (mkdir(fuzz_rw, 0700) < 0 || mkdir(fuzz_ro, 0700) < 0 ||
	    mkdir(sub, 0700) < 0)
		abort();
	fuzz_put(fuzz_ro, "a.txt", 5);
	fuzz_put(fuzz_ro, "big.bin", 600 * 1024);
	fuzz_put(sub, "IMG_0001.JPG", 1000);
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
	struct plugin *pl = fuzz_rt_reset("mtp", NULL);
	struct plugin_desc desc;
	void *priv;
	size_t off = 0;

	fuzz_storages();
	fuzz_rt_set_option("storage0_path", fuzz_rw);
	fuzz_rt_set_option("storage1_path", fuzz_ro);
	fuzz_rt_set_option("storage1_readonly", "true");
	if (gadgetd_plugin.init(pl, &desc, &priv) != 0)
		abort();
	fuzz_rt_set_enabled(true, 512);
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
		/* Let any file being sent drain, as the runtime would. */
		for (int i = 0; i < 64 && plugin_tx_queued(pl, MTP_EP_IN); i++) {
			fuzz_rt_drain();
			gadgetd_plugin.tx_drained(priv, MTP_EP_IN);
		}
	}
	gadgetd_plugin.disable(priv);
	gadgetd_plugin.finish(priv);
	fuzz_rt_empty_dir(fuzz_rw);
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
