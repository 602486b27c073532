/* The mtp plugin through its plugin_ops, with the runtime faked: framing,
 * session, transfers, class requests, refusals, error recovery. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "fake_plugin_mtp.h"
#include "fake_statvfs.h"
#include "mtp/mtp.h"
#include "mtp/mtp_container.h"
#include "mtp/mtp_fs.h"
#include "mtp/mtp_proplist.h"
#include "mtp/mtp_proto.h"
#include "log.h"
#include "loop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct plugin_ops *ops = &gadgetd_plugin;

struct fx {
	char root[64];
	char s0[96];
	char s1[96];
	struct plugin_desc desc;
	void *priv;
	uint32_t tid;
};

static char path_buf[256];

static const char *in_s0(struct fx *f, const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", f->s0, name);
	return path_buf;
}

static void write_file(const char *path, size_t n)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	uint8_t *buf = malloc(n ? n : 1);

	assert_true(fd >= 0);
	assert_non_null(buf);
	/* One write: a byte at a time took two minutes on an emulated CPU. */
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	free(buf);
	close(fd);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/test_mtp_plugin.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	snprintf(f->s0, sizeof(f->s0), "%s/s0", f->root);
	snprintf(f->s1, sizeof(f->s1), "%s/s1", f->root);
	mkdir(f->s0, 0755);
	mkdir(f->s1, 0755);
	struct plugin *p = fake_mtp_reset();

	fake_mtp_set_option("storage0_path", f->s0);
	fake_mtp_set_option("storage1_path", f->s1);
	fake_mtp_set_option("storage1_readonly", "true");
	assert_int_equal(ops->init(p, &f->desc, &f->priv), 0);
	fake_mtp_set_enabled(true, 512);
	ops->enable(f->priv);
	f->tid = 1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	fake_statvfs_set(NULL, 0);
	fake_mtp_set_loop(NULL);
	ops->finish(f->priv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Send a command container; returns its transaction id. */
static uint32_t cmd(struct fx *f, uint16_t code, unsigned n, ...)
{
	uint32_t params[5];
	uint8_t buf[32];
	va_list ap;
	size_t len;

	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		params[i] = va_arg(ap, uint32_t);
	va_end(ap);
	len =
	    mtp_container_build(buf, MTP_TYPE_COMMAND, code, f->tid, params, n);
	ops->rx(f->priv, MTP_EP_OUT, buf, len);
	return f->tid++;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* The last transfer on bulk IN, which must be a response: its code. */
static uint16_t resp(uint32_t *param0)
{
	const struct fake_mtp_xfer *x = NULL;

	for (unsigned i = fake_mtp_n_xfers(); i-- > 0;)
		if (fake_mtp_xfer(i)->ep == MTP_EP_IN) {
			x = fake_mtp_xfer(i);
			break;
		}
	if (!x || x->len < MTP_HDR_LEN)
		return 0;
	const uint8_t *p = fake_mtp_data() + x->off;
	if (le16(p + 4) != MTP_TYPE_RESPONSE || le32(p) != x->len)
		return 0;
	if (param0)
		*param0 = x->len >= 16 ? le32(p + 12) : 0xdeadbeef;
	return le16(p + 6);
}

static void open_session(struct fx *f)
{
	cmd(f, MTP_OP_OPEN_SESSION, 1, 1);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
}

/* Send a data phase, cut into rx chunks of the given sizes (0 ends). */
static void data_phase(struct fx *f, uint16_t code, uint32_t tid,
		       const uint8_t *payload, size_t n, const size_t *cuts)
{
	uint8_t *buf = malloc(MTP_HDR_LEN + n);
	size_t off = 0;

	mtp_container_hdr(buf, MTP_HDR_LEN + n, MTP_TYPE_DATA, code, tid);
	memcpy(buf + MTP_HDR_LEN, payload, n);
	for (unsigned i = 0; cuts[i] && off < MTP_HDR_LEN + n; i++) {
		size_t c = cuts[i];

		if (off + c > MTP_HDR_LEN + n)
			c = MTP_HDR_LEN + n - off;
		ops->rx(f->priv, MTP_EP_OUT, buf + off, c);
		off += c;
	}
	if (off < MTP_HDR_LEN + n)
		ops->rx(f->priv, MTP_EP_OUT, buf + off, MTP_HDR_LEN + n - off);
	free(buf);
}

static size_t objinfo(uint8_t *out, uint32_t storage, const char *name,
		      uint16_t fmt, uint32_t size)
{
	struct mtp_buf b;
	size_t n;

	mtp_buf_init(&b);
	mtp_buf_u32(&b, storage);
	mtp_buf_u16(&b, fmt);
	mtp_buf_u16(&b, 0);
	mtp_buf_u32(&b, size);
	mtp_buf_u16(&b, 0);
	for (int i = 0; i < 6; i++)
		mtp_buf_u32(&b, 0);
	mtp_buf_u32(&b, 0);
	mtp_buf_u16(&b, 0);
	mtp_buf_u32(&b, 0);
	mtp_buf_u32(&b, 0);
	assert_int_equal(mtp_buf_str(&b, name), 0);
	mtp_buf_str(&b, "");
	mtp_buf_str(&b, "");
	mtp_buf_str(&b, "");
	memcpy(out, b.data, b.len);
	n = b.len;
	mtp_buf_finish(&b);
	return n;
}

/* SendObjectInfo for a file; returns the response code, *h the handle. */
static uint16_t send_info(struct fx *f, uint32_t storage, const char *name,
			  uint16_t fmt, uint32_t size, uint32_t *h)
{
	static const size_t whole[] = {0};
	uint8_t oi[1024];
	size_t n = objinfo(oi, storage, name, fmt, size);
	uint32_t tid = cmd(f, MTP_OP_SEND_OBJECT_INFO, 2, storage, 0xffffffff);
	const struct fake_mtp_xfer *x;
	uint16_t rc;

	data_phase(f, MTP_OP_SEND_OBJECT_INFO, tid, oi, n, whole);
	rc = resp(NULL);
	x = fake_mtp_xfer(fake_mtp_n_xfers() - 1);
	if (rc == MTP_RC_OK && h) {
		assert_int_equal(x->len, 24);
		*h = le32(fake_mtp_data() + x->off + 20);
	}
	fake_mtp_clear();
	return rc;
}

static void test_init_errors(void **state)
{
	struct plugin_desc d;
	void *priv = NULL;
	struct plugin *p = fake_mtp_reset();

	assert_int_equal(ops->init(p, &d, &priv), -EINVAL);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", "/nonexistent/mtp");
	assert_int_equal(ops->init(p, &d, &priv), -ENOENT);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", "/tmp");
	fake_mtp_set_option("storage0_readonly", "maybe");
	assert_int_equal(ops->init(p, &d, &priv), -EINVAL);
	assert_null(priv);
}

/* prepare: storageN_create is true, false or absent, and needs its
 * storageN_path; a missing storage without it is left to init. */
static void test_prepare_create_option(void **state)
{
	char dir[64], path[96];
	struct plugin *p;
	struct stat st;

	snprintf(dir, sizeof(dir), "/tmp/test_mtp_prepare.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/made/mtp", dir);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", path);
	fake_mtp_set_option("storage0_create", "maybe");
	assert_int_equal(ops->prepare(p, geteuid(), getegid()), -EINVAL);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", path);
	fake_mtp_set_option("storage1_create", "true");
	assert_int_equal(ops->prepare(p, geteuid(), getegid()), -EINVAL);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", path);
	fake_mtp_set_option("storage0_create", "false");
	assert_int_equal(ops->prepare(p, geteuid(), getegid()), 0);
	assert_int_equal(stat(path, &st), -1);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", path);
	fake_mtp_set_option("storage0_create", "true");
	assert_int_equal(ops->prepare(p, geteuid(), getegid()), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0750);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/made", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_desc(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->desc.cls, 6);
	assert_int_equal(f->desc.subcls, 1);
	assert_int_equal(f->desc.proto, 1);
	assert_string_equal(f->desc.interface_string, "MTP");
	assert_string_equal(f->desc.ms_compat_id, "MTP");
	assert_int_equal(f->desc.n_eps, 3);
	assert_int_equal(f->desc.eps[MTP_EP_IN].type, PLUGIN_EP_BULK_IN);
	assert_int_equal(f->desc.eps[MTP_EP_OUT].type, PLUGIN_EP_BULK_OUT);
	assert_int_equal(f->desc.eps[MTP_EP_EVENT].type, PLUGIN_EP_INTR_IN);
	assert_int_equal(f->desc.eps[MTP_EP_EVENT].intr_max_packet, 28);
	assert_int_equal(f->desc.eps[MTP_EP_EVENT].intr_interval, 6);
}

static void test_session(void **state)
{
	struct fx *f = *state;
	const struct fake_mtp_xfer *x;
	const uint8_t *p;
	uint32_t param, tid;

	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_SESSION_NOT_OPEN);
	fake_mtp_clear();
	/* GetDeviceInfo works without a session: data phase, then response. */
	tid = cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	assert_int_equal(fake_mtp_n_xfers(), 2);
	x = fake_mtp_xfer(0);
	p = fake_mtp_data() + x->off;
	assert_int_equal(le32(p), x->len);
	assert_int_equal(le16(p + 4), MTP_TYPE_DATA);
	assert_int_equal(le16(p + 6), MTP_OP_GET_DEVICE_INFO);
	assert_int_equal(le32(p + 8), tid);
	assert_int_equal(le32(p + 14), 6); /* VendorExtensionID */
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	open_session(f);
	cmd(f, MTP_OP_OPEN_SESSION, 1, 5);
	assert_int_equal(resp(&param), MTP_RC_SESSION_ALREADY_OPEN);
	assert_int_equal(param, 1);
	fake_mtp_clear();
	tid = cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	x = fake_mtp_xfer(0);
	p = fake_mtp_data() + x->off;
	assert_int_equal(le32(p + 12), 2); /* two storages */
	assert_int_equal(le32(p + 16), 0x10001);
	assert_int_equal(le32(p + 20), 0x20001);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(1)->off + 8),
			 tid);
	fake_mtp_clear();
	cmd(f, MTP_OP_CLOSE_SESSION, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_SESSION_NOT_OPEN);
}

static void test_garbage_keeps_session(void **state)
{
	struct fx *f = *state;
	uint8_t bad[16];

	open_session(f);
	ops->rx(f->priv, MTP_EP_OUT, (const uint8_t *)"junk!", 5);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	ops->rx(f->priv, MTP_EP_OUT, NULL, 0); /* a host ZLP */
	assert_int_equal(fake_mtp_n_xfers(), 0);
	/* A command whose length field lies is answered, not obeyed. */
	mtp_container_build(bad, MTP_TYPE_COMMAND, MTP_OP_DELETE_OBJECT, 77,
			    NULL, 0);
	bad[0] = 40;
	ops->rx(f->priv, MTP_EP_OUT, bad, 16);
	assert_int_equal(resp(NULL), MTP_RC_GENERAL_ERROR);
	fake_mtp_clear();
	cmd(f, 0x9999, 0);
	assert_int_equal(resp(NULL), MTP_RC_OPERATION_NOT_SUPPORTED);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x10001);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x30001);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_STORAGE_ID);
}

static void test_send_object_split_and_merged(void **state)
{
	static const size_t split[] = {MTP_HDR_LEN, 0}; /* Windows */
	static const size_t merged[] = {512, 0};	/* libmtp */
	struct fx *f = *state;
	uint8_t data[1000], back[1001];
	uint32_t h, tid;
	int fd;

	open_session(f);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = i * 13;
	/* ObjectInfo with the header in its own transfer. */
	uint8_t oi[512];
	size_t n = objinfo(oi, 0x10001, "up.bin", MTP_FMT_UNDEFINED, 1000);
	tid = cmd(f, MTP_OP_SEND_OBJECT_INFO, 2, 0x10001, 0xffffffff);
	data_phase(f, MTP_OP_SEND_OBJECT_INFO, tid, oi, n, split);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	h = le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 20);
	assert_true(h != 0);
	fake_mtp_clear();
	/* The object with header and data merged in the first packet. */
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, sizeof(data), merged);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fd = open(in_s0(f, "up.bin"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, back, sizeof(back)), sizeof(data));
	close(fd);
	assert_memory_equal(data, back, sizeof(data));
	/* The host's trailing ZLP is swallowed. */
	fake_mtp_clear();
	ops->rx(f->priv, MTP_EP_OUT, NULL, 0);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	/* SendObject without ObjectInfo: data drained, then refused. */
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, 100, merged);
	assert_int_equal(resp(NULL), MTP_RC_NO_VALID_OBJECT_INFO);
}

