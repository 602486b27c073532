# libFuzzer target for the MTP plugin (codecs and the whole plugin behind
# a faked runtime):
#   make build/fuzz/fuzz_mtp
#   build/fuzz/fuzz_mtp -max_total_time=60 tests/fuzz/corpus_mtp
FUZZERS += fuzz_mtp
fuzz_mtp_SRCS := tests/fuzz/fuzz_mtp.c tests/fuzz/fuzz_runtime.c \
	$(mtp_META) functions/mtp/mtp_plugin.c $(mtp_CORE) \
	common/loop.c common/log.c common/fsutil.c
fuzz_mtp_LIBS = $(MTP_EXIF_LIBS)

# The EXIF thumbnail extraction of the ptp plugin (functions/mtp/mtp_thumb.c):
#   build/fuzz/fuzz_ptp_thumb -max_total_time=60 tests/fuzz/corpus_ptp_thumb
FUZZERS += fuzz_ptp_thumb
fuzz_ptp_thumb_SRCS := tests/fuzz/fuzz_ptp_thumb.c functions/mtp/mtp_thumb.c functions/mtp/mtp_buf.c
fuzz_ptp_thumb_LIBS = $(MTP_EXIF_LIBS)
