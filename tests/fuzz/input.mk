# libFuzzer target for a forwarded input device's events and the
# forward_match rules (hid_input.c, inputmatch.c):
#   build/fuzz/fuzz_input -max_total_time=60 tests/fuzz/corpus_input
FUZZERS += fuzz_input
fuzz_input_SRCS := tests/fuzz/fuzz_input.c $(hid_REPORTS) gadgetd/profile/inputmatch.c
fuzz_input_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