static uint32_t handle_of(struct fx *f, const char *name)
{
	uint32_t h = 0, n;
	const uint8_t *p;

	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x10001, 0, 0xffffffff);
	p = fake_mtp_data() + fake_mtp_xfer(0)->off;
	n = le32(p + 12);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = le32(p + 16 + 4 * i);

		fake_mtp_clear();
		cmd(f, MTP_OP_GET_OBJECT_PROP_VALUE, 2, c,
		    MTP_PROP_OBJECT_FILE_NAME);
		const uint8_t *s = fake_mtp_data() + fake_mtp_xfer(0)->off + 12;
		char got[64] = "";
		for (unsigned k = 0; k + 1 < s[0] && k < 63; k++)
			got[k] = s[1 + 2 * k];
		if (!strcmp(got, name))
			h = c;
		fake_mtp_clear();
		p = NULL;
		if (h)
			break;
		cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x10001, 0, 0xffffffff);
		p = fake_mtp_data() + fake_mtp_xfer(0)->off;
	}
	fake_mtp_clear();
	return h;
}

static void test_get_object_zlp(void **state)
{
	struct fx *f = *state;
	uint32_t h;

	write_file(in_s0(f, "500.bin"), 500);
	write_file(in_s0(f, "100.bin"), 100);
	open_session(f);
	h = handle_of(f, "500.bin");
	assert_true(h != 0);
	/* 12 + 500 = 512 bytes: one full packet, then a ZLP, then the
	 * response. */
	cmd(f, MTP_OP_GET_OBJECT, 1, h);
	assert_int_equal(fake_mtp_n_xfers(), 3);
	assert_int_equal(fake_mtp_xfer(0)->len, 512);
	assert_int_equal(le32(fake_mtp_data()), 512);
	assert_int_equal(fake_mtp_data()[12], 3); /* first byte of the file */
	assert_int_equal(fake_mtp_xfer(1)->len, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	h = handle_of(f, "100.bin");
	cmd(f, MTP_OP_GET_OBJECT, 1, h);
	assert_int_equal(fake_mtp_n_xfers(), 2);
	assert_int_equal(fake_mtp_xfer(0)->len, 112);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	/* GetPartialObject: 10 bytes from offset 95 give 5. */
	uint32_t got;
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT, 3, h, 95, 10);
	assert_int_equal(fake_mtp_xfer(0)->len, 17);
	assert_int_equal(resp(&got), MTP_RC_OK);
	assert_int_equal(got, 5);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 200, 0, 10);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT, 1, 0x7777);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
}

static void test_get_object_paced(void **state)
{
	struct fx *f = *state;
	size_t size = 3 * 1024 * 1024 + 100, total = 0;
	unsigned rounds = 0;
	uint8_t *file = malloc(size);
	uint32_t h;
	int fd;

	write_file(in_s0(f, "big.bin"), size);
	fd = open(in_s0(f, "big.bin"), O_RDONLY);
	assert_int_equal(read(fd, file, size), size);
	close(fd);
	open_session(f);
	h = handle_of(f, "big.bin");
	cmd(f, MTP_OP_GET_OBJECT, 1, h);
	/* The plugin stops at PLUGIN_TX_HIGH and waits for tx_drained. */
	while (resp(NULL) != MTP_RC_OK && rounds++ < 100) {
		assert_true(fake_mtp_n_xfers() <=
			    PLUGIN_TX_HIGH / MTP_XFER + 1);
		for (unsigned i = 0; i < fake_mtp_n_xfers(); i++) {
			const struct fake_mtp_xfer *x = fake_mtp_xfer(i);
			const uint8_t *p = fake_mtp_data() + x->off;
			size_t hdr = total == 0 ? MTP_HDR_LEN : 0;

			/* Every transfer but the last is whole packets. */
			assert_int_equal(x->len % 512 == 0 ||
					     total + x->len ==
						 size + MTP_HDR_LEN,
					 1);
			assert_memory_equal(
			    p + hdr, file + total - (total ? MTP_HDR_LEN : 0),
			    x->len - hdr);
			total += x->len;
		}
		fake_mtp_clear();
		ops->tx_drained(f->priv, MTP_EP_IN);
	}
	/* The last round holds the tail and the response. */
	for (unsigned i = 0; i + 1 < fake_mtp_n_xfers(); i++)
		total += fake_mtp_xfer(i)->len;
	assert_int_equal(total, size + MTP_HDR_LEN);
	assert_true(rounds >= 3);
	free(file);
}

/* A storage removed while a file of it is being read: the data phase
 * keeps its announced length (zeros after the removal), then
 * Store_Not_Available. */
static void test_storage_removed_mid_read(void **state)
{
	struct fx *f = *state;
	size_t size = 3 * 1024 * 1024 + 100, total = 0;
	char reply[128];
	char *rm[] = {"storage", "remove", "0x00010001"};
	unsigned rounds = 0;
	uint16_t code = 0;
	uint32_t h;

	write_file(in_s0(f, "big.bin"), size);
	open_session(f);
	h = handle_of(f, "big.bin");
	cmd(f, MTP_OP_GET_OBJECT, 1, h);
	assert_int_equal(resp(NULL), 0); /* paced: not done yet */
	for (unsigned i = 0; i < fake_mtp_n_xfers(); i++)
		total += fake_mtp_xfer(i)->len;
	fake_mtp_clear();
	assert_int_equal(ops->command(f->priv, 3, rm, reply, sizeof(reply)), 0);
	while (!code && rounds++ < 100) {
		ops->tx_drained(f->priv, MTP_EP_IN);
		for (unsigned i = 0; i < fake_mtp_n_xfers(); i++) {
			const struct fake_mtp_xfer *x = fake_mtp_xfer(i);

			if (x->ep != MTP_EP_IN)
				continue;
			if (total == size + MTP_HDR_LEN && x->len) {
				code = resp(NULL);
				break;
			}
			total += x->len;
		}
		fake_mtp_clear();
	}
	assert_int_equal(total, size + MTP_HDR_LEN);
	assert_int_equal(code, MTP_RC_STORE_NOT_AVAILABLE);
}

static void test_class_requests(void **state)
{
	struct fx *f = *state;
	struct usb_ctrlrequest status = {
	    .bRequestType = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_GET_DEVICE_STATUS,
	    .wLength = 4,
	};
	struct usb_ctrlrequest cancel = {
	    .bRequestType = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_CANCEL,
	    .wLength = 6,
	};
	struct usb_ctrlrequest ext = status, vendor = status;
	uint8_t in[64], chunk[4096] = {0}, cdata[6];
	uint32_t h, tid;
	struct stat sb;

	ext.bRequest = MTP_REQ_GET_EXT_EVENT_DATA;
	vendor.bRequestType = USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE;
	assert_int_equal(ops->setup(f->priv, &status, in), 4);
	assert_int_equal(in[0], 4);
	assert_int_equal(le16(in + 2), MTP_RC_OK);
	assert_true(ops->setup(f->priv, &ext, in) < 0);
	assert_true(ops->setup(f->priv, &vendor, in) < 0);
	/* Cancel in the middle of a SendObject: the partial file goes. */
	open_session(f);
	assert_int_equal(
	    send_info(f, 0x10001, "part.bin", MTP_FMT_UNDEFINED, 100000, &h),
	    MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(chunk, MTP_HDR_LEN + 100000, MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, chunk, sizeof(chunk));
	assert_int_equal(ops->setup(f->priv, &status, in), 4);
	assert_int_equal(le16(in + 2), MTP_RC_DEVICE_BUSY);
	assert_int_equal(ops->setup(f->priv, &cancel, in), 0);
	cdata[0] = 0x01;
	cdata[1] = 0x40;
	memcpy(cdata + 2, &tid, 4);
	ops->setup_data(f->priv, &cancel, cdata, 6);
	assert_int_equal(stat(in_s0(f, "part.bin"), &sb), -1);
	assert_int_equal(ops->setup(f->priv, &status, in), 4);
	assert_int_equal(le16(in + 2), MTP_RC_OK);
	/* No response for the cancelled transaction; the next one works. */
	assert_int_equal(fake_mtp_n_xfers(), 0);
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

static void test_refusals(void **state)
{
	struct fx *f = *state;
	uint32_t h;

	open_session(f);
	assert_int_equal(
	    send_info(f, 0x20001, "ro.bin", MTP_FMT_UNDEFINED, 5, &h),
	    MTP_RC_STORE_READ_ONLY);
	assert_int_equal(
	    send_info(f, 0x10001, "..", MTP_FMT_ASSOCIATION, 0, &h),
	    MTP_RC_INVALID_PARAMETER);
	assert_int_equal(
	    send_info(f, 0x10001, "../out.bin", MTP_FMT_UNDEFINED, 5, &h),
	    MTP_RC_INVALID_PARAMETER);
	assert_int_equal(send_info(f, 0x10001, "", MTP_FMT_UNDEFINED, 5, &h),
			 MTP_RC_INVALID_PARAMETER);
	assert_int_equal(access("/tmp/out.bin", F_OK), -1);
	/* A folder via Association; then an object inside. */
	assert_int_equal(
	    send_info(f, 0x10001, "newdir", MTP_FMT_ASSOCIATION, 0, &h),
	    MTP_RC_OK);
	assert_int_equal(access(in_s0(f, "newdir"), F_OK), 0);
	/* An ObjectInfo that is cut short. */
	uint32_t tid = cmd(f, MTP_OP_SEND_OBJECT_INFO, 2, 0x10001, 0xffffffff);
	static const size_t whole[] = {0};
	uint8_t shortinfo[20] = {0};
	data_phase(f, MTP_OP_SEND_OBJECT_INFO, tid, shortinfo,
		   sizeof(shortinfo), whole);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_DATASET);
	fake_mtp_clear();
	/* DeleteObject of everything is not offered. */
	cmd(f, MTP_OP_DELETE_OBJECT, 1, 0xffffffff);
	assert_int_equal(resp(NULL), MTP_RC_PARAMETER_NOT_SUPPORTED);
}

static void test_rename_and_props(void **state)
{
	static const size_t whole[] = {0};
	struct fx *f = *state;
	uint8_t name[64];
	struct mtp_buf b;
	uint32_t h, tid, n;

	write_file(in_s0(f, "old.txt"), 10);
	open_session(f);
	h = handle_of(f, "old.txt");
	mtp_buf_init(&b);
	mtp_buf_str(&b, "new.txt");
	memcpy(name, b.data, b.len);
	tid = cmd(f, MTP_OP_SET_OBJECT_PROP_VALUE, 2, h,
		  MTP_PROP_OBJECT_FILE_NAME);
	data_phase(f, MTP_OP_SET_OBJECT_PROP_VALUE, tid, name, b.len, whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(access(in_s0(f, "new.txt"), F_OK), 0);
	fake_mtp_clear();
	/* A malformed string, and a read-only property. */
	name[0] = 30;
	tid = cmd(f, MTP_OP_SET_OBJECT_PROP_VALUE, 2, h,
		  MTP_PROP_OBJECT_FILE_NAME);
	data_phase(f, MTP_OP_SET_OBJECT_PROP_VALUE, tid, name, b.len, whole);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_PROP_VALUE);
	fake_mtp_clear();
	tid = cmd(f, MTP_OP_SET_OBJECT_PROP_VALUE, 2, h, MTP_PROP_OBJECT_SIZE);
	data_phase(f, MTP_OP_SET_OBJECT_PROP_VALUE, tid, name, 8, whole);
	assert_int_equal(resp(NULL), MTP_RC_ACCESS_DENIED);
	fake_mtp_clear();
	mtp_buf_finish(&b);
	/* The property list of one object, complete. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0xffffffff, 0, 0);
	n = le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12);
	assert_int_equal(n, 11);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	/* Everything at once (libmtp's fast listing): one object here. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12),
			 11);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	/* One property over a subtree, depth 1 and unlimited. */
	mkdir(in_s0(f, "d"), 0755);
	mkdir(in_s0(f, "d/e"), 0755);
	write_file(in_s0(f, "d/1"), 1);
	write_file(in_s0(f, "d/e/2"), 2);
	uint32_t d = handle_of(f, "d");
	assert_true(d != 0);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, d, 0, MTP_PROP_OBJECT_FILE_NAME,
	    0, 1);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12), 2);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, d, 0, MTP_PROP_OBJECT_FILE_NAME,
	    0, 0xffffffff);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12), 3);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, d, 0, 0, 1, 0);
	assert_int_equal(resp(NULL), MTP_RC_SPEC_BY_GROUP_UNSUPPORTED);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0x4444, 0, 0xffffffff, 0, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_DESC, 2, MTP_PROP_OBJECT_SIZE, 0x3000);
	assert_int_equal(le16(fake_mtp_data() + fake_mtp_xfer(0)->off + 14),
			 MTP_DT_UINT64);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_VALUE, 2, h, 0xdc99);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_PROP_CODE);
}

