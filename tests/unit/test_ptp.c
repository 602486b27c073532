/*
 * The ptp plugin (functions/ptp/ptp.c: the mtp plugin's code in its PTP
 * flavour) through its plugin_ops, with the runtime faked: the
 * still-image interface, DeviceInfo with no vendor extension and PTP's
 * operations only, image format codes, GetThumb and ObjectInfo from the
 * EXIF thumbnail (ptp_thumb.c alone too), read-only unless writable, and
 * log lines that say "ptp:".
 */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "fake_plugin_mtp.h"
#include "fake_statvfs.h"
#include "ptp_jpeg.h"
#include "mtp/mtp.h"
#include "mtp/mtp_container.h"
#include "mtp/mtp_proto.h"
#include "mtp/mtp_rd.h"
#include "ptp/ptp_thumb.h"
#include "log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct plugin_ops *ops = &gadgetd_plugin;

struct fx {
	char root[64];
	struct plugin_desc desc;
	void *priv;
	uint32_t tid;
	/* The last data phase's payload and the response. */
	uint8_t data[256 * 1024];
	size_t len;
	uint16_t rc;
};

static uint8_t jpeg[8192];
static const uint8_t *thumb;
static size_t thumb_len;

static void put(struct fx *f, const char *name, const void *p, size_t n)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->root, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

static int fx_up(void **state, const char *writable)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct plugin *p;
	size_t n;
	char path[160];

	strcpy(f->root, "/tmp/test_ptp.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	/* With a thumbnail, without one (EXIF, no IFD1), without EXIF. */
	n = ptp_jpeg_make(jpeg, 1, 4000, 3000, 160, 120, 700, 3000, &thumb,
			  &thumb_len);
	put(f, "IMG_0001.JPG", jpeg, n);
	{
		uint8_t other[4096];

		put(f, "bare.jpg", other,
		    ptp_jpeg_make(other, 1, 640, 480, 0, 0, 0, 500, NULL, NULL));
		put(f, "noexif.jpg", other,
		    ptp_jpeg_make(other, 0, 0, 0, 0, 0, 0, 500, NULL, NULL));
	}
	put(f, "shot.png", "\x89PNG", 4);
	put(f, "clip.heic", "heic", 4);
	put(f, "notes.txt", "text", 4);
	snprintf(path, sizeof(path), "%s/100CANON", f->root);
	mkdir(path, 0755);
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", f->root);
	if (writable)
		fake_mtp_set_option("writable", writable);
	assert_int_equal(ops->init(p, &f->desc, &f->priv), 0);
	fake_mtp_set_enabled(true, 512);
	ops->enable(f->priv);
	f->tid = 1;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return fx_up(state, NULL);
}

