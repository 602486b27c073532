# libFuzzer targets for gadgetd's own files, gadgetd.conf and the state file:
#   make build/fuzz/fuzz_config build/fuzz/fuzz_state
#   build/fuzz/fuzz_config -max_total_time=60 tests/fuzz/corpus_config
#   build/fuzz/fuzz_state -max_total_time=60 tests/fuzz/corpus_state
# Without clang: gcc builds (ASan+UBSan) that replay files/directories.
FUZZERS += fuzz_config fuzz_state
FUZZ_CONFIG_SRCS := tests/fuzz/fuzz_config.c gadgetd/config.c gadgetd/cfgtext.c
FUZZ_STATE_SRCS := tests/fuzz/fuzz_state.c tests/fuzz/fuzz_runtime.c gadgetd/state.c gadgetd/config.c gadgetd/cfgtext.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_config: $(FUZZ_CONFIG_SRCS) gadgetd/config.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_CONFIG_SRCS) -lconfig
$(B)/fuzz/fuzz_state: $(FUZZ_STATE_SRCS) gadgetd/state.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -Itests/fuzz -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_STATE_SRCS) -lconfig
else
$(B)/fuzz/fuzz_config: $(FUZZ_CONFIG_SRCS) gadgetd/config.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_CONFIG_SRCS) tests/fuzz/standalone.c -lconfig
$(B)/fuzz/fuzz_state: $(FUZZ_STATE_SRCS) gadgetd/state.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/fuzz -o $@ $(FUZZ_STATE_SRCS) tests/fuzz/standalone.c -lconfig
endif
