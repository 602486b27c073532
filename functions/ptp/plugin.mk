# ptp: the MTP responder's camera flavour (functions/ptp/ptp.c), built
# from the mtp plugin's objects (functions/mtp/plugin.mk, read first).
PLUGINS += ptp
ptp_META := functions/ptp/ptp_meta.c
ptp_SRCS := $(ptp_META) functions/ptp/ptp.c $(mtp_CORE) common/fsutil.c
ptp_LIBS = $(mtp_LIBS)