static int setup_rw(void **state)
{
	return fx_up(state, "true");
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	ops->finish(f->priv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* Run an operation with no data out: f->data/len the data phase (if
 * any), f->rc the response code. */
static uint16_t op(struct fx *f, uint16_t code, unsigned n, ...)
{
	uint32_t params[5];
	uint8_t buf[32], all[256 * 1024 + 64];
	size_t len, got = 0;
	va_list ap;

	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		params[i] = va_arg(ap, uint32_t);
	va_end(ap);
	fake_mtp_clear();
	len = mtp_container_build(buf, MTP_TYPE_COMMAND, code, f->tid++, params, n);
	ops->rx(f->priv, MTP_EP_OUT, buf, len);
	for (unsigned i = 0; i < fake_mtp_n_xfers(); i++) {
		const struct fake_mtp_xfer *x = fake_mtp_xfer(i);

		if (x->ep != MTP_EP_IN)
			continue;
		assert_true(got + x->len <= sizeof(all));
		memcpy(all + got, fake_mtp_data() + x->off, x->len);
		got += x->len;
		fake_mtp_drain();
		ops->tx_drained(f->priv, MTP_EP_IN);
	}
	f->len = 0;
	f->rc = 0;
	if (got >= MTP_HDR_LEN && le16(all + 4) == MTP_TYPE_DATA) {
		len = le32(all);
		assert_true(len >= MTP_HDR_LEN && len <= got);
		f->len = len - MTP_HDR_LEN;
		memcpy(f->data, all + MTP_HDR_LEN, f->len);
		memmove(all, all + len, got - len);
		got -= len;
	}
	if (got >= MTP_HDR_LEN && le16(all + 4) == MTP_TYPE_RESPONSE)
		f->rc = le16(all + 6);
	return f->rc;
}

static void session(struct fx *f)
{
	assert_int_equal(op(f, MTP_OP_OPEN_SESSION, 1, 1), MTP_RC_OK);
}

/* The handle of name in the root. */
static uint32_t handle_of(struct fx *f, const char *name)
{
	uint32_t n, h;

	assert_int_equal(op(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0xffffffff, 0,
			    0xffffffff), MTP_RC_OK);
	n = le32(f->data);
	for (uint32_t i = 0; i < n; i++) {
		struct mtp_rd r;
		char s[256];

		h = le32(f->data + 4 + 4 * i);
		/* GetObjectInfo overwrites f->data: keep the list. */
		uint8_t keep[4096];
		size_t klen = f->len;

		memcpy(keep, f->data, klen < sizeof(keep) ? klen : sizeof(keep));
		assert_int_equal(op(f, MTP_OP_GET_OBJECT_INFO, 1, h), MTP_RC_OK);
		mtp_rd_init(&r, f->data + 52, f->len - 52);
		assert_int_equal(mtp_rd_str(&r, s, sizeof(s)), 0);
		memcpy(f->data, keep, klen < sizeof(keep) ? klen : sizeof(keep));
		f->len = klen;
		if (!strcmp(s, name))
			return h;
	}
	fail_msg("no object %s", name);
	return 0;
}

static void test_interface(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->desc.cls, 6);
	assert_int_equal(f->desc.subcls, 1);
	assert_int_equal(f->desc.proto, 1);
	assert_string_equal(f->desc.interface_string, "PTP");
	assert_null(f->desc.ms_compat_id);
	assert_int_equal(f->desc.n_eps, 3);
	assert_string_equal(ops->name, "ptp");
}

/* The u16 array at *off of DeviceInfo: whether it holds code. */
static bool array_has(const uint8_t *p, size_t *off, uint16_t code)
{
	uint32_t n = le32(p + *off);
	bool has = false;

	for (uint32_t i = 0; i < n; i++)
		has |= le16(p + *off + 4 + 2 * i) == code;
	*off += 4 + 2 * n;
	return has;
}

static void test_device_info(void **state)
{
	struct fx *f = *state;
	size_t off;

	assert_int_equal(op(f, MTP_OP_GET_DEVICE_INFO, 0), MTP_RC_OK);
	assert_int_equal(le16(f->data), 100);     /* StandardVersion */
	assert_int_equal(le32(f->data + 2), 0);   /* VendorExtensionID */
	assert_int_equal(le16(f->data + 6), 0);   /* VendorExtensionVersion */
	assert_int_equal(f->data[8], 0);          /* no VendorExtensionDesc */
	off = 11;                                 /* after FunctionalMode */
	assert_true(array_has(f->data, &(size_t){off}, MTP_OP_GET_THUMB));
	assert_true(array_has(f->data, &(size_t){off}, MTP_OP_GET_OBJECT));
	assert_false(array_has(f->data, &(size_t){off}, MTP_OP_GET_OBJECT_PROP_LIST));
	assert_false(array_has(f->data, &(size_t){off}, MTP_OP_GET_OBJECT_PROPS_SUPPORTED));
	assert_false(array_has(f->data, &(size_t){off}, MTP_OP_BEGIN_EDIT_OBJECT));
	array_has(f->data, &off, 0);                               /* operations */
	assert_true(array_has(f->data, &(size_t){off}, MTP_EV_OBJECT_ADDED));
	array_has(f->data, &off, 0);                               /* events */
	assert_int_equal(le32(f->data + off), 0);                  /* no device prop */
	array_has(f->data, &off, 0);
	array_has(f->data, &off, 0);                               /* capture formats */
	assert_true(array_has(f->data, &(size_t){off}, MTP_FMT_EXIF_JPEG));
	assert_true(array_has(f->data, &(size_t){off}, MTP_FMT_TIFF));
	assert_true(array_has(f->data, &(size_t){off}, MTP_FMT_PNG));
	assert_false(array_has(f->data, &(size_t){off}, MTP_FMT_MP3));
}

/* MTP's operations are not PTP's: refused, even in a session. */
static void test_mtp_ops_refused(void **state)
{
	struct fx *f = *state;

	session(f);
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_PROP_LIST, 5, 0xffffffff, 0,
			    0xffffffff, 0, 1), MTP_RC_OPERATION_NOT_SUPPORTED);
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_PROPS_SUPPORTED, 1, 0x3801),
			 MTP_RC_OPERATION_NOT_SUPPORTED);
	assert_int_equal(op(f, MTP_OP_GET_PARTIAL_OBJECT_64, 4, 1, 0, 0, 1),
			 MTP_RC_OPERATION_NOT_SUPPORTED);
	assert_int_equal(op(f, MTP_OP_GET_DEVICE_PROP_DESC, 1, 0xD402),
			 MTP_RC_OPERATION_NOT_SUPPORTED);
	/* The session lives on. */
	assert_int_equal(op(f, MTP_OP_GET_STORAGE_IDS, 0), MTP_RC_OK);
}

