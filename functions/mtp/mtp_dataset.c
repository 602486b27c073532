#include "mtp_dataset.h"
#include "mtp_proto.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

const uint16_t mtp_dataset_formats[] = {
    MTP_FMT_UNDEFINED, MTP_FMT_ASSOCIATION, MTP_FMT_TEXT, MTP_FMT_HTML,
    MTP_FMT_WAV,       MTP_FMT_MP3,	    MTP_FMT_AVI,  MTP_FMT_MPEG,
    MTP_FMT_EXIF_JPEG, MTP_FMT_BMP,	    MTP_FMT_GIF,  MTP_FMT_PNG,
    MTP_FMT_WMA,       MTP_FMT_OGG,	    MTP_FMT_AAC,  MTP_FMT_FLAC,
    MTP_FMT_MP4,
};
const size_t mtp_dataset_n_formats =
    sizeof(mtp_dataset_formats) / sizeof(mtp_dataset_formats[0]);

const uint16_t mtp_dataset_props[] = {
    MTP_PROP_STORAGE_ID,	MTP_PROP_OBJECT_FORMAT,
    MTP_PROP_PROTECTION_STATUS, MTP_PROP_OBJECT_SIZE,
    MTP_PROP_OBJECT_FILE_NAME,	MTP_PROP_DATE_CREATED,
    MTP_PROP_DATE_MODIFIED,	MTP_PROP_PARENT_OBJECT,
    MTP_PROP_PERSISTENT_UID,	MTP_PROP_NAME,
    MTP_PROP_DISPLAY_NAME,
};
const size_t mtp_dataset_n_props =
    sizeof(mtp_dataset_props) / sizeof(mtp_dataset_props[0]);

static const struct {
	const char *ext;
	uint16_t format;
} mtp_dataset_exts[] = {
    {"txt", MTP_FMT_TEXT},	{"html", MTP_FMT_HTML},
    {"htm", MTP_FMT_HTML},	{"wav", MTP_FMT_WAV},
    {"mp3", MTP_FMT_MP3},	{"avi", MTP_FMT_AVI},
    {"mpg", MTP_FMT_MPEG},	{"mpeg", MTP_FMT_MPEG},
    {"jpg", MTP_FMT_EXIF_JPEG}, {"jpeg", MTP_FMT_EXIF_JPEG},
    {"bmp", MTP_FMT_BMP},	{"gif", MTP_FMT_GIF},
    {"png", MTP_FMT_PNG},	{"wma", MTP_FMT_WMA},
    {"ogg", MTP_FMT_OGG},	{"aac", MTP_FMT_AAC},
    {"flac", MTP_FMT_FLAC},	{"mp4", MTP_FMT_MP4},
};

uint16_t mtp_dataset_format_of(const char *name, bool dir)
{
	const char *dot = strrchr(name, '.');

	if (dir)
		return MTP_FMT_ASSOCIATION;
	if (!dot)
		return MTP_FMT_UNDEFINED;
	for (size_t i = 0;
	     i < sizeof(mtp_dataset_exts) / sizeof(mtp_dataset_exts[0]); i++)
		if (!strcasecmp(dot + 1, mtp_dataset_exts[i].ext))
			return mtp_dataset_exts[i].format;
	return MTP_FMT_UNDEFINED;
}

bool mtp_dataset_format_known(uint16_t format)
{
	for (size_t i = 0; i < mtp_dataset_n_formats; i++)
		if (mtp_dataset_formats[i] == format)
			return true;
	return false;
}

/* v in n decimal digits, zero-padded (its lowest ones if longer). */
static void mtp_dataset_digits(char *out, int v, int n)
{
	while (n--) {
		out[n] = '0' + v % 10;
		v /= 10;
	}
}

void mtp_dataset_date(char *out, time_t t)
{
	struct tm tm;
	time_t epoch = 0;
	int year;

	/* By hand: strftime() was a tenth of a whole-device listing. A
	 * time gmtime_r() cannot break down (a file's mtime is anyone's)
	 * reads as the epoch; a year beyond four digits is clamped. */
	if (!gmtime_r(&t, &tm))
		gmtime_r(&epoch, &tm);
	year = tm.tm_year + 1900;
	mtp_dataset_digits(out, year < 0 ? 0 : year > 9999 ? 9999 : year, 4);
	mtp_dataset_digits(out + 4, tm.tm_mon + 1, 2);
	mtp_dataset_digits(out + 6, tm.tm_mday, 2);
	out[8] = 'T';
	mtp_dataset_digits(out + 9, tm.tm_hour, 2);
	mtp_dataset_digits(out + 11, tm.tm_min, 2);
	mtp_dataset_digits(out + 13, tm.tm_sec, 2);
	out[15] = 0;
}