/*
 * The whole IN data phase of the command just sent, draining as the
 * plugin waits: its payload into a malloc'ed *out (*n bytes, checked
 * against the container's length) and the response code.
 */
static uint16_t in_phase(struct fx *f, uint8_t **out, size_t *n)
{
	size_t total = 0, want = 0, cap = 1 << 16;
	uint8_t *buf = malloc(cap);
	uint16_t code = 0;

	assert_non_null(buf);
	for (unsigned rounds = 0; !code && rounds < 1000; rounds++) {
		for (unsigned i = 0; i < fake_mtp_n_xfers(); i++) {
			const struct fake_mtp_xfer *x = fake_mtp_xfer(i);
			const uint8_t *p = fake_mtp_data() + x->off;

			if (x->ep != MTP_EP_IN || x->len == 0)
				continue;
			if (total == want && total &&
			    le16(p + 4) == MTP_TYPE_RESPONSE) {
				code = le16(p + 6);
				break;
			}
			if (total == 0) {
				assert_int_equal(le16(p + 4), MTP_TYPE_DATA);
				want = le32(p);
			}
			while (total + x->len > cap)
				buf = realloc(buf, cap *= 2);
			memcpy(buf + total, p, x->len);
			total += x->len;
			assert_true(total <= want);
		}
		if (!code && fake_mtp_n_xfers() && total == 0)
			code = resp(NULL); /* no data phase: an error */
		fake_mtp_clear();
		if (!code)
			ops->tx_drained(f->priv, MTP_EP_IN);
	}
	assert_true(code != 0);
	*n = total > MTP_HDR_LEN ? total - MTP_HDR_LEN : 0;
	memmove(buf, buf + (total ? MTP_HDR_LEN : 0), *n);
	*out = buf;
	return code;
}

/* statx() is wrapped (mtp.mk): the stats an operation costs. */
static unsigned n_statx;

int __real_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx);
int __wrap_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx);
int __wrap_statx(int dfd, const char *path, int flags, unsigned mask,
		 struct statx *sx)
{
	n_statx++;
	return __real_statx(dfd, path, flags, mask, sx);
}

/* Walk an ObjectPropList, checking every element is whole; its count.
 * handles gets the distinct handles in order (room for max). */
static uint32_t walk_prop_list(const uint8_t *p, size_t n, uint32_t *handles,
			       size_t max, size_t *nh)
{
	size_t off = 4;
	uint32_t count;

	assert_true(n >= 4);
	count = le32(p);
	*nh = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t h;
		uint16_t type;

		assert_true(off + 8 <= n);
		h = le32(p + off);
		type = le16(p + off + 6);
		off += 8;
		if (*nh == 0 || handles[*nh - 1] != h) {
			assert_true(*nh < max);
			handles[(*nh)++] = h;
		}
		switch (type) {
		case MTP_DT_UINT16: off += 2; break;
		case MTP_DT_UINT32: off += 4; break;
		case MTP_DT_UINT64: off += 8; break;
		case MTP_DT_UINT128: off += 16; break;
		case MTP_DT_STR:
			assert_true(off < n);
			off += 1 + 2 * p[off];
			break;
		default: fail_msg("type 0x%04x", type);
		}
		assert_true(off <= n);
	}
	assert_int_equal(off, n);
	return count;
}

/* libmtp's fast listing: GetObjectPropList(0xFFFFFFFF, 0, 0xFFFFFFFF, 0,
 * 0xFFFFFFFF) over a tree larger than one queue of transfers. */
