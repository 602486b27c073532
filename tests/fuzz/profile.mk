# libFuzzer target for the profile parser and set requests:
#   make build/fuzz/fuzz_profile
#   build/fuzz/fuzz_profile -max_total_time=60 -max_len=4096 tests/fuzz/corpus/profile
# Without clang: a gcc build (ASan+UBSan) that replays files/directories.
FUZZERS += fuzz_profile
FUZZ_PROFILE_SRCS := tests/fuzz/fuzz_profile.c $(PROFILE_SRCS)

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_profile: $(FUZZ_PROFILE_SRCS) gadgetd/profile.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_PROFILE_SRCS) $(PROFILE_LIBS)
else
$(B)/fuzz/fuzz_profile: $(FUZZ_PROFILE_SRCS) gadgetd/profile.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_PROFILE_SRCS) tests/fuzz/standalone.c $(PROFILE_LIBS)
endif