/* Add a string; a failed one leaves the buffer marked as broken. */
static int mtp_dataset_str(struct mtp_buf *b, const char *s, int rc)
{
	int r = mtp_buf_str(b, s ? s : "");

	return rc < 0 ? rc : r;
}

int mtp_dataset_device_info(struct mtp_buf *b, const struct mtp_devinfo *d)
{
	int rc = 0;

	mtp_buf_u16(b, 100); /* StandardVersion */
	/* VendorExtensionID: Microsoft, i.e. MTP; PTP names none. */
	mtp_buf_u32(b, d->ptp ? 0 : 6);
	mtp_buf_u16(b, d->ptp ? 0 : 100); /* VendorExtensionVersion */
	/*
	 * libmtp (1.1.20) picks its listing path from this string and the
	 * operations listed (measured: docs/mtp-clients.md, "MTP listing"). Listed as
	 * now, an uncached client (mtp-files, jmtpfs) costs GetObjectInfo +
	 * a one-object GetObjectPropList per object and a cached one
	 * (mtp-folders) one whole-device list. "android.com" would set
	 * libmtp's Android bug flags: no whole-device list (GetObjectInfo
	 * per object instead), a long timeout and a reset on every close,
	 * and the per-object walk stays as it is. It is said only when the
	 * mtp option android_extension asks (go-mtpfs edits in place then).
	 */
	if (d->ptp)
		rc = mtp_dataset_str(b, "", rc);
	else
		rc = mtp_dataset_str(
		    b, d->extensions ? d->extensions : "microsoft.com: 1.0;", rc);
	mtp_buf_u16(b, 0); /* FunctionalMode */
	mtp_buf_u16_array(b, d->ops, d->n_ops);
	mtp_buf_u16_array(b, d->events, d->n_events);
	mtp_buf_u16_array(b, d->dprops, d->n_dprops);
	mtp_buf_u16_array(b, NULL, 0); /* CaptureFormats */
	mtp_buf_u16_array(b, d->formats, d->n_formats);
	rc = mtp_dataset_str(b, d->manufacturer, rc);
	rc = mtp_dataset_str(b, d->model, rc);
	rc = mtp_dataset_str(b, d->version, rc);
	rc = mtp_dataset_str(b, d->serial, rc);
	return b->oom ? -ENOMEM : rc;
}

int mtp_dataset_storage_info(struct mtp_buf *b,
			     const struct mtp_storage_stat *st)
{
	int rc = 0;

	mtp_buf_u16(b, 0x0003); /* StorageType: fixed RAM */
	mtp_buf_u16(b, 0x0002); /* FilesystemType: generic hierarchical */
	/* AccessCapability: read-write, or read-only without deletion. */
	mtp_buf_u16(b, st->readonly ? 0x0001 : 0x0000);
	mtp_buf_u64(b, st->capacity);
	mtp_buf_u64(b, st->free_bytes);
	mtp_buf_u32(b, 0xFFFFFFFF); /* FreeSpaceInObjects: not used */
	rc = mtp_dataset_str(b, st->description, rc);
	rc = mtp_dataset_str(b, "", rc); /* VolumeIdentifier */
	return b->oom ? -ENOMEM : rc;
}

int mtp_dataset_object_info(struct mtp_buf *b, const struct mtp_obj_stat *st)
{
	struct mtp_dataset_image im = {
	    .format = mtp_dataset_format_of(st->name, st->dir)};

	return mtp_dataset_object_info_image(b, st, &im);
}

int mtp_dataset_object_info_image(struct mtp_buf *b,
				  const struct mtp_obj_stat *st,
				  const struct mtp_dataset_image *im)
{
	char date[16];
	int rc = 0;

	mtp_buf_u32(b, st->storage);
	mtp_buf_u16(b, im->format);
	mtp_buf_u16(b, st->readonly ? 0x8002 : 0x0000); /* ProtectionStatus */
	mtp_buf_u32(b, st->size >= 0xFFFFFFFFull ? 0xFFFFFFFF
						 : (uint32_t)st->size);
	mtp_buf_u16(b, im->thumb_format);
	mtp_buf_u32(b, im->thumb_size);
	mtp_buf_u32(b, im->thumb_width);
	mtp_buf_u32(b, im->thumb_height);
	mtp_buf_u32(b, im->width);
	mtp_buf_u32(b, im->height);
	mtp_buf_u32(b, 0); /* ImageBitDepth */
	mtp_buf_u32(b, st->parent);
	mtp_buf_u16(b, st->dir ? MTP_ASSOC_GENERIC_FOLDER : 0);
	mtp_buf_u32(b, 0); /* AssociationDesc */
	mtp_buf_u32(b, 0); /* SequenceNumber */
	rc = mtp_dataset_str(b, st->name, rc);
	mtp_dataset_date(date, st->ctime);
	rc = mtp_dataset_str(b, date, rc);
	mtp_dataset_date(date, st->mtime);
	rc = mtp_dataset_str(b, date, rc);
	rc = mtp_dataset_str(b, "", rc); /* Keywords */
	return b->oom ? -ENOMEM : rc;
}