static void test_prop_list_whole_device(void **state)
{
	enum { FILES = 3000 };
	static uint32_t handles[FILES + 8];
	struct fx *f = *state;
	uint8_t *data;
	size_t n, nh;
	char name[160];

	mkdir(in_s0(f, "many"), 0755);
	mkdir(in_s0(f, "many/sub"), 0755);
	for (unsigned i = 0; i < FILES; i++) {
		/* Long names: the list must outgrow PLUGIN_TX_HIGH. */
		snprintf(name, sizeof(name),
			 "%s/many/%sa-name-long-enough-to-fill-the-list-%u.txt",
			 f->s0, i % 2 ? "sub/" : "", i);
		write_file(name, i % 7);
	}
	write_file(in_s0(f, "top.jpg"), 3);
	open_session(f);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	/* More than the plugin queues at once: it was really streamed. */
	assert_true(n > PLUGIN_TX_HIGH);
	/* The files, many, many/sub and top.jpg; both storages (s1 empty). */
	assert_int_equal(walk_prop_list(data, n, handles, FILES + 8, &nh),
			 11 * (FILES + 3));
	assert_int_equal(nh, FILES + 3);
	for (size_t i = 0; i < nh; i++)
		for (size_t k = i + 1; k < nh; k++)
			assert_true(handles[i] != handles[k]);
	free(data);
	/* Only the text files, then only the folders. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, MTP_FMT_TEXT,
	    MTP_PROP_OBJECT_FILE_NAME, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, FILES + 8, &nh),
			 FILES);
	free(data);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, MTP_FMT_ASSOCIATION,
	    0xffffffff, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, FILES + 8, &nh),
			 11 * 2);
	free(data);
	/* The same subtree from its folder, one level: FILES / 2 + sub. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, handle_of(f, "many"), 0,
	    MTP_PROP_OBJECT_SIZE, 0, 1);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, FILES + 8, &nh),
			 FILES / 2 + 1);
	free(data);
}

/* libmtp walks a folder with GetObjectInfo then a one-object
 * GetObjectPropList of each object: one stat serves both, and the list
 * is the object's whole one. */
static void test_walk_one_stat(void **state)
{
	struct fx *f = *state;
	uint32_t h, handles[4];
	uint8_t *data;
	size_t n, nh;

	write_file(in_s0(f, "a.txt"), 5);
	write_file(in_s0(f, "b.txt"), 5);
	open_session(f);
	h = handle_of(f, "a.txt");
	/* The last object asked about is another one. */
	cmd(f, MTP_OP_GET_OBJECT_INFO, 1, handle_of(f, "b.txt"));
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	free(data);
	n_statx = 0;
	cmd(f, MTP_OP_GET_OBJECT_INFO, 1, h);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	free(data);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0xffffffff, 0, 0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_true(walk_prop_list(data, n, handles, 4, &nh) >= 10);
	assert_int_equal(nh, 1);
	assert_int_equal(handles[0], h);
	free(data);
	assert_int_equal(n_statx, 1);
	/* Asked again later, the same. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, MTP_PROP_OBJECT_SIZE, 0,
	    0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, 4, &nh), 1);
	free(data);
	assert_int_equal(n_statx, 1);
}

/* Parameters a host may get wrong, each answered without a data phase
 * where PTP says so, and never with a half-built list. */
static void test_prop_list_bad_params(void **state)
{
	struct fx *f = *state;
	uint32_t h, d, handles[8];
	uint8_t *data;
	size_t n, nh;

	write_file(in_s0(f, "a.txt"), 5);
	mkdir(in_s0(f, "d"), 0755);
	open_session(f);
	h = handle_of(f, "a.txt");
	d = handle_of(f, "d");
	/* By group, whatever the group. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0, 0, 0);
	assert_int_equal(resp(NULL), MTP_RC_SPEC_BY_GROUP_UNSUPPORTED);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0, 7, 0xffffffff);
	assert_int_equal(resp(NULL), MTP_RC_SPEC_BY_GROUP_UNSUPPORTED);
	fake_mtp_clear();
	/* Property codes that are not ours, or wider than 16 bits. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0xdc99, 0, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_PROP_CODE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0,
	    0x10000 | MTP_PROP_OBJECT_FILE_NAME, 0, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_PROP_CODE);
	fake_mtp_clear();
	/* A format wider than 16 bits names no format. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff,
	    0x10000 | MTP_FMT_TEXT, 0xffffffff, 0, 0xffffffff);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_FORMAT);
	fake_mtp_clear();
	/* Handles that do not exist, at every depth. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0x4444, 0, 0xffffffff, 0, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0x4444, 0, 0xffffffff, 0, 1);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xfffffffe, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	/* An object of another format than asked: an empty list. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, MTP_FMT_EXIF_JPEG, 0xffffffff,
	    0, 0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, 8, &nh), 0);
	free(data);
	/* Below a file, or an empty folder: nothing, at any depth. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0xffffffff, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, 8, &nh), 0);
	free(data);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, d, 0, 0xffffffff, 0, 1);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, 8, &nh), 0);
	free(data);
	/* No parameters at all: handle 0, prop 0, i.e. by group. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 0);
	assert_int_equal(resp(NULL), MTP_RC_SPEC_BY_GROUP_UNSUPPORTED);
	fake_mtp_clear();
	/* And the session still works. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, MTP_PROP_OBJECT_SIZE, 0,
	    0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(walk_prop_list(data, n, handles, 8, &nh), 1);
	assert_int_equal(handles[0], h);
	free(data);
}

/* The tree changes while the list is streamed. Entries kept from the
 * count go out as counted: a snapshot, whole. Entries rendered anew (a
 * list past mtp_proplist_keep_max) are checked: the framing holds (the
 * length announced is sent) and the answer is Incomplete_Transfer. A
 * reset in the middle leaves nothing behind (ASan checks the leak). */
static void test_prop_list_changed_meanwhile(void **state)
{
	struct fx *f = *state;
	uint8_t *data, *whole;
	size_t n, n_whole;
	char name[160];

	for (unsigned i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "%s/f%u.txt", f->s0, i);
		write_file(name, 1);
	}
	open_session(f);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(in_phase(f, &whole, &n_whole), MTP_RC_OK);
	/* Part kept, part rendered anew: the same bytes. */
	mtp_proplist_keep_max = n_whole / 3;
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(n, n_whole);
	/* The header's transaction id aside. */
	assert_memory_equal(data + 12, whole + 12, n - 12);
	free(data);
	/* Everything counted and kept; nothing sent yet (the queue is
	 * full): a file deleted now is still in the list. */
	mtp_proplist_keep_max = MTP_PROPLIST_KEEP;
	fake_mtp_set_queued(PLUGIN_TX_HIGH);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	snprintf(name, sizeof(name), "%s/f599.txt", f->s0);
	assert_int_equal(unlink(name), 0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(n, n_whole);
	/* The header's transaction id aside. */
	assert_memory_equal(data + 12, whole + 12, n - 12);
	free(data);
	free(whole);
	/* Nothing kept: the change is seen as the list goes. */
	mtp_proplist_keep_max = 0;
	fake_mtp_set_queued(PLUGIN_TX_HIGH);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	snprintf(name, sizeof(name), "%s/f598.txt", f->s0);
	assert_int_equal(unlink(name), 0);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_INCOMPLETE_TRANSFER);
	free(data);
	mtp_proplist_keep_max = MTP_PROPLIST_KEEP;
	/* The next request sees the tree as it is. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0,
	    MTP_PROP_OBJECT_FILE_NAME, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &data, &n), MTP_RC_OK);
	assert_int_equal(le32(data), 598);
	free(data);
	/* A host that goes away mid-list. */
	fake_mtp_set_queued(PLUGIN_TX_HIGH);
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0, 0xffffffff, 0,
	    0xffffffff);
	ops->disable(f->priv);
	fake_mtp_clear();
}

static void test_stray_data_and_disable(void **state)
{
	struct fx *f = *state;
	uint8_t buf[1012] = {0};
	uint32_t h, tid;

	open_session(f);
	/* A data phase nobody asked for is drained silently. */
	mtp_container_hdr(buf, sizeof(buf), MTP_TYPE_DATA, 0x100d, 99);
	ops->rx(f->priv, MTP_EP_OUT, buf, 512);
	ops->rx(f->priv, MTP_EP_OUT, buf + 512, 500);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	/* A reset in the middle of a SendObject drops it and the session. */
	assert_int_equal(
	    send_info(f, 0x10001, "cut.bin", MTP_FMT_UNDEFINED, 5000, &h),
	    MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(buf, MTP_HDR_LEN + 5000, MTP_TYPE_DATA, 0x100d, tid);
	ops->rx(f->priv, MTP_EP_OUT, buf, 512);
	fake_mtp_set_enabled(false, 0);
	ops->disable(f->priv);
	assert_int_equal(access(in_s0(f, "cut.bin"), F_OK), -1);
	assert_string_equal(fake_mtp_status("host"), "disconnected");
	fake_mtp_set_enabled(true, 512);
	ops->enable(f->priv);
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_SESSION_NOT_OPEN);
}

static void test_send_object_4gib_framing(void **state)
{
	struct fx *f = *state;
	uint8_t *buf = calloc(1, 4 * 16384);
	uint32_t h, tid;
	struct stat sb;

	open_session(f);
	/* Room for 4 GiB whatever disk the test runs on (a 1 GiB tmpfs
	 * answered Store_Full). */
	fake_statvfs_set(f->s0, 64ULL << 30);
	/* ObjectCompressedSize 0xFFFFFFFF; libmtp then writes the container
	 * length cut to 32 bits, here as if 4 GiB + 40000 bytes were sent. */
	assert_int_equal(send_info(f, 0x10001, "huge.bin", MTP_FMT_UNDEFINED,
				   0xffffffff, &h),
			 MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(buf, MTP_HDR_LEN + 40000, MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	/* Full 16 KiB reads go on past the (bogus) container length... */
	for (int i = 0; i < 3; i++) {
		ops->rx(f->priv, MTP_EP_OUT, buf + i * 16384, 16384);
		assert_int_equal(fake_mtp_n_xfers(), 0);
	}
	/* ...until a read ends early: a full packet then the host's ZLP. */
	ops->rx(f->priv, MTP_EP_OUT, buf, 1024);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(stat(in_s0(f, "huge.bin"), &sb), 0);
	assert_int_equal(sb.st_size, 3 * 16384 + 1024 - MTP_HDR_LEN);
	fake_mtp_clear();
	/* Or a lone ZLP when the data ended on a read boundary. */
	assert_int_equal(send_info(f, 0x10001, "huge2.bin", MTP_FMT_UNDEFINED,
				   0xffffffff, &h),
			 MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(buf, 0xffffffff, MTP_TYPE_DATA, MTP_OP_SEND_OBJECT,
			  tid);
	ops->rx(f->priv, MTP_EP_OUT, buf, 16384);
	ops->rx(f->priv, MTP_EP_OUT, buf, 16384);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	ops->rx(f->priv, MTP_EP_OUT, NULL, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(stat(in_s0(f, "huge2.bin"), &sb), 0);
	assert_int_equal(sb.st_size, 2 * 16384 - MTP_HDR_LEN);
	free(buf);
}

static void test_send_object_prop_list(void **state)
{
	static const size_t whole[] = {0};
	struct fx *f = *state;
	uint8_t props[256], *buf = calloc(1, 16384);
	struct mtp_buf b;
	uint32_t tid, h;
	struct stat sb;
	size_t n;

	open_session(f);
	/* Room for the 4 GiB object below on any disk. */
	fake_statvfs_set(f->s0, 64ULL << 30);
	mtp_buf_init(&b);
	mtp_buf_u32(&b, 1);
	mtp_buf_u32(&b, 0);
	mtp_buf_u16(&b, MTP_PROP_OBJECT_FILE_NAME);
	mtp_buf_u16(&b, MTP_DT_STR);
	mtp_buf_str(&b, "pl.bin");
	n = b.len;
	memcpy(props, b.data, n);
	mtp_buf_finish(&b);
	/* A 5-byte file announced by prop list, then sent. */
	tid = cmd(f, MTP_OP_SEND_OBJECT_PROP_LIST, 5, 0x10001, 0xffffffff,
		  MTP_FMT_UNDEFINED, 0, 5);
	data_phase(f, MTP_OP_SEND_OBJECT_PROP_LIST, tid, props, n, whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	/* Storage, parent, handle and the failed property's index (MTP 1.1
	 * E.2.4): android-file-transfer reads all four. */
	assert_int_equal(fake_mtp_xfer(0)->len, MTP_HDR_LEN + 16);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12),
			 0x10001);
	h = le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 20);
	assert_true(h != 0);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 24), 0);
	fake_mtp_clear();
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, (const uint8_t *)"hello", 5,
		   whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(stat(in_s0(f, "pl.bin"), &sb), 0);
	assert_int_equal(sb.st_size, 5);
	fake_mtp_clear();
	/* 4 GiB + 16: the 64-bit size counts, not libmtp's container
	 * length cut to 32 bits (12 + 16 = 28). */
	tid = cmd(f, MTP_OP_SEND_OBJECT_PROP_LIST, 5, 0x10001, 0xffffffff,
		  MTP_FMT_UNDEFINED, 1, 16);
	data_phase(f, MTP_OP_SEND_OBJECT_PROP_LIST, tid, props, n, whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(buf, 28, MTP_TYPE_DATA, MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, buf, 16384);
	ops->rx(f->priv, MTP_EP_OUT, buf, 512);
	assert_int_equal(fake_mtp_n_xfers(), 0); /* still receiving */
	/* A reset drops the half-sent object: the old one stays. Then,
	 * the file gone, a folder by prop list takes the name. */
	ops->disable(f->priv);
	assert_int_equal(stat(in_s0(f, "pl.bin"), &sb), 0);
	assert_int_equal(sb.st_size, 5);
	assert_int_equal(unlink(in_s0(f, "pl.bin")), 0);
	ops->enable(f->priv);
	open_session(f);
	tid = cmd(f, MTP_OP_SEND_OBJECT_PROP_LIST, 5, 0x10001, 0,
		  MTP_FMT_ASSOCIATION, 0, 0);
	data_phase(f, MTP_OP_SEND_OBJECT_PROP_LIST, tid, props, n, whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(fake_mtp_xfer(fake_mtp_n_xfers() - 1)->len,
			 MTP_HDR_LEN + 16);
	assert_int_equal(stat(in_s0(f, "pl.bin"), &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	fake_mtp_clear();
	/* A malformed list. */
	tid = cmd(f, MTP_OP_SEND_OBJECT_PROP_LIST, 5, 0x10001, 0, 0, 0, 0);
	data_phase(f, MTP_OP_SEND_OBJECT_PROP_LIST, tid, props, 9, whole);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_DATASET);
	free(buf);
}

static void test_listing_and_tree_ops(void **state)
{
	struct fx *f = *state;
	uint32_t n, d, a, copy, ro;
	const uint8_t *p;
	char path[300];

	write_file(in_s0(f, "a.txt"), 3);
	write_file(in_s0(f, "b.jpg"), 4);
	mkdir(in_s0(f, "d"), 0755);
	snprintf(path, sizeof(path), "%s/ro.txt", f->s1);
	write_file(path, 2);
	open_session(f);
	/* All storages, root: 3 + 1 objects; by format: the JPEG only. */
	cmd(f, MTP_OP_GET_NUM_OBJECTS, 3, 0xffffffff, 0, 0xffffffff);
	assert_int_equal(resp(&n), MTP_RC_OK);
	assert_int_equal(n, 4);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_NUM_OBJECTS, 3, 0x10001, MTP_FMT_EXIF_JPEG, 0);
	assert_int_equal(resp(&n), MTP_RC_OK);
	assert_int_equal(n, 1);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x10001, MTP_FMT_ASSOCIATION,
	    0xffffffff);
	p = fake_mtp_data() + fake_mtp_xfer(0)->off;
	assert_int_equal(le32(p + 12), 1);
	d = le32(p + 16);
	fake_mtp_clear();
	a = handle_of(f, "a.txt");
	/* Listing a file as a folder is refused. */
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x10001, 0, a);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARENT_OBJECT);
	fake_mtp_clear();
	/* Copy into the folder, then move the original there too. */
	cmd(f, MTP_OP_COPY_OBJECT, 3, a, 0x10001, d);
	assert_int_equal(resp(&copy), MTP_RC_OK);
	assert_true(copy != a);
	fake_mtp_clear();
	cmd(f, MTP_OP_MOVE_OBJECT, 3, a, 0, d);
	assert_int_equal(resp(NULL), MTP_RC_ACCESS_DENIED); /* name taken */
	fake_mtp_clear();
	cmd(f, MTP_OP_DELETE_OBJECT, 1, copy);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	cmd(f, MTP_OP_MOVE_OBJECT, 3, a, 0, d);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	assert_int_equal(access(in_s0(f, "d/a.txt"), F_OK), 0);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_NUM_OBJECTS, 3, 0x10001, 0, d);
	assert_int_equal(resp(&n), MTP_RC_OK);
	assert_int_equal(n, 1);
	fake_mtp_clear();
	/* The read-only storage: capability, and refusals. */
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x20001);
	assert_int_equal(le16(fake_mtp_data() + fake_mtp_xfer(0)->off + 16), 1);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x20001, 0, 0xffffffff);
	ro = le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 16);
	fake_mtp_clear();
	cmd(f, MTP_OP_DELETE_OBJECT, 1, ro);
	assert_int_equal(resp(NULL), MTP_RC_STORE_READ_ONLY);
	fake_mtp_clear();
	cmd(f, MTP_OP_COPY_OBJECT, 3, ro, 0x20001, 0);
	assert_int_equal(resp(NULL), MTP_RC_STORE_READ_ONLY);
	fake_mtp_clear();
	cmd(f, MTP_OP_MOVE_OBJECT, 3, a, 0x20001, 0);
	assert_int_equal(resp(NULL), MTP_RC_STORE_READ_ONLY);
	fake_mtp_clear();
	/* DeviceFriendlyName: the model by default. */
	cmd(f, MTP_OP_GET_DEVICE_PROP_VALUE, 1, MTP_DPROP_FRIENDLY_NAME);
	p = fake_mtp_data() + fake_mtp_xfer(0)->off;
	assert_int_equal(p[12], 12); /* "gadgetd MTP" + NUL */
	assert_int_equal(p[13], 'g');
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_DEVICE_PROP_DESC, 1, 0x5001);
	assert_int_equal(resp(NULL), MTP_RC_DEVICE_PROP_NOT_SUPPORTED);
}

static void test_command_op(void **state)
{
	struct fx *f = *state;
	char reply[128];
	char *argv[] = {"stats"}, *bad[] = {"nope"};

	assert_int_equal(ops->command(f->priv, 1, argv, reply, sizeof(reply)),
			 0);
	assert_non_null(strstr(reply, "bytes in"));
	assert_int_equal(ops->command(f->priv, 1, bad, reply, sizeof(reply)),
			 -EINVAL);
}

/* The last event on the interrupt endpoint: its code (0: none), and
 * *param its parameter. */
static uint16_t last_event(uint32_t *param)
{
	for (unsigned i = fake_mtp_n_xfers(); i-- > 0;) {
		const struct fake_mtp_xfer *x = fake_mtp_xfer(i);
		const uint8_t *p = fake_mtp_data() + x->off;

		if (x->ep != MTP_EP_EVENT)
			continue;
		if (x->len < 16 || le16(p + 4) != MTP_TYPE_EVENT)
			return 0;
		*param = le32(p + 12);
		return le16(p + 6);
	}
	return 0;
}

static unsigned tmp_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, MTP_FS_TMP_PREFIX,
			      strlen(MTP_FS_TMP_PREFIX));
	closedir(d);
	return n;
}

/* GetStorageIDs: the ids, in order, into ids; their count. */
static uint32_t storage_ids(struct fx *f, uint32_t *ids, uint32_t max)
{
	uint8_t *p;
	size_t n;
	uint32_t count;

	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(in_phase(f, &p, &n), MTP_RC_OK);
	assert_true(n >= 4);
	count = le32(p);
	assert_true(count <= max && n == 4 + 4 * (size_t)count);
	for (uint32_t i = 0; i < count; i++)
		ids[i] = le32(p + 4 + 4 * i);
	free(p);
	return count;
}