/* ObjectInfo's ObjectFormat of name. */
static uint16_t format_of(struct fx *f, const char *name)
{
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_INFO, 1, handle_of(f, name)),
			 MTP_RC_OK);
	return le16(f->data + 4);
}

static void test_formats(void **state)
{
	struct fx *f = *state;

	session(f);
	assert_int_equal(format_of(f, "IMG_0001.JPG"), MTP_FMT_EXIF_JPEG);
	assert_int_equal(format_of(f, "shot.png"), MTP_FMT_PNG);
	assert_int_equal(format_of(f, "clip.heic"), MTP_FMT_UNDEFINED);
	assert_int_equal(format_of(f, "notes.txt"), MTP_FMT_UNDEFINED);
	assert_int_equal(format_of(f, "100CANON"), MTP_FMT_ASSOCIATION);
	/* GetObjectHandles by format uses the same codes. */
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0xffffffff,
			    MTP_FMT_EXIF_JPEG, 0xffffffff), MTP_RC_OK);
	assert_int_equal(le32(f->data), 3);
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_HANDLES, 3, 0xffffffff,
			    MTP_FMT_TEXT, 0xffffffff), MTP_RC_OK);
	assert_int_equal(le32(f->data), 0);
}

static void test_object_info_thumb(void **state)
{
	struct fx *f = *state;

	session(f);
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_INFO, 1,
			    handle_of(f, "IMG_0001.JPG")), MTP_RC_OK);
	assert_int_equal(le16(f->data + 12), MTP_FMT_EXIF_JPEG); /* ThumbFormat */
	assert_int_equal(le32(f->data + 14), thumb_len);
	assert_int_equal(le32(f->data + 18), 160);  /* ThumbPixWidth */
	assert_int_equal(le32(f->data + 22), 120);
	assert_int_equal(le32(f->data + 26), 4000); /* ImagePixWidth */
	assert_int_equal(le32(f->data + 30), 3000);
	/* EXIF without a thumbnail, no EXIF: nothing made up. */
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_INFO, 1,
			    handle_of(f, "bare.jpg")), MTP_RC_OK);
	assert_int_equal(le16(f->data + 12), 0);
	assert_int_equal(le32(f->data + 14), 0);
	assert_int_equal(op(f, MTP_OP_GET_OBJECT_INFO, 1,
			    handle_of(f, "noexif.jpg")), MTP_RC_OK);
	assert_int_equal(le16(f->data + 12), 0);
	assert_int_equal(le32(f->data + 14), 0);
}

static void test_get_thumb(void **state)
{
	struct fx *f = *state;

	session(f);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, handle_of(f, "IMG_0001.JPG")),
			 MTP_RC_OK);
	assert_int_equal(f->len, thumb_len);
	assert_memory_equal(f->data, thumb, thumb_len);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, handle_of(f, "bare.jpg")),
			 MTP_RC_NO_THUMBNAIL_PRESENT);
	assert_int_equal(f->len, 0);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, handle_of(f, "noexif.jpg")),
			 MTP_RC_NO_THUMBNAIL_PRESENT);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, handle_of(f, "shot.png")),
			 MTP_RC_NO_THUMBNAIL_PRESENT);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, handle_of(f, "100CANON")),
			 MTP_RC_NO_THUMBNAIL_PRESENT);
	assert_int_equal(op(f, MTP_OP_GET_THUMB, 1, 0x7777),
			 MTP_RC_INVALID_OBJECT_HANDLE);
}

/* Read-only by default: the storage says so, a delete is refused and the
 * file stays. */
static void test_readonly_default(void **state)
{
	struct fx *f = *state;
	char path[160];

	session(f);
	assert_int_equal(op(f, MTP_OP_GET_STORAGE_INFO, 1, 0x00010001), MTP_RC_OK);
	assert_int_equal(le16(f->data + 4), 0x0001); /* AccessCapability: RO */
	assert_int_equal(op(f, MTP_OP_DELETE_OBJECT, 1, handle_of(f, "notes.txt")),
			 MTP_RC_STORE_READ_ONLY);
	snprintf(path, sizeof(path), "%s/notes.txt", f->root);
	assert_int_equal(access(path, F_OK), 0);
}