int mtp_dataset_parse_object_info(const uint8_t *p, size_t len,
				  struct mtp_objinfo *oi)
{
	char skip[MTP_STR_MAX + 1];
	struct mtp_rd r;

	mtp_rd_init(&r, p, len);
	memset(oi, 0, sizeof(*oi));
	oi->storage = mtp_rd_u32(&r);
	oi->format = mtp_rd_u16(&r);
	mtp_rd_u16(&r); /* ProtectionStatus */
	oi->size = mtp_rd_u32(&r);
	mtp_rd_u16(&r); /* ThumbFormat */
	for (int i = 0; i < 6; i++)
		mtp_rd_u32(&r);
	oi->parent = mtp_rd_u32(&r);
	oi->assoc_type = mtp_rd_u16(&r);
	mtp_rd_u32(&r); /* AssociationDesc */
	mtp_rd_u32(&r); /* SequenceNumber */
	if (mtp_rd_str(&r, oi->name, sizeof(oi->name)) < 0)
		return -EBADMSG;
	/* Dates and keywords must be well formed, but we keep none of
	 * them; some hosts end the dataset right after the name. */
	for (int i = 0; i < 3 && r.off < r.len; i++)
		if (mtp_rd_str(&r, skip, sizeof(skip)) < 0)
			return -EBADMSG;
	return r.err;
}

/* Size of a scalar of data type dt; 0 for strings, -1 when unknown. */
static int mtp_dataset_scalar_size(uint16_t dt)
{
	switch (dt) {
	case 0x0001: /* INT8 */
	case MTP_DT_UINT8:
		return 1;
	case 0x0003: /* INT16 */
	case MTP_DT_UINT16:
		return 2;
	case 0x0005: /* INT32 */
	case MTP_DT_UINT32:
		return 4;
	case 0x0007: /* INT64 */
	case MTP_DT_UINT64:
		return 8;
	case 0x0009: /* INT128 */
	case MTP_DT_UINT128:
		return 16;
	case MTP_DT_STR:
		return 0;
	}
	return -1;
}

/* Step over one value of data type dt (arrays are 0x4000 | type). */
static int mtp_dataset_skip(struct mtp_rd *r, uint16_t dt)
{
	char s[MTP_STR_MAX + 1];
	int size = mtp_dataset_scalar_size(dt & ~0x4000);
	uint64_t n = 1;

	if (size < 0 || (dt & 0x4000 && size == 0))
		return -EBADMSG;
	if (dt & 0x4000)
		n = mtp_rd_u32(r);
	if (size == 0)
		return mtp_rd_str(r, s, sizeof(s));
	if (r->err || n * size > r->len - r->off)
		return -EBADMSG;
	r->off += n * size;
	return 0;
}

int mtp_dataset_parse_send_props(const uint8_t *p, size_t len, char *name,
				 size_t size)
{
	struct mtp_rd r;
	uint32_t n;

	mtp_rd_init(&r, p, len);
	n = mtp_rd_u32(&r);
	name[0] = 0;
	for (uint32_t i = 0; i < n && !r.err; i++) {
		uint16_t code, dt;

		mtp_rd_u32(&r); /* ObjectHandle: 0 for an object to be */
		code = mtp_rd_u16(&r);
		dt = mtp_rd_u16(&r);
		if (r.err)
			break;
		if (code == MTP_PROP_OBJECT_FILE_NAME && dt == MTP_DT_STR) {
			if (mtp_rd_str(&r, name, size) < 0)
				return -EBADMSG;
		} else if (mtp_dataset_skip(&r, dt) < 0) {
			return -EBADMSG;
		}
	}
	if (r.err)
		return -EBADMSG;
	return name[0] ? 0 : -ENOENT;
}

uint16_t mtp_dataset_prop_type(uint16_t prop)
{
	switch (prop) {
	case MTP_PROP_STORAGE_ID:
	case MTP_PROP_PARENT_OBJECT: return MTP_DT_UINT32;
	case MTP_PROP_OBJECT_FORMAT:
	case MTP_PROP_PROTECTION_STATUS: return MTP_DT_UINT16;
	case MTP_PROP_OBJECT_SIZE: return MTP_DT_UINT64;
	case MTP_PROP_PERSISTENT_UID: return MTP_DT_UINT128;
	case MTP_PROP_OBJECT_FILE_NAME:
	case MTP_PROP_DATE_CREATED:
	case MTP_PROP_DATE_MODIFIED:
	case MTP_PROP_NAME:
	case MTP_PROP_DISPLAY_NAME: return MTP_DT_STR;
	}
	return 0;
}

