/*
 * ptp_tables: PTP's operations, events and formats, and its ObjectInfo
 * and GetThumb, which the MTP responder's operations reach through the
 * flavour (ptp_tables.h).
 */
#include "ptp_tables.h"
#include "ptp_thumb.h"

#include "mtp_dataset.h"
#include "mtp_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PTP_TABLES_N(a) (sizeof(a) / sizeof((a)[0]))

/* ISO 15740's operations that the shared table (mtp_ops.c) serves. */
static const uint16_t ptp_tables_ops[] = {
    MTP_OP_GET_DEVICE_INFO,   MTP_OP_OPEN_SESSION,
    MTP_OP_CLOSE_SESSION,     MTP_OP_GET_STORAGE_IDS,
    MTP_OP_GET_STORAGE_INFO,  MTP_OP_GET_NUM_OBJECTS,
    MTP_OP_GET_OBJECT_HANDLES, MTP_OP_GET_OBJECT_INFO,
    MTP_OP_GET_OBJECT,        MTP_OP_GET_THUMB,
    MTP_OP_DELETE_OBJECT,     MTP_OP_SEND_OBJECT_INFO,
    MTP_OP_SEND_OBJECT,       MTP_OP_MOVE_OBJECT,
    MTP_OP_COPY_OBJECT,       MTP_OP_GET_PARTIAL_OBJECT,
};

static const uint16_t ptp_tables_events[] = {
    MTP_EV_OBJECT_ADDED,
    MTP_EV_OBJECT_REMOVED,
    MTP_EV_STORE_FULL,
    MTP_EV_OBJECT_INFO_CHANGED,
    MTP_EV_STORE_ADDED,
    MTP_EV_STORE_REMOVED,
};

/*
 * Image formats with a PTP code. HEIF has none outside vendor
 * extensions (libgphoto2's ptp.h lists only vendors' codes for it), and
 * PTP here names no vendor: a .heic file is Undefined, like any other.
 */
static const struct {
	const char *ext;
	uint16_t format;
} ptp_tables_exts[] = {
    {"jpg", MTP_FMT_EXIF_JPEG}, {"jpeg", MTP_FMT_EXIF_JPEG},
    {"tif", MTP_FMT_TIFF},      {"tiff", MTP_FMT_TIFF},
    {"png", MTP_FMT_PNG},       {"gif", MTP_FMT_GIF},
    {"bmp", MTP_FMT_BMP},
};

static const uint16_t ptp_tables_formats[] = {
    MTP_FMT_UNDEFINED, MTP_FMT_ASSOCIATION, MTP_FMT_EXIF_JPEG,
    MTP_FMT_TIFF,      MTP_FMT_PNG,         MTP_FMT_GIF,
    MTP_FMT_BMP,
};

static bool ptp_tables_op_ok(uint16_t code)
{
	for (size_t i = 0; i < PTP_TABLES_N(ptp_tables_ops); i++)
		if (ptp_tables_ops[i] == code)
			return true;
	return false;
}

static uint16_t ptp_tables_format_of(const char *name, bool dir)
{
	const char *dot = strrchr(name, '.');

	if (dir)
		return MTP_FMT_ASSOCIATION;
	if (!dot)
		return MTP_FMT_UNDEFINED;
	for (size_t i = 0; i < PTP_TABLES_N(ptp_tables_exts); i++)
		if (!strcasecmp(dot + 1, ptp_tables_exts[i].ext))
			return ptp_tables_exts[i].format;
	return MTP_FMT_UNDEFINED;
}

/* The EXIF thumbnail of a JPEG object (into out, unless NULL). */
static int ptp_tables_thumb(struct mtp_store *s,
			    const struct mtp_obj_stat *st, struct ptp_thumb *t,
			    struct mtp_buf *out)
{
	int fd = -1, rc;

	memset(t, 0, sizeof(*t));
	if (st->dir ||
	    ptp_tables_format_of(st->name, false) != MTP_FMT_EXIF_JPEG)
		return -ENOENT;
	rc = mtp_store_open(s, st->handle, O_RDONLY, &fd);
	if (rc < 0)
		return rc;
	rc = ptp_thumb_read(fd, t, out);
	close(fd);
	return rc;
}

static int ptp_tables_object_info(struct mtp_store *s, struct mtp_buf *b,
				  const struct mtp_obj_stat *st)
{
	struct mtp_dataset_image im = {
	    .format = ptp_tables_format_of(st->name, st->dir)};
	struct ptp_thumb t;

	/* A file we cannot read or parse just has no thumbnail to name. */
	if (ptp_tables_thumb(s, st, &t, NULL) == 0) {
		im.thumb_format = MTP_FMT_EXIF_JPEG;
		im.thumb_size = t.size;
		im.thumb_width = t.thumb_width;
		im.thumb_height = t.thumb_height;
		im.width = t.width;
		im.height = t.height;
	}
	return mtp_dataset_object_info_image(b, st, &im);
}

/* GetThumb: -ENOENT for a folder, a file of another format, or a JPEG
 * without one. */
static int ptp_tables_get_thumb(struct mtp_store *s,
				const struct mtp_obj_stat *st,
				struct mtp_buf *b)
{
	struct ptp_thumb t;

	return ptp_tables_thumb(s, st, &t, b);
}

const struct mtp_ops_tables ptp_tables = {
    .events = ptp_tables_events,
    .n_events = PTP_TABLES_N(ptp_tables_events),
    .formats = ptp_tables_formats,
    .n_formats = PTP_TABLES_N(ptp_tables_formats),
    .op_ok = ptp_tables_op_ok,
    .format_of = ptp_tables_format_of,
    .object_info = ptp_tables_object_info,
    .get_thumb = ptp_tables_get_thumb,
};
