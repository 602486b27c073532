# libFuzzer target for the EXIF thumbnail extraction of the ptp plugin
# (functions/ptp/ptp_thumb.c):
#   make build/fuzz/fuzz_ptp_thumb
#   build/fuzz/fuzz_ptp_thumb -max_total_time=60 tests/fuzz/corpus_ptp_thumb
FUZZERS += fuzz_ptp_thumb
fuzz_ptp_thumb_SRCS := tests/fuzz/fuzz_ptp_thumb.c functions/ptp/ptp_thumb.c functions/mtp/mtp_buf.c
fuzz_ptp_thumb_LIBS = $(PTP_EXIF_LIBS)