/* A zero value of data type dt (the default in a description). */
static void mtp_dataset_zero(struct mtp_buf *b, uint16_t dt)
{
	static const uint8_t zero[16];

	switch (dt) {
	case MTP_DT_UINT16: mtp_buf_put(b, zero, 2); break;
	case MTP_DT_UINT32: mtp_buf_put(b, zero, 4); break;
	case MTP_DT_UINT64: mtp_buf_put(b, zero, 8); break;
	case MTP_DT_UINT128: mtp_buf_put(b, zero, 16); break;
	case MTP_DT_STR: mtp_buf_u8(b, 0); break;
	}
}

int mtp_dataset_prop_desc(struct mtp_buf *b, uint16_t prop)
{
	uint16_t dt = mtp_dataset_prop_type(prop);

	if (!dt)
		return -ENOENT;
	mtp_buf_u16(b, prop);
	mtp_buf_u16(b, dt);
	/* Only the file name can be set (a rename). */
	mtp_buf_u8(b, prop == MTP_PROP_OBJECT_FILE_NAME ? 1 : 0);
	mtp_dataset_zero(b, dt);
	mtp_buf_u32(b, 0); /* GroupCode */
	/* FormFlag: DateTime for dates, else none. */
	mtp_buf_u8(b, prop == MTP_PROP_DATE_CREATED ||
			      prop == MTP_PROP_DATE_MODIFIED
			  ? 0x03
			  : 0x00);
	return b->oom ? -ENOMEM : 0;
}

int mtp_dataset_prop_value(struct mtp_buf *b, const struct mtp_obj_stat *st,
			   uint16_t prop)
{
	char date[16];

	switch (prop) {
	case MTP_PROP_STORAGE_ID: mtp_buf_u32(b, st->storage); break;
	case MTP_PROP_PARENT_OBJECT: mtp_buf_u32(b, st->parent); break;
	case MTP_PROP_OBJECT_FORMAT:
		mtp_buf_u16(b, mtp_dataset_format_of(st->name, st->dir));
		break;
	case MTP_PROP_PROTECTION_STATUS:
		mtp_buf_u16(b, st->readonly ? 0x8002 : 0x0000);
		break;
	case MTP_PROP_OBJECT_SIZE: mtp_buf_u64(b, st->size); break;
	case MTP_PROP_PERSISTENT_UID:
		/* Handles are stable for the session; that is what we have. */
		mtp_buf_u64(b, (uint64_t)st->storage << 32 | st->handle);
		mtp_buf_u64(b, 0);
		break;
	case MTP_PROP_OBJECT_FILE_NAME:
	case MTP_PROP_NAME:
	case MTP_PROP_DISPLAY_NAME: return mtp_buf_str(b, st->name);
	case MTP_PROP_DATE_CREATED:
	case MTP_PROP_DATE_MODIFIED:
		mtp_dataset_date(date, prop == MTP_PROP_DATE_CREATED
					   ? st->ctime
					   : st->mtime);
		return mtp_buf_str(b, date);
	default: return -ENOENT;
	}
	return b->oom ? -ENOMEM : 0;
}

int mtp_dataset_prop_entries(struct mtp_buf *b, const struct mtp_obj_stat *st,
			     uint32_t prop, uint32_t *count)
{
	uint32_t n = 0;
	int rc;

	for (size_t i = 0; i < mtp_dataset_n_props; i++) {
		uint16_t p = mtp_dataset_props[i];

		if (prop != 0xFFFFFFFF && prop != p)
			continue;
		mtp_buf_u32(b, st->handle);
		mtp_buf_u16(b, p);
		mtp_buf_u16(b, mtp_dataset_prop_type(p));
		rc = mtp_dataset_prop_value(b, st, p);
		if (rc < 0)
			return rc;
		n++;
	}
	if (prop != 0xFFFFFFFF && n == 0)
		return -ENOENT;
	*count += n;
	return b->oom ? -ENOMEM : 0;
}

int mtp_dataset_friendly_name_desc(struct mtp_buf *b, const char *name)
{
	int rc = 0;

	mtp_buf_u16(b, MTP_DPROP_FRIENDLY_NAME);
	mtp_buf_u16(b, MTP_DT_STR);
	mtp_buf_u8(b, 0); /* get only */
	rc = mtp_dataset_str(b, name, rc);
	rc = mtp_dataset_str(b, name, rc);
	mtp_buf_u8(b, 0); /* FormFlag: none */
	return b->oom ? -ENOMEM : rc;
}
