/*
 * mtp_dataset: the datasets of PTP/MTP data phases: DeviceInfo,
 * StorageInfo, ObjectInfo (both ways), object property descriptions and
 * values, the DeviceFriendlyName property description.
 */
#ifndef GADGETD_MTP_DATASET_H
#define GADGETD_MTP_DATASET_H

#include "mtp_container.h"
#include "mtp_store.h"

struct mtp_devinfo {
	const char *manufacturer;
	const char *model;
	const char *version;
	const char *serial;
	/* The vendor extension string; NULL for "microsoft.com: 1.0;". */
	const char *extensions;
	/* PTP: VendorExtensionID and version 0, no extension string. */
	bool ptp;
	const uint16_t *ops;
	size_t n_ops;
	const uint16_t *events;
	size_t n_events;
	const uint16_t *dprops;
	size_t n_dprops;
	const uint16_t *formats;
	size_t n_formats;
};

/* What a host declares in SendObjectInfo. */
struct mtp_objinfo {
	uint32_t storage;
	uint16_t format;
	uint32_t size; /* 0xFFFFFFFF: 4 GiB or more */
	uint32_t parent;
	uint16_t assoc_type;
	char name[MTP_STR_MAX + 1];
};

/* Formats we advertise and assign by file name extension. */
extern const uint16_t mtp_dataset_formats[];
extern const size_t mtp_dataset_n_formats;
/* Object properties supported for every format. */
extern const uint16_t mtp_dataset_props[];
extern const size_t mtp_dataset_n_props;

/* All builders return 0 or -EINVAL for a string PTP cannot carry. */
int mtp_dataset_device_info(struct mtp_buf *b, const struct mtp_devinfo *d);
int mtp_dataset_storage_info(struct mtp_buf *b,
			     const struct mtp_storage_stat *st);
int mtp_dataset_object_info(struct mtp_buf *b, const struct mtp_obj_stat *st);

/* ObjectInfo's image fields, as PTP fills them (0: unknown, none). */
struct mtp_dataset_image {
	uint16_t format;       /* ObjectFormat */
	uint16_t thumb_format; /* 0: no thumbnail */
	uint32_t thumb_size;
	uint32_t thumb_width, thumb_height;
	uint32_t width, height;
};

/* ObjectInfo with the format and image fields of im. */
int mtp_dataset_object_info_image(struct mtp_buf *b,
				  const struct mtp_obj_stat *st,
				  const struct mtp_dataset_image *im);
/* -EBADMSG for a truncated or malformed dataset. */
int mtp_dataset_parse_object_info(const uint8_t *p, size_t len,
				  struct mtp_objinfo *oi);

/*
 * The ObjectPropList of a SendObjectPropList: every element must be well
 * formed (any data type, arrays included); name gets ObjectFileName.
 * -EBADMSG for a malformed list, -ENOENT when it names no file.
 */
int mtp_dataset_parse_send_props(const uint8_t *p, size_t len, char *name,
				 size_t size);

uint16_t mtp_dataset_format_of(const char *name, bool dir);
bool mtp_dataset_format_known(uint16_t format);
/* "YYYYMMDDThhmmss" in UTC; out has room for 16 bytes. */
void mtp_dataset_date(char *out, time_t t);

/* Data type of an object property; 0 when unsupported. */
uint16_t mtp_dataset_prop_type(uint16_t prop);
/* -ENOENT for an unsupported property. */
int mtp_dataset_prop_desc(struct mtp_buf *b, uint16_t prop);
int mtp_dataset_prop_value(struct mtp_buf *b, const struct mtp_obj_stat *st,
			   uint16_t prop);
/*
 * The ObjectPropList entries of st ({u32 handle, u16 property, u16 data
 * type, value} each) for property prop, 0xFFFFFFFF meaning every one we
 * support; the number written is added to *count. The list's leading
 * count is the caller's (mtp_proplist.c, which lists many objects).
 * -ENOENT for a property we do not have (nothing added to *count).
 */
int mtp_dataset_prop_entries(struct mtp_buf *b, const struct mtp_obj_stat *st,
			     uint32_t prop, uint32_t *count);

/* DevicePropDesc of DeviceFriendlyName with name as both values. */
int mtp_dataset_friendly_name_desc(struct mtp_buf *b, const char *name);

#endif