/* A storage removed during an upload into it (issue 43): StoreRemoved on
 * the interrupt endpoint, the rest of the data swallowed, then
 * Store_Not_Available, and no partial or temporary file; its handles are
 * dead, and a storage added again gets an id never given. */
static void test_storage_removed_mid_upload(void **state)
{
	struct fx *f = *state;
	uint8_t first[MTP_HDR_LEN + 1000] = {0}, rest[2000] = {0};
	char reply[256];
	char *rm[] = {"storage", "remove", "0x00010001"};
	char *add[] = {"storage", "add", f->s0, "--name", "Again"};
	char *rm_name[] = {"storage", "remove", "Again"};
	char *list[] = {"storage", "list"};
	uint32_t h, tid, param, ids[8];

	open_session(f);
	assert_int_equal(send_info(f, 0x10001, "half.bin", MTP_FMT_UNDEFINED,
				   3000, &h),
			 MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(first, MTP_HDR_LEN + 3000, MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, first, sizeof(first));
	assert_int_equal(fake_mtp_n_xfers(), 0);
	assert_int_equal(tmp_in(f->s0), 1);
	assert_int_equal(ops->command(f->priv, 3, rm, reply, sizeof(reply)), 0);
	assert_string_equal(reply, "storage 0x00010001 removed");
	assert_int_equal(last_event(&param), MTP_EV_STORE_REMOVED);
	assert_int_equal(param, 0x10001);
	assert_int_equal(tmp_in(f->s0), 0);
	assert_int_equal(access(in_s0(f, "half.bin"), F_OK), -1);
	fake_mtp_clear();
	ops->rx(f->priv, MTP_EP_OUT, rest, sizeof(rest));
	assert_int_equal(resp(NULL), MTP_RC_STORE_NOT_AVAILABLE);
	assert_int_equal(tmp_in(f->s0), 0);
	assert_int_equal(access(in_s0(f, "half.bin"), F_OK), -1);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_INFO, 1, h);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x10001);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_STORAGE_ID);
	fake_mtp_clear();
	assert_int_equal(storage_ids(f, ids, 8), 1);
	assert_int_equal(ids[0], 0x20001);
	/* SendObjectInfo into the storage that went. */
	assert_int_equal(send_info(f, 0x10001, "late.bin", MTP_FMT_UNDEFINED,
				   10, NULL),
			 MTP_RC_INVALID_STORAGE_ID);
	/* The same folder again: a new id, with StoreAdded. */
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)),
			 0);
	assert_string_equal(reply, "storage 0x00030001 \"Again\" added");
	assert_int_equal(last_event(&param), MTP_EV_STORE_ADDED);
	assert_int_equal(param, 0x30001);
	fake_mtp_clear();
	assert_int_equal(storage_ids(f, ids, 8), 2);
	assert_int_equal(ids[0], 0x20001);
	assert_int_equal(ids[1], 0x30001);
	assert_int_equal(ops->command(f->priv, 2, list, reply, sizeof(reply)),
			 0);
	assert_non_null(strstr(reply, "0x00030001 rw "));
	assert_non_null(strstr(reply, "\"Again\""));
	/* A name given twice is refused; remove by name; then it is gone. */
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)),
			 -EEXIST);
	assert_int_equal(ops->command(f->priv, 3, rm_name, reply,
				      sizeof(reply)),
			 0);
	assert_int_equal(ops->command(f->priv, 3, rm_name, reply,
				      sizeof(reply)),
			 -ENOENT);
	assert_int_equal(storage_ids(f, ids, 8), 1);
}

/* The bytes of a file, or NULL; *n gets its size. */
static uint8_t *slurp(const char *path, size_t *n)
{
	struct stat sb;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	assert_int_equal(fstat(fd, &sb), 0);
	b = malloc(sb.st_size + 1);
	assert_int_equal(read(fd, b, sb.st_size), sb.st_size);
	close(fd);
	*n = sb.st_size;
	return b;
}

/* True when name holds exactly write_file()'s n bytes. */
static bool same_as_written(const char *path, size_t n)
{
	size_t got;
	uint8_t *b = slurp(path, &got);
	bool ok = b && got == n;

	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == (uint8_t)(i * 7 + 3);
	free(b);
	return ok;
}

static unsigned tmp_files(const char *dir)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		n += mtp_fs_is_tmp(de->d_name);
	closedir(d);
	return n;
}

/* SendObject's header and the first 4084 bytes of a longer object. */
static uint32_t send_start(struct fx *f, uint32_t size)
{
	uint8_t chunk[4096] = {0};
	uint32_t tid = cmd(f, MTP_OP_SEND_OBJECT, 0);

	mtp_container_hdr(chunk, MTP_HDR_LEN + size, MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, chunk, sizeof(chunk));
	assert_int_equal(fake_mtp_n_xfers(), 0);
	return tid;
}

/* An overwrite cancelled halfway, or cut by a reset, keeps the old
 * content; a complete one replaces it under the same handle. */
static void test_overwrite_cancelled(void **state)
{
	static const size_t whole[] = {0};
	struct usb_ctrlrequest cancel = {
	    .bRequestType = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_CANCEL,
	    .wLength = 6,
	};
	struct fx *f = *state;
	uint8_t cdata[6] = {0x01, 0x40}, data[2000];
	uint32_t old, h, tid;
	size_t n;
	uint8_t *back;

	write_file(in_s0(f, "old.bin"), 1000);
	open_session(f);
	old = handle_of(f, "old.bin");
	assert_int_equal(
	    send_info(f, 0x10001, "old.bin", MTP_FMT_UNDEFINED, 100000, &h),
	    MTP_RC_OK);
	assert_int_equal(h, old);
	tid = send_start(f, 100000);
	assert_int_equal(tmp_files(f->s0), 1);
	memcpy(cdata + 2, &tid, 4);
	ops->setup_data(f->priv, &cancel, cdata, 6);
	assert_true(same_as_written(in_s0(f, "old.bin"), 1000));
	assert_int_equal(tmp_files(f->s0), 0);
	/* A reset in the middle. */
	assert_int_equal(
	    send_info(f, 0x10001, "old.bin", MTP_FMT_UNDEFINED, 100000, &h),
	    MTP_RC_OK);
	send_start(f, 100000);
	ops->disable(f->priv);
	ops->enable(f->priv);
	assert_true(same_as_written(in_s0(f, "old.bin"), 1000));
	assert_int_equal(tmp_files(f->s0), 0);
	/* Complete. */
	open_session(f);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 11);
	assert_int_equal(send_info(f, 0x10001, "old.bin", MTP_FMT_UNDEFINED,
				   sizeof(data), &h),
			 MTP_RC_OK);
	assert_int_equal(h, old);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, sizeof(data), whole);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	back = slurp(in_s0(f, "old.bin"), &n);
	assert_int_equal(n, sizeof(data));
	assert_memory_equal(back, data, n);
	free(back);
	assert_int_equal(tmp_files(f->s0), 0);
}

/* More data than announced is refused (Object_Too_Large), less is an
 * incomplete transfer; neither leaves a file nor touches an old one, and
 * the session goes on. */
