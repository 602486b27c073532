/*
 * mtp_ptp: what the PTP flavour (struct mtp_flavour, mtp.h) changes in
 * the operations, as tables: the operations PTP serves (ISO 15740's,
 * with GetThumb; none of MTP's), its events, the formats it names
 * (images; everything else is Undefined), and ObjectInfo and GetThumb
 * with the EXIF thumbnail of a JPEG (mtp_thumb.h).
 */
#ifndef GADGETD_MTP_PTP_H
#define GADGETD_MTP_PTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mtp_buf.h"
#include "mtp_store.h"

/* Whether operation code is served: in PTP, one of PTP's; in MTP, any
 * but GetThumb (MTP's ObjectInfo names no thumbnail). */
bool mtp_ptp_op_ok(bool ptp, uint16_t code);

/* Formats and events for PTP's DeviceInfo. */
extern const uint16_t mtp_ptp_formats[];
extern const size_t mtp_ptp_n_formats;
extern const uint16_t mtp_ptp_events[];
extern const size_t mtp_ptp_n_events;

/* PTP's format code of an object, by its name's extension. */
uint16_t mtp_ptp_format_of(const char *name, bool dir);

/* PTP's ObjectInfo of st into b, with the thumbnail's and image's sizes
 * of a JPEG that has them: 0 or -errno. */
int mtp_ptp_object_info(struct mtp_store *s, struct mtp_buf *b,
			const struct mtp_obj_stat *st);

/* GetThumb: the response code; with MTP_RC_OK, b holds the thumbnail
 * (MTP_RC_NO_THUMBNAIL_PRESENT for anything without one). */
uint16_t mtp_ptp_get_thumb(struct mtp_store *s, struct mtp_buf *b,
			   uint32_t handle);

#endif
