# ptp: the MTP responder's camera flavour (functions/ptp/ptp.c), built
# from the mtp plugin's objects (functions/mtp/plugin.mk, read first) and
# its own: PTP's tables (ptp_tables.c) and EXIF thumbnails (ptp_thumb.c).
PLUGINS += ptp
ptp_META := functions/ptp/ptp_meta.c
# The responder without an ops table (ptp.c has it), as mtp_CORE.
ptp_CORE := functions/ptp/ptp_tables.c functions/ptp/ptp_thumb.c $(mtp_CORE)
ptp_SRCS := $(ptp_META) functions/ptp/ptp.c $(ptp_CORE) common/fsutil.c
# libexif: the EXIF thumbnails of GetThumb and ObjectInfo (ptp_thumb.c).
PTP_EXIF_LIBS = $(shell $(PKG_CONFIG) --libs libexif)
ptp_LIBS = $(PTP_EXIF_LIBS)