static void test_size_mismatch(void **state)
{
	static const size_t whole[] = {0};
	struct fx *f = *state;
	uint8_t data[1000] = {0};
	uint32_t h, tid;

	write_file(in_s0(f, "keep.bin"), 50);
	open_session(f);
	assert_int_equal(
	    send_info(f, 0x10001, "o.bin", MTP_FMT_UNDEFINED, 100, &h),
	    MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, sizeof(data), whole);
	assert_int_equal(resp(NULL), MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(access(in_s0(f, "o.bin"), F_OK), -1);
	fake_mtp_clear();
	assert_int_equal(
	    send_info(f, 0x10001, "keep.bin", MTP_FMT_UNDEFINED, 100, &h),
	    MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, sizeof(data), whole);
	assert_int_equal(resp(NULL), MTP_RC_OBJECT_TOO_LARGE);
	assert_true(same_as_written(in_s0(f, "keep.bin"), 50));
	fake_mtp_clear();
	assert_int_equal(
	    send_info(f, 0x10001, "keep.bin", MTP_FMT_UNDEFINED, 1000, &h),
	    MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	data_phase(f, MTP_OP_SEND_OBJECT, tid, data, 500, whole);
	assert_int_equal(resp(NULL), MTP_RC_INCOMPLETE_TRANSFER);
	assert_true(same_as_written(in_s0(f, "keep.bin"), 50));
	assert_int_equal(tmp_files(f->s0), 0);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* Start the plugin again with storage0 only and these reserve options
 * (key, value pairs, NULL-ended). */
static int reinit(struct fx *f, ...)
{
	struct plugin *p;
	const char *k;
	va_list ap;
	int rc;

	if (f->priv)
		ops->finish(f->priv);
	f->priv = NULL;
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", f->s0);
	va_start(ap, f);
	while ((k = va_arg(ap, const char *)))
		fake_mtp_set_option(k, va_arg(ap, const char *));
	va_end(ap);
	rc = ops->init(p, &f->desc, &f->priv);
	if (rc < 0)
		f->priv = NULL;
	fake_mtp_set_enabled(true, 512);
	if (f->priv)
		ops->enable(f->priv);
	return rc;
}

static void test_reserve_option(void **state)
{
	static const char *const bad[] = {
	    "",	   "-1",   "+1",  " 1",		 "1 ",	       "1M",
	    "1.5", "0x1g", "1e3", "99999999999", "1073741825", "١",
	};
	struct fx *f = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (reinit(f, "storage0_reserve_mb", bad[i], NULL) != -EINVAL)
			fail_msg("storage0_reserve_mb=\"%s\" was accepted",
				 bad[i]);
	}
	assert_int_equal(reinit(f, "storage0_reserve_mb", "0", NULL), 0);
	assert_int_equal(reinit(f, "storage0_reserve_mb", "007", NULL), 0);
	/* As a profile may write it (optdesc_int()). */
	assert_int_equal(reinit(f, "storage0_reserve_mb", "0x10", NULL), 0);
	assert_int_equal(reinit(f, "storage0_reserve_mb", "1073741824", NULL),
			 0);
	/* A reserve for a storage that is not there is a typo. */
	assert_int_equal(reinit(f, "storage3_reserve_mb", "1", NULL), -EINVAL);
	/* The inode reserve (issue 21), checked alike. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) - 2; i++) {
		if (reinit(f, "storage0_reserve_inodes", bad[i], NULL) !=
		    -EINVAL)
			fail_msg("storage0_reserve_inodes=\"%s\" was accepted",
				 bad[i]);
	}
	assert_int_equal(reinit(f, "storage0_reserve_inodes", "4294967297",
				NULL),
			 -EINVAL);
	assert_int_equal(reinit(f, "storage0_reserve_inodes", "4294967296",
				NULL),
			 0);
	assert_int_equal(reinit(f, "storage0_reserve_inodes", "0", NULL), 0);
	assert_int_equal(reinit(f, "storage3_reserve_inodes", "1", NULL),
			 -EINVAL);
	assert_int_equal(reinit(f, NULL), 0);
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* A 4 MiB disk with a 1 MiB reserve. */
static void test_small_disk(void **state)
{
	static uint8_t chunk[64 << 10];
	struct fx *f = *state;
	const uint8_t *p;
	uint32_t h, tid, src;
	int fd;

	fake_statvfs_set(f->s0, 4 << 20);
	assert_int_equal(reinit(f, "storage0_reserve_mb", "1", NULL), 0);
	open_session(f);
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x10001);
	p = fake_mtp_data() + fake_mtp_xfer(0)->off + MTP_HDR_LEN;
	assert_int_equal(le64(p + 6), 4 << 20);
	assert_int_equal(le64(p + 14), fake_statvfs_free() - (1 << 20));
	fake_mtp_clear();
	/* 0xFFFFFFFF (4 GiB or more) and one byte too many are refused. */
	assert_int_equal(
	    send_info(f, 0x10001, "big.bin", MTP_FMT_UNDEFINED, 0xffffffff, &h),
	    MTP_RC_STORE_FULL);
	assert_int_equal(send_info(f, 0x10001, "big.bin", MTP_FMT_UNDEFINED,
				   fake_statvfs_free() - (1 << 20) + 1, &h),
			 MTP_RC_STORE_FULL);
	assert_int_equal(access(in_s0(f, "big.bin"), F_OK), -1);
	/* It fits when announced, but the board fills the disk meanwhile:
	 * the writes stop at the reserve and the transfer fails. */
	assert_int_equal(
	    send_info(f, 0x10001, "fits.bin", MTP_FMT_UNDEFINED, 2 << 20, &h),
	    MTP_RC_OK);
	fd = open(in_s0(f, "filler"), O_CREAT | O_WRONLY, 0644);
	assert_int_equal(ftruncate(fd, 1536 << 10), 0);
	close(fd);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(chunk, MTP_HDR_LEN + (2 << 20), MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, chunk, sizeof(chunk));
	for (unsigned i = 1; i < 32; i++)
		ops->rx(f->priv, MTP_EP_OUT, chunk, sizeof(chunk));
	ops->rx(f->priv, MTP_EP_OUT, chunk, MTP_HDR_LEN);
	assert_int_equal(resp(NULL), MTP_RC_STORE_FULL);
	assert_int_equal(access(in_s0(f, "fits.bin"), F_OK), -1);
	assert_int_equal(tmp_files(f->s0), 0);
	assert_true(fake_statvfs_free() >= 1 << 20);
	fake_mtp_clear();
	/* CopyObject checks the space too. */
	fd = open(in_s0(f, "src.bin"), O_CREAT | O_WRONLY, 0644);
	assert_int_equal(ftruncate(fd, 1200 << 10), 0);
	close(fd);
	src = handle_of(f, "src.bin");
	assert_int_equal(send_info(f, 0x10001, "d", MTP_FMT_ASSOCIATION, 0, &h),
			 MTP_RC_OK);
	cmd(f, MTP_OP_COPY_OBJECT, 3, src, 0x10001, h);
	assert_int_equal(resp(NULL), MTP_RC_STORE_FULL);
	assert_int_equal(access(in_s0(f, "d/src.bin"), F_OK), -1);
	fake_mtp_clear();
	assert_int_equal(unlink(in_s0(f, "filler")), 0);
	cmd(f, MTP_OP_COPY_OBJECT, 3, src, 0x10001, h);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* An idle watch that counts the loop's rounds (what a heartbeat needs). */
static void count_round(struct loop_watch *w, void *data)
{
	unsigned *n = data;

	(*n)++;
}

/* The last IN transfer is a response: its code and transaction id. */
static uint16_t resp_tid(uint32_t *tid)
{
	const struct fake_mtp_xfer *x;
	const uint8_t *p;

	if (!fake_mtp_n_xfers())
		return 0;
	x = fake_mtp_xfer(fake_mtp_n_xfers() - 1);
	p = fake_mtp_data() + x->off;
	if (x->len < MTP_HDR_LEN || le16(p + 4) != MTP_TYPE_RESPONSE)
		return 0;
	*tid = le32(p + 8);
	return le16(p + 6);
}

/*
 * Issue 21: a long CopyObject goes in steps from the worker's loop, so
 * the loop (and the heartbeat it answers) keeps running; the response
 * comes at the end. Meanwhile the device says busy, a stray command gets
 * Device_Busy, and a reset or unplug removes the half copy.
 */
static void test_copy_in_steps(void **state)
{
	struct usb_ctrlrequest status = {
	    .bRequestType = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_GET_DEVICE_STATUS,
	    .wLength = 4,
	};
	struct fx *f = *state;
	struct loop *l = loop_new();
	unsigned rounds = 0, others = 0;
	uint32_t src, d, tid, copy, t;
	uint8_t in[8];
	char cmpcmd[512];
	struct stat sb;

	assert_non_null(l);
	fake_mtp_set_loop(l);
	assert_int_equal(reinit(f, NULL), 0);
	write_file(in_s0(f, "big.bin"), 24u << 20);
	open_session(f);
	src = handle_of(f, "big.bin");
	assert_int_equal(send_info(f, 0x10001, "d", MTP_FMT_ASSOCIATION, 0, &d),
			 MTP_RC_OK);
	tid = cmd(f, MTP_OP_COPY_OBJECT, 3, src, 0x10001, d);
	/* Not answered from inside the command: the loop runs the copy. */
	assert_int_equal(fake_mtp_n_xfers(), 0);
	assert_int_equal(ops->setup(f->priv, &status, in), 4);
	assert_int_equal(le16(in + 2), MTP_RC_DEVICE_BUSY);
	t = cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp_tid(&copy), MTP_RC_DEVICE_BUSY);
	assert_int_equal(copy, t);
	fake_mtp_clear();
	while (!fake_mtp_n_xfers() && rounds < 1000) {
		assert_non_null(loop_add_idle(l, count_round, &others));
		assert_true(loop_dispatch(l, 1000) >= 0);
		rounds++;
	}
	/* 24 MiB in steps of at most 4 MiB, other work between them. */
	assert_true(rounds >= 6);
	assert_true(others >= 6);
	assert_int_equal(resp_tid(&t), MTP_RC_OK);
	assert_int_equal(t, tid);
	assert_int_equal(resp(&copy), MTP_RC_OK);
	assert_true(copy != src && copy != 0);
	snprintf(cmpcmd, sizeof(cmpcmd), "cmp -s '%s/big.bin' '%s/d/big.bin'",
		 f->s0, f->s0);
	assert_int_equal(system(cmpcmd), 0);
	assert_int_equal(ops->setup(f->priv, &status, in), 4);
	assert_int_equal(le16(in + 2), MTP_RC_OK);
	/* Unplugged halfway: no answer, and no half copy stays. */
	fake_mtp_clear();
	assert_int_equal(send_info(f, 0x10001, "e", MTP_FMT_ASSOCIATION, 0, &d),
			 MTP_RC_OK);
	cmd(f, MTP_OP_COPY_OBJECT, 3, src, 0x10001, d);
	for (unsigned i = 0; i < 3; i++)
		assert_true(loop_dispatch(l, 1000) >= 0);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	assert_int_equal(stat(in_s0(f, "e/big.bin"), &sb), 0);
	ops->disable(f->priv);
	assert_true(loop_dispatch(l, 0) >= 0);
	assert_int_equal(fake_mtp_n_xfers(), 0);
	assert_int_equal(stat(in_s0(f, "e/big.bin"), &sb), -1);
	assert_int_equal(stat(in_s0(f, "e"), &sb), 0);
	assert_int_equal(tmp_files(f->s0), 0);
	ops->finish(f->priv);
	f->priv = NULL;
	fake_mtp_set_loop(NULL);
	loop_free(l);
}

static unsigned tapped;

static void tap_count(enum log_level level, const char *msg)
{
	if (strstr(msg, "mtp: "))
		tapped++;
}

/* Issue 21: the lines a host provokes are rate-limited, as adb's: a host
 * skipping 1000 data phases in a row leaves a handful of lines. */
static void test_host_log_limited(void **state)
{
	struct fx *f = *state;

	open_session(f);
	tapped = 0;
	log_set_tap(tap_count);
	for (unsigned i = 0; i < 1000; i++)
		cmd(f, MTP_OP_SEND_OBJECT_INFO, 2, 0x10001, 0xffffffff);
	log_set_tap(NULL);
	assert_true(tapped >= 1);
	assert_true(tapped <= 25);
	/* The session still works. */
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* The size of a file on the board's side. */
static long long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) < 0 ? -1 : (long long)sb.st_size;
}

/* SendPartialObject(h, offset, n) with n bytes of c; the response code,
 * *written its parameter. */
static uint16_t send_partial(struct fx *f, uint32_t h, uint64_t off,
			     uint32_t n, uint8_t c, uint32_t *written)
{
	static const size_t whole[] = {0};
	uint8_t *buf = malloc(n ? n : 1);
	uint32_t tid;
	uint16_t rc;

	memset(buf, c, n);
	tid = cmd(f, MTP_OP_SEND_PARTIAL_OBJECT, 4, h, (uint32_t)off,
		  (uint32_t)(off >> 32), n);
	data_phase(f, MTP_OP_SEND_PARTIAL_OBJECT, tid, buf, n, whole);
	free(buf);
	rc = resp(written);
	fake_mtp_clear();
	return rc;
}

static uint16_t op1(struct fx *f, uint16_t code, uint32_t h)
{
	uint16_t rc;

	cmd(f, code, 1, h);
	rc = resp(NULL);
	fake_mtp_clear();
	return rc;
}

static uint16_t truncate_obj(struct fx *f, uint32_t h, uint64_t size)
{
	uint16_t rc;

	cmd(f, MTP_OP_TRUNCATE_OBJECT, 3, h, (uint32_t)size,
	    (uint32_t)(size >> 32));
	rc = resp(NULL);
	fake_mtp_clear();
	return rc;
}

/* Byte i of the file is what write_file() put there, except where
 * [from, to) was overwritten with c. */
static void assert_bytes(const char *path, size_t n, size_t from, size_t to,
			 uint8_t c)
{
	uint8_t *buf = malloc(n + 1);
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, n + 1), n);
	close(fd);
	for (size_t i = 0; i < n; i++) {
		uint8_t want = i >= from && i < to ? c : (uint8_t)(i * 7 + 3);

		if (buf[i] != want)
			fail_msg("%s: byte %zu is %u, not %u", path, i, buf[i],
				 want);
	}
	free(buf);
}

/* Begin, write in the middle, append, truncate, end: the file on the
 * board follows each step, and edits happen only between Begin and End. */
static void test_edit_in_place(void **state)
{
	struct fx *f = *state;
	const char *path;
	uint32_t h, w;

	write_file(in_s0(f, "e.bin"), 100);
	open_session(f);
	h = handle_of(f, "e.bin");
	fake_mtp_clear();
	path = in_s0(f, "e.bin");
	/* Not being edited: refused, and the data phase is swallowed. */
	assert_int_equal(send_partial(f, h, 0, 10, 0xee, &w),
			 MTP_RC_GENERAL_ERROR);
	assert_int_equal(w, 0);
	assert_int_equal(truncate_obj(f, h, 5), MTP_RC_GENERAL_ERROR);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, h),
			 MTP_RC_GENERAL_ERROR);
	assert_bytes(path, 100, 0, 0, 0);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h), MTP_RC_OK);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h),
			 MTP_RC_GENERAL_ERROR);
	/* Overwrite the middle. */
	assert_int_equal(send_partial(f, h, 50, 10, 0xaa, &w), MTP_RC_OK);
	assert_int_equal(w, 10);
	assert_bytes(path, 100, 50, 60, 0xaa);
	/* Append at the end: the size grows. */
	assert_int_equal(send_partial(f, h, 100, 20, 0xbb, &w), MTP_RC_OK);
	assert_int_equal(w, 20);
	assert_int_equal(file_size(path), 120);
	/* Past the end: no hole is made. */
	assert_int_equal(send_partial(f, h, 121, 1, 0xcc, &w),
			 MTP_RC_INVALID_PARAMETER);
	assert_int_equal(file_size(path), 120);
	/* A zero-length write is fine. */
	assert_int_equal(send_partial(f, h, 120, 0, 0, &w), MTP_RC_OK);
	assert_int_equal(w, 0);
	assert_int_equal(truncate_obj(f, h, 30), MTP_RC_OK);
	assert_int_equal(file_size(path), 30);
	assert_int_equal(truncate_obj(f, h, 0), MTP_RC_OK);
	assert_int_equal(send_partial(f, h, 0, 7, 0x11, &w), MTP_RC_OK);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, h), MTP_RC_OK);
	assert_int_equal(file_size(path), 7);
	/* After EndEditObject the edit is over. */
	assert_int_equal(send_partial(f, h, 0, 1, 0x22, &w),
			 MTP_RC_GENERAL_ERROR);
	assert_int_equal(truncate_obj(f, h, 0), MTP_RC_GENERAL_ERROR);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, h),
			 MTP_RC_GENERAL_ERROR);
	assert_int_equal(file_size(path), 7);
	/* The host sees the new size. */
	cmd(f, MTP_OP_GET_OBJECT_PROP_VALUE, 2, h, MTP_PROP_OBJECT_SIZE);
	assert_int_equal(le32(fake_mtp_data() + MTP_HDR_LEN), 7);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* Hostile parameters: each gets a clean code and changes nothing. */