static void test_writable(void **state)
{
	struct fx *f = *state;
	char path[160];

	session(f);
	assert_int_equal(op(f, MTP_OP_GET_STORAGE_INFO, 1, 0x00010001), MTP_RC_OK);
	assert_int_equal(le16(f->data + 4), 0x0000);
	assert_int_equal(op(f, MTP_OP_DELETE_OBJECT, 1, handle_of(f, "notes.txt")),
			 MTP_RC_OK);
	snprintf(path, sizeof(path), "%s/notes.txt", f->root);
	assert_int_equal(access(path, F_OK), -1);
}

/* `ptp storage add` serves read-only, --ro or not, unless `writable`. */
static void test_storage_add_readonly(void **state)
{
	struct fx *f = *state;
	char reply[256], path[160];
	char *add[] = {"storage", "add", path, "--name", "More"};
	char *list[] = {"storage", "list"};

	snprintf(path, sizeof(path), "%s/100CANON", f->root);
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)), 0);
	assert_int_equal(ops->command(f->priv, 2, list, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "0x00020001 ro "));
}

static void test_storage_add_writable(void **state)
{
	struct fx *f = *state;
	char reply[256], path[160];
	char *add[] = {"storage", "add", path, "--name", "More"};
	char *list[] = {"storage", "list"};

	snprintf(path, sizeof(path), "%s/100CANON", f->root);
	assert_int_equal(ops->command(f->priv, 5, add, reply, sizeof(reply)), 0);
	assert_int_equal(ops->command(f->priv, 2, list, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "0x00020001 rw "));
}

static char logged[256];

static void tap_keep(enum log_level level, const char *msg)
{
	snprintf(logged, sizeof(logged), "%s", msg);
}

/* The worker's lines start with "ptp:", MTP's with "mtp:" (mtp.h, struct
 * mtp_flavour): in prepare, and in init down to the store. */
static void test_log_prefix(void **state)
{
	struct plugin_desc desc;
	struct plugin *p = fake_mtp_reset();
	void *priv = NULL;

	log_set_tap(tap_keep);
	fake_mtp_set_option("storage0_create", "true");
	assert_int_equal(ops->prepare(p, geteuid(), getegid()), -EINVAL);
	assert_string_equal(
	    logged, "ptp: option storage0_create without storage0_path");
	p = fake_mtp_reset();
	fake_mtp_set_option("storage0_path", "/nonexistent/dcim");
	assert_int_equal(ops->init(p, &desc, &priv), -ENOENT);
	assert_non_null(
	    strstr(logged, "ptp: option storage0_path: /nonexistent/dcim: "));
	log_set_tap(NULL);
}

/* ptp_thumb alone: hostile segments end in -ENOENT, never a read past. */
static void test_thumb_parse(void **state)
{
	uint8_t j[4096];
	struct ptp_thumb t;
	struct mtp_buf b;
	size_t n;

	n = ptp_jpeg_make(j, 1, 10, 20, 30, 40, 100, 50, &thumb, &thumb_len);
	mtp_buf_init(&b);
	assert_int_equal(ptp_thumb_parse(j, n, &t, &b), 0);
	assert_int_equal(t.size, thumb_len);
	assert_int_equal(t.width, 10);
	assert_int_equal(t.height, 20);
	assert_int_equal(t.thumb_width, 30);
	assert_int_equal(t.thumb_height, 40);
	assert_int_equal(b.len, thumb_len);
	assert_memory_equal(b.data, thumb, thumb_len);
	mtp_buf_finish(&b);
	/* Every truncation: the segment is cut, so no thumbnail. */
	for (size_t cut = 0; cut < 4 + 2 + 6 + 98 + thumb_len; cut++)
		assert_int_equal(ptp_thumb_parse(j, cut, &t, NULL), -ENOENT);
	/* A segment length past the data. */
	j[4] = 0xFF;
	assert_int_equal(ptp_thumb_parse(j, n, &t, NULL), -ENOENT);
	/* Not a JPEG. */
	assert_int_equal(ptp_thumb_parse((const uint8_t *)"GIF89a", 6, &t, NULL),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_interface, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_device_info, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mtp_ops_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_object_info_thumb, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_get_thumb, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_readonly_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_writable, setup_rw, teardown),
	    cmocka_unit_test_setup_teardown(test_storage_add_readonly, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_storage_add_writable, setup_rw, teardown),
	    cmocka_unit_test(test_thumb_parse),
	    cmocka_unit_test(test_log_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
