# libFuzzer target for the HID plugin's command text (hid_cmd_parse, with
# the layouts compiled by libxkbcommon):
#   build/fuzz/fuzz_hid -max_total_time=60 tests/fuzz/corpus_hid
FUZZERS += fuzz_hid
fuzz_hid_SRCS := tests/fuzz/fuzz_hid.c $(hid_REPORTS)
fuzz_hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