static void test_edit_hostile(void **state)
{
	struct fx *f = *state;
	const char *path;
	uint32_t h, w;

	write_file(in_s0(f, "e.bin"), 100);
	open_session(f);
	h = handle_of(f, "e.bin");
	fake_mtp_clear();
	path = in_s0(f, "e.bin");
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h), MTP_RC_OK);
	/* Offsets beyond 2^63 and sums that overflow. */
	assert_int_equal(send_partial(f, h, UINT64_MAX, 4, 1, &w),
			 MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(send_partial(f, h, 1ull << 63, 4, 1, &w),
			 MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(send_partial(f, h, INT64_MAX, 4, 1, &w),
			 MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(send_partial(f, h, INT64_MAX - 3, 4, 1, &w),
			 MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(send_partial(f, h, INT64_MAX - 4, 4, 1, &w),
			 MTP_RC_INVALID_PARAMETER);
	assert_int_equal(send_partial(f, h, 0xffffffff, 1, 1, &w),
			 MTP_RC_INVALID_PARAMETER);
	assert_int_equal(truncate_obj(f, h, UINT64_MAX), MTP_RC_OBJECT_TOO_LARGE);
	assert_int_equal(truncate_obj(f, h, 1ull << 63),
			 MTP_RC_OBJECT_TOO_LARGE);
	assert_bytes(path, 100, 0, 0, 0);
	/* Missing parameters. */
	{
		static const size_t whole[] = {0};
		uint32_t tid = cmd(f, MTP_OP_SEND_PARTIAL_OBJECT, 3, h, 0, 0);

		data_phase(f, MTP_OP_SEND_PARTIAL_OBJECT, tid,
			   (const uint8_t *)"xy", 2, whole);
		assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
		fake_mtp_clear();
	}
	cmd(f, MTP_OP_TRUNCATE_OBJECT, 2, h, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	cmd(f, MTP_OP_BEGIN_EDIT_OBJECT, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	cmd(f, MTP_OP_END_EDIT_OBJECT, 0);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	assert_int_equal(file_size(path), 100);
	/* More data than announced: refused before a byte is written. */
	{
		static const size_t whole[] = {0};
		uint8_t big[64];
		uint32_t tid;

		memset(big, 0x55, sizeof(big));
		tid = cmd(f, MTP_OP_SEND_PARTIAL_OBJECT, 4, h, 10, 0, 8);
		data_phase(f, MTP_OP_SEND_PARTIAL_OBJECT, tid, big,
			   sizeof(big), whole);
		assert_int_equal(resp(&w), MTP_RC_OBJECT_TOO_LARGE);
		assert_int_equal(w, 0);
		fake_mtp_clear();
		/* Less than announced: what came is kept and counted. */
		tid = cmd(f, MTP_OP_SEND_PARTIAL_OBJECT, 4, h, 10, 0, 64);
		data_phase(f, MTP_OP_SEND_PARTIAL_OBJECT, tid, big, 8, whole);
		assert_int_equal(resp(&w), MTP_RC_INCOMPLETE_TRANSFER);
		assert_int_equal(w, 8);
		fake_mtp_clear();
	}
	assert_bytes(path, 100, 10, 18, 0x55);
	/* Unknown handles, folders, the other objects. */
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, 0),
			 MTP_RC_INVALID_OBJECT_HANDLE);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, 0xffffffff),
			 MTP_RC_INVALID_OBJECT_HANDLE);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, 0x7777),
			 MTP_RC_GENERAL_ERROR);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, h), MTP_RC_OK);
	/* The session still works. */
	cmd(f, MTP_OP_GET_STORAGE_IDS, 0);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* What may not be written is not opened for edit; a cancelled write
 * keeps what came; edits end with the session; edits are bounded. */
static void test_edit_refusals(void **state)
{
	struct fx *f = *state;
	char name[32], other[128];
	uint32_t h, ro, dir, linked, w;
	const uint8_t *p;
	struct usb_ctrlrequest cancel = {
	    .bRequestType = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
	    .bRequest = MTP_REQ_CANCEL,
	    .wLength = 6,
	};
	uint8_t cdata[6] = {0x01, 0x40}, hdr[MTP_HDR_LEN + 16], in[8];
	uint32_t tid;

	write_file(in_s0(f, "e.bin"), 100);
	write_file(in_s0(f, "hard.bin"), 10);
	mkdir(in_s0(f, "dir"), 0755);
	snprintf(path_buf, sizeof(path_buf), "%s/ro.bin", f->s1);
	write_file(path_buf, 10);
	open_session(f);
	h = handle_of(f, "e.bin");
	dir = handle_of(f, "dir");
	linked = handle_of(f, "hard.bin");
	fake_mtp_clear();
	/* A second link made after the listing (it may lead outside). */
	snprintf(other, sizeof(other), "%s/hard2", f->root);
	assert_int_equal(link(in_s0(f, "hard.bin"), other), 0);
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x20001, 0, 0xffffffff);
	p = fake_mtp_data() + fake_mtp_xfer(0)->off;
	assert_int_equal(le32(p + 12), 1);
	ro = le32(p + 16);
	fake_mtp_clear();
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, ro),
			 MTP_RC_STORE_READ_ONLY);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, dir),
			 MTP_RC_INVALID_OBJECT_HANDLE);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, linked),
			 MTP_RC_ACCESS_DENIED);
	/* A file the worker may not write (root could: skip that half). */
	if (geteuid() != 0) {
		chmod(in_s0(f, "e.bin"), 0444);
		assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h),
				 MTP_RC_ACCESS_DENIED);
		chmod(in_s0(f, "e.bin"), 0644);
	}
	/* A write cancelled half-way keeps the bytes before the cancel. */
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h), MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_PARTIAL_OBJECT, 4, h, 0, 0, 32);
	mtp_container_hdr(hdr, MTP_HDR_LEN + 32, MTP_TYPE_DATA,
			  MTP_OP_SEND_PARTIAL_OBJECT, tid);
	memset(hdr + MTP_HDR_LEN, 0x66, 16);
	ops->rx(f->priv, MTP_EP_OUT, hdr, sizeof(hdr));
	memcpy(cdata + 2, &tid, 4);
	assert_int_equal(ops->setup(f->priv, &cancel, in), 0);
	ops->setup_data(f->priv, &cancel, cdata, sizeof(cdata));
	fake_mtp_clear();
	assert_bytes(in_s0(f, "e.bin"), 100, 0, 16, 0x66);
	/* The edit is still open after a cancel. */
	assert_int_equal(send_partial(f, h, 0, 20, 0x67, &w), MTP_RC_OK);
	assert_bytes(in_s0(f, "e.bin"), 100, 0, 20, 0x67);
	/* CloseSession ends the edits. */
	cmd(f, MTP_OP_CLOSE_SESSION, 0);
	fake_mtp_clear();
	open_session(f);
	assert_int_equal(send_partial(f, h, 0, 1, 1, &w),
			 MTP_RC_GENERAL_ERROR);
	/* SendPartialObject outside a session: its data is swallowed. */
	cmd(f, MTP_OP_CLOSE_SESSION, 0);
	fake_mtp_clear();
	assert_int_equal(send_partial(f, h, 0, 1, 1, &w),
			 MTP_RC_SESSION_NOT_OPEN);
	open_session(f);
	/* At most MTP_EDIT_MAX (16) edits at once. */
	for (unsigned i = 0; i < 17; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		write_file(in_s0(f, name), 1);
	}
	for (unsigned i = 0; i < 17; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		uint32_t fh = handle_of(f, name);

		fake_mtp_clear();
		assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, fh),
				 i < 16 ? MTP_RC_OK : MTP_RC_GENERAL_ERROR);
	}
	/* A reset of the host ends them too. */
	ops->disable(f->priv);
	ops->enable(f->priv);
	open_session(f);
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h), MTP_RC_OK);
}

/* The reserve holds for edits: growth is checked before a byte is
 * written, overwrites need no room. */
static void test_edit_space(void **state)
{
	struct fx *f = *state;
	uint64_t room;
	uint32_t h, w;

	write_file(in_s0(f, "e.bin"), 100);
	fake_statvfs_set(f->s0, 4 << 20);
	assert_int_equal(reinit(f, "storage0_reserve_mb", "1", NULL), 0);
	open_session(f);
	h = handle_of(f, "e.bin");
	fake_mtp_clear();
	assert_int_equal(op1(f, MTP_OP_BEGIN_EDIT_OBJECT, h), MTP_RC_OK);
	room = fake_statvfs_free() - (1 << 20);
	assert_int_equal(truncate_obj(f, h, 100 + room + 1), MTP_RC_STORE_FULL);
	assert_int_equal(file_size(in_s0(f, "e.bin")), 100);
	assert_int_equal(send_partial(f, h, 100, room + 1, 0, &w),
			 MTP_RC_STORE_FULL);
	assert_int_equal(w, 0);
	assert_int_equal(file_size(in_s0(f, "e.bin")), 100);
	/* Exactly the room: fine; then the disk is at its reserve. */
	assert_int_equal(truncate_obj(f, h, 100 + room), MTP_RC_OK);
	assert_int_equal(fake_statvfs_free(), 1 << 20);
	assert_int_equal(send_partial(f, h, 100 + room, 1, 0, &w),
			 MTP_RC_STORE_FULL);
	/* Overwriting what is there takes no room. */
	assert_int_equal(send_partial(f, h, 10, 1000, 0x42, &w), MTP_RC_OK);
	assert_int_equal(w, 1000);
	assert_int_equal(truncate_obj(f, h, 100), MTP_RC_OK);
	assert_int_equal(op1(f, MTP_OP_END_EDIT_OBJECT, h), MTP_RC_OK);
	assert_bytes(in_s0(f, "e.bin"), 100, 10, 100, 0x42);
}


/* The last DeviceInfo (the first transfer) into rd, read up to and with
 * its vendor extension string (into ext). */
static void devinfo_ext(struct mtp_rd *rd, char *ext, size_t n)
{
	mtp_rd_init(rd, fake_mtp_data() + MTP_HDR_LEN,
		    fake_mtp_xfer(0)->len - MTP_HDR_LEN);
	mtp_rd_u16(rd);
	mtp_rd_u32(rd);
	mtp_rd_u16(rd);
	assert_int_equal(mtp_rd_str(rd, ext, n), 0);
}

/* 1 when the last DeviceInfo lists op. */
static int devinfo_lists(uint16_t op)
{
	char ext[MTP_STR_MAX + 1];
	struct mtp_rd rd;
	int found = 0;
	uint32_t n;

	devinfo_ext(&rd, ext, sizeof(ext));
	mtp_rd_u16(&rd);
	n = mtp_rd_u32(&rd);
	for (uint32_t i = 0; i < n; i++)
		found |= mtp_rd_u16(&rd) == op;
	assert_int_equal(rd.err, 0);
	return found;
}
/* GetPartialObject64 with hostile offsets, and the edit operations in
 * DeviceInfo's list. */
static void test_partial64_and_devinfo(void **state)
{
	static const uint16_t want[] = {
	    MTP_OP_GET_PARTIAL_OBJECT_64, MTP_OP_SEND_PARTIAL_OBJECT,
	    MTP_OP_TRUNCATE_OBJECT,	  MTP_OP_BEGIN_EDIT_OBJECT,
	    MTP_OP_END_EDIT_OBJECT,
	};
	struct fx *f = *state;
	struct mtp_rd rd;
	char ext[MTP_STR_MAX + 1];
	uint32_t h, got;

	write_file(in_s0(f, "e.bin"), 100);
	open_session(f);
	h = handle_of(f, "e.bin");
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 0xffffffff, 0xffffffff, 10);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 0, 0x80000000, 10);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 101, 0, 1);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_PARAMETER);
	fake_mtp_clear();
	/* At the end: nothing; a length past it: clipped. */
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 100, 0, 10);
	assert_int_equal(resp(&got), MTP_RC_OK);
	assert_int_equal(got, 0);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, h, 90, 0, 0xffffffff);
	assert_int_equal(fake_mtp_xfer(0)->len, MTP_HDR_LEN + 10);
	assert_int_equal(fake_mtp_data()[MTP_HDR_LEN], (uint8_t)(90 * 7 + 3));
	assert_int_equal(resp(&got), MTP_RC_OK);
	assert_int_equal(got, 10);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	devinfo_ext(&rd, ext, sizeof(ext));
	/* libmtp takes android.com for its Android quirks: not by default. */
	assert_string_equal(ext, "microsoft.com: 1.0;");
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		assert_int_equal(devinfo_lists(want[k]), 1);
}

