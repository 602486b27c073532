# libFuzzer target for the profile parser and set requests:
#   make build/fuzz/fuzz_profile
#   build/fuzz/fuzz_profile -max_total_time=60 -max_len=4096 tests/fuzz/corpus/profile
FUZZERS += fuzz_profile
fuzz_profile_SRCS := tests/fuzz/fuzz_profile.c $(PROFILE_SRCS)
fuzz_profile_LIBS := $(PROFILE_LIBS)
