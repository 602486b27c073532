/*
 * ptp_tables: what the PTP flavour (struct mtp_flavour, mtp.h) changes in
 * the MTP responder's operations, as the tables of struct mtp_ops_tables
 * (mtp_ops.h): the operations PTP serves (ISO 15740's, with GetThumb;
 * none of MTP's), its events, the formats it names (images; everything
 * else is Undefined), and ObjectInfo and GetThumb with the EXIF
 * thumbnail of a JPEG (ptp_thumb.h).
 */
#ifndef GADGETD_PTP_TABLES_H
#define GADGETD_PTP_TABLES_H

#include "mtp_ops.h"

/* PTP's tables, for ptp.c's flavour. */
extern const struct mtp_ops_tables ptp_tables;

#endif