/* object_prop_lists: by default DeviceInfo lists GetObjectPropList and
 * GetObjectPropsSupported (Windows, libmtp's whole-device list); off, it
 * lists neither (libmtp's walk: one transaction an object), and both
 * are still answered. */
static void test_object_prop_lists_option(void **state)
{
	struct fx *f = *state;
	uint32_t h;

	write_file(in_s0(f, "a.txt"), 10);
	assert_int_equal(reinit(f, NULL), 0);
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	assert_int_equal(devinfo_lists(MTP_OP_GET_OBJECT_PROP_LIST), 1);
	assert_int_equal(devinfo_lists(MTP_OP_GET_OBJECT_PROPS_SUPPORTED), 1);
	assert_int_equal(devinfo_lists(MTP_OP_SEND_OBJECT_PROP_LIST), 1);
	fake_mtp_clear();
	assert_int_equal(reinit(f, "object_prop_lists", "nope", NULL), -EINVAL);
	assert_int_equal(reinit(f, "object_prop_lists", "false", NULL), 0);
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	assert_int_equal(devinfo_lists(MTP_OP_GET_OBJECT_PROP_LIST), 0);
	assert_int_equal(devinfo_lists(MTP_OP_GET_OBJECT_PROPS_SUPPORTED), 0);
	assert_int_equal(devinfo_lists(MTP_OP_SEND_OBJECT_PROP_LIST), 1);
	assert_int_equal(devinfo_lists(MTP_OP_GET_OBJECT_INFO), 1);
	fake_mtp_clear();
	open_session(f);
	h = handle_of(f, "a.txt");
	cmd(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, h, 0, 0xffffffff, 0, 0);
	assert_int_equal(le32(fake_mtp_data() + fake_mtp_xfer(0)->off + 12), 11);
	assert_int_equal(resp(NULL), MTP_RC_OK);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_PROPS_SUPPORTED, 1, 0x3000);
	assert_int_equal(resp(NULL), MTP_RC_OK);
}

/* android_extension: DeviceInfo says android.com, for go-mtpfs. */
static void test_android_extension_option(void **state)
{
	struct fx *f = *state;
	char ext[MTP_STR_MAX + 1];
	struct mtp_rd rd;

	assert_int_equal(reinit(f, "android_extension", "True", NULL), -EINVAL);
	assert_int_equal(reinit(f, "android_extension", "true", NULL), 0);
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	mtp_rd_init(&rd, fake_mtp_data() + MTP_HDR_LEN,
		    fake_mtp_xfer(0)->len - MTP_HDR_LEN);
	mtp_rd_u16(&rd);
	assert_int_equal(mtp_rd_u32(&rd), 6);
	mtp_rd_u16(&rd);
	assert_int_equal(mtp_rd_str(&rd, ext, sizeof(ext)), 0);
	assert_string_equal(ext, "microsoft.com: 1.0; android.com: 1.0;");
	fake_mtp_clear();
	assert_int_equal(reinit(f, "android_extension", "false", NULL), 0);
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	devinfo_ext(&rd, ext, sizeof(ext));
	assert_string_equal(ext, "microsoft.com: 1.0;");
}

/* The events on the interrupt endpoint with this code: their count, and
 * their parameters into params (up to max). */
static unsigned events_of(uint16_t code, uint32_t *params, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < fake_mtp_n_xfers(); i++) {
		const struct fake_mtp_xfer *x = fake_mtp_xfer(i);
		const uint8_t *p = fake_mtp_data() + x->off;

		if (x->ep != MTP_EP_EVENT || x->len < 16 ||
		    le16(p + 4) != MTP_TYPE_EVENT || le16(p + 6) != code)
			continue;
		if (n < max)
			params[n] = le32(p + 12);
		n++;
	}
	return n;
}

/* The device locked (issue 43): every storage goes with StoreRemoved and
 * nothing is listed or reachable; `storage add` is held; at unlock the
 * storages and the held one come back with StoreAdded, under new ids. */
static void test_lock_hides_unlock_shows(void **state)
{
	struct fx *f = *state;
	char reply[512];
	char *add[] = {"storage", "add", f->s1, "--name", "Late"};
	char *list[] = {"storage", "list"};
	uint32_t h, ids[8], params[8];
	uint8_t *p;
	size_t n;

	write_file(in_s0(f, "secret.txt"), 100);
	open_session(f);
	h = handle_of(f, "secret.txt");
	assert_int_not_equal(h, 0);
	fake_mtp_clear();
	fake_mtp_set_locked(true);
	ops->lock(f->priv, true);
	assert_int_equal(events_of(MTP_EV_STORE_REMOVED, params, 8), 2);
	assert_int_equal(params[0], 0x10001);
	assert_int_equal(params[1], 0x20001);
	fake_mtp_clear();
	/* The responder answers, but nothing is there. */
	cmd(f, MTP_OP_GET_DEVICE_INFO, 0);
	assert_int_equal(in_phase(f, &p, &n), MTP_RC_OK);
	free(p);
	assert_int_equal(storage_ids(f, ids, 8), 0);
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x10001);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_STORAGE_ID);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_INFO, 1, h);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_OBJECT_HANDLE);
	fake_mtp_clear();
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0xffffffff, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &p, &n), MTP_RC_OK);
	assert_int_equal(n, 4);
	assert_int_equal(le32(p), 0);
	free(p);
	/* Added while locked: held, not shown, no event. */
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)),
			 0);
	assert_non_null(strstr(reply, "shown at unlock"));
	assert_int_equal(events_of(MTP_EV_STORE_ADDED, params, 8), 0);
	assert_int_equal(storage_ids(f, ids, 8), 0);
	assert_int_equal(ops->command(f->priv, 2, list, reply, sizeof(reply)),
			 0);
	assert_non_null(strstr(reply, "\"Late\" (locked"));
	fake_mtp_clear();
	fake_mtp_set_locked(false);
	ops->lock(f->priv, false);
	assert_int_equal(events_of(MTP_EV_STORE_ADDED, params, 8), 3);
	assert_int_equal(params[0], 0x30001);
	assert_int_equal(params[1], 0x40001);
	assert_int_equal(params[2], 0x50001);
	fake_mtp_clear();
	assert_int_equal(storage_ids(f, ids, 8), 3);
	/* storage1 is still read-only, and the file is there again. */
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x40001);
	assert_int_equal(in_phase(f, &p, &n), MTP_RC_OK);
	assert_true(n >= 6);
	assert_int_equal(le16(p + 4), 0x0001); /* read-only, no deletion */
	free(p);
	/* storage0's file is listed again, under its new id. */
	cmd(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0x30001, 0, 0xffffffff);
	assert_int_equal(in_phase(f, &p, &n), MTP_RC_OK);
	assert_int_equal(n, 8);
	assert_int_equal(le32(p), 1);
	free(p);
}

/* Locked during an upload: it ends as a storage removal does, with
 * Store_Not_Available and no partial or temporary file. */
static void test_lock_mid_upload(void **state)
{
	struct fx *f = *state;
	uint8_t first[MTP_HDR_LEN + 1000] = {0}, rest[2000] = {0};
	uint32_t h, tid, params[8];

	open_session(f);
	assert_int_equal(send_info(f, 0x10001, "half.bin", MTP_FMT_UNDEFINED,
				   3000, &h),
			 MTP_RC_OK);
	tid = cmd(f, MTP_OP_SEND_OBJECT, 0);
	mtp_container_hdr(first, MTP_HDR_LEN + 3000, MTP_TYPE_DATA,
			  MTP_OP_SEND_OBJECT, tid);
	ops->rx(f->priv, MTP_EP_OUT, first, sizeof(first));
	assert_int_equal(tmp_in(f->s0), 1);
	fake_mtp_set_locked(true);
	ops->lock(f->priv, true);
	assert_int_equal(events_of(MTP_EV_STORE_REMOVED, params, 8), 2);
	assert_int_equal(tmp_in(f->s0), 0);
	fake_mtp_clear();
	ops->rx(f->priv, MTP_EP_OUT, rest, sizeof(rest));
	assert_int_equal(resp(NULL), MTP_RC_STORE_NOT_AVAILABLE);
	assert_int_equal(tmp_in(f->s0), 0);
	assert_int_equal(access(in_s0(f, "half.bin"), F_OK), -1);
	fake_mtp_clear();
	fake_mtp_set_locked(false);
	ops->lock(f->priv, false);
	assert_int_equal(tmp_in(f->s0), 0);
	assert_int_equal(access(in_s0(f, "half.bin"), F_OK), -1);
}

/* `storage` while locked: a held storage is listed and may be removed,
 * a missing folder is refused at once, a name taken by a held storage is
 * refused; the unlock shows only what is still held. */
static void test_lock_storage_command(void **state)
{
	struct fx *f = *state;
	char reply[512];
	char *add[] = {"storage", "add", f->s1, "--name", "Late"};
	char *bad[] = {"storage", "add", "/nonexistent/mtp", "--name", "Gone"};
	char *rm[] = {"storage", "remove", "Late"};
	uint32_t ids[8], params[8];

	open_session(f);
	fake_mtp_set_locked(true);
	ops->lock(f->priv, true);
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)),
			 0);
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)),
			 -EEXIST);
	assert_int_equal(ops->command(f->priv, 5, bad, reply, sizeof(reply)),
			 -ENOENT);
	assert_non_null(strstr(reply, "/nonexistent/mtp"));
	assert_int_equal(ops->command(f->priv, 3, rm, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "removed"));
	assert_int_equal(ops->command(f->priv, 3, rm, reply, sizeof(reply)),
			 -ENOENT);
	fake_mtp_clear();
	fake_mtp_set_locked(false);
	ops->lock(f->priv, false);
	assert_int_equal(events_of(MTP_EV_STORE_ADDED, params, 8), 2);
	fake_mtp_clear();
	assert_int_equal(storage_ids(f, ids, 8), 2);
}

/* A worker started while locked shows no storage until the unlock. */
static void test_started_locked(void **state)
{
	struct fx *f = *state;
	uint32_t ids[8], params[8];
	struct plugin *p;

	ops->finish(f->priv);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", f->s0);
	fake_mtp_set_locked(true);
	f->priv = NULL;
	assert_int_equal(ops->init(p, &f->desc, &f->priv), 0);
	fake_mtp_set_enabled(true, 512);
	ops->enable(f->priv);
	open_session(f);
	assert_int_equal(storage_ids(f, ids, 8), 0);
	cmd(f, MTP_OP_GET_STORAGE_INFO, 1, 0x10001);
	assert_int_equal(resp(NULL), MTP_RC_INVALID_STORAGE_ID);
	fake_mtp_clear();
	fake_mtp_set_locked(false);
	ops->lock(f->priv, false);
	assert_int_equal(events_of(MTP_EV_STORE_ADDED, params, 8), 1);
	assert_int_equal(params[0], 0x20001);
	fake_mtp_clear();
	assert_int_equal(storage_ids(f, ids, 8), 1);
	assert_int_equal(ids[0], 0x20001);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_errors),
	    cmocka_unit_test(test_prepare_create_option),
	    T(test_desc),
	    T(test_session),
	    T(test_garbage_keeps_session),
	    T(test_send_object_split_and_merged),
	    T(test_get_object_zlp),
	    T(test_get_object_paced),
	    T(test_class_requests),
	    T(test_refusals),
	    T(test_rename_and_props),
	    T(test_prop_list_whole_device),
	    T(test_prop_list_bad_params),
	    T(test_walk_one_stat),
	    T(test_prop_list_changed_meanwhile),
	    T(test_stray_data_and_disable),
	    T(test_send_object_4gib_framing),
	    T(test_send_object_prop_list),
	    T(test_listing_and_tree_ops),
	    T(test_command_op),
	    T(test_storage_removed_mid_upload),
	    T(test_storage_removed_mid_read),
	    T(test_overwrite_cancelled),
	    T(test_size_mismatch),
	    T(test_reserve_option),
	    T(test_copy_in_steps),
	    T(test_host_log_limited),
	    T(test_small_disk),
	    T(test_edit_in_place),
	    T(test_edit_hostile),
	    T(test_edit_refusals),
	    T(test_edit_space),
	    T(test_partial64_and_devinfo),
	    T(test_android_extension_option),
	    T(test_object_prop_lists_option),
	    T(test_lock_hides_unlock_shows),
	    T(test_lock_mid_upload),
	    T(test_lock_storage_command),
	    T(test_started_locked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
