#include "mtp_ptp.h"
#include "mtp_dataset.h"
#include "mtp_ops.h"
#include "mtp_proto.h"
#include "mtp_thumb.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ISO 15740's operations that the shared table (mtp_ops.c) serves. */
static const uint16_t mtp_ptp_ops[] = {
    MTP_OP_GET_DEVICE_INFO,   MTP_OP_OPEN_SESSION,
    MTP_OP_CLOSE_SESSION,     MTP_OP_GET_STORAGE_IDS,
    MTP_OP_GET_STORAGE_INFO,  MTP_OP_GET_NUM_OBJECTS,
    MTP_OP_GET_OBJECT_HANDLES, MTP_OP_GET_OBJECT_INFO,
    MTP_OP_GET_OBJECT,        MTP_OP_GET_THUMB,
    MTP_OP_DELETE_OBJECT,     MTP_OP_SEND_OBJECT_INFO,
    MTP_OP_SEND_OBJECT,       MTP_OP_MOVE_OBJECT,
    MTP_OP_COPY_OBJECT,       MTP_OP_GET_PARTIAL_OBJECT,
};

const uint16_t mtp_ptp_events[] = {
    MTP_EV_OBJECT_ADDED,
    MTP_EV_OBJECT_REMOVED,
    MTP_EV_STORE_FULL,
    MTP_EV_OBJECT_INFO_CHANGED,
};
const size_t mtp_ptp_n_events =
    sizeof(mtp_ptp_events) / sizeof(mtp_ptp_events[0]);

/*
 * Image formats with a PTP code. HEIF has none outside vendor
 * extensions (libgphoto2's ptp.h lists only vendors' codes for it), and
 * PTP here names no vendor: a .heic file is Undefined, like any other.
 */
static const struct {
	const char *ext;
	uint16_t format;
} mtp_ptp_exts[] = {
    {"jpg", MTP_FMT_EXIF_JPEG}, {"jpeg", MTP_FMT_EXIF_JPEG},
    {"tif", MTP_FMT_TIFF},      {"tiff", MTP_FMT_TIFF},
    {"png", MTP_FMT_PNG},       {"gif", MTP_FMT_GIF},
    {"bmp", MTP_FMT_BMP},
};

const uint16_t mtp_ptp_formats[] = {
    MTP_FMT_UNDEFINED, MTP_FMT_ASSOCIATION, MTP_FMT_EXIF_JPEG,
    MTP_FMT_TIFF,      MTP_FMT_PNG,         MTP_FMT_GIF,
    MTP_FMT_BMP,
};
const size_t mtp_ptp_n_formats =
    sizeof(mtp_ptp_formats) / sizeof(mtp_ptp_formats[0]);

bool mtp_ptp_op_ok(bool ptp, uint16_t code)
{
	if (!ptp)
		return code != MTP_OP_GET_THUMB;
	for (size_t i = 0; i < sizeof(mtp_ptp_ops) / sizeof(mtp_ptp_ops[0]); i++)
		if (mtp_ptp_ops[i] == code)
			return true;
	return false;
}

uint16_t mtp_ptp_format_of(const char *name, bool dir)
{
	const char *dot = strrchr(name, '.');

	if (dir)
		return MTP_FMT_ASSOCIATION;
	if (!dot)
		return MTP_FMT_UNDEFINED;
	for (size_t i = 0; i < sizeof(mtp_ptp_exts) / sizeof(mtp_ptp_exts[0]); i++)
		if (!strcasecmp(dot + 1, mtp_ptp_exts[i].ext))
			return mtp_ptp_exts[i].format;
	return MTP_FMT_UNDEFINED;
}

/* The EXIF thumbnail of a JPEG object (into out, unless NULL). */
static int mtp_ptp_thumb(struct mtp_store *s, const struct mtp_obj_stat *st,
			 struct mtp_thumb *t, struct mtp_buf *out)
{
	int fd = -1, rc;

	memset(t, 0, sizeof(*t));
	if (st->dir || mtp_ptp_format_of(st->name, false) != MTP_FMT_EXIF_JPEG)
		return -ENOENT;
	rc = mtp_store_open(s, st->handle, O_RDONLY, &fd);
	if (rc < 0)
		return rc;
	rc = mtp_thumb_read(fd, t, out);
	close(fd);
	return rc;
}

int mtp_ptp_object_info(struct mtp_store *s, struct mtp_buf *b,
			const struct mtp_obj_stat *st)
{
	struct mtp_dataset_image im = {
	    .format = mtp_ptp_format_of(st->name, st->dir)};
	struct mtp_thumb t;

	/* A file we cannot read or parse just has no thumbnail to name. */
	if (mtp_ptp_thumb(s, st, &t, NULL) == 0) {
		im.thumb_format = MTP_FMT_EXIF_JPEG;
		im.thumb_size = t.size;
		im.thumb_width = t.thumb_width;
		im.thumb_height = t.thumb_height;
		im.width = t.width;
		im.height = t.height;
	}
	return mtp_dataset_object_info_image(b, st, &im);
}

uint16_t mtp_ptp_get_thumb(struct mtp_store *s, struct mtp_buf *b,
			   uint32_t handle)
{
	struct mtp_obj_stat st;
	struct mtp_thumb t;
	int rc = mtp_store_stat(s, handle, &st);

	if (rc < 0)
		return mtp_ops_errno_code(rc);
	rc = mtp_ptp_thumb(s, &st, &t, b);
	/* A folder, a file of another format, or a JPEG without one. */
	if (rc == -ENOENT)
		return MTP_RC_NO_THUMBNAIL_PRESENT;
	return mtp_ops_errno_code(rc);
}
