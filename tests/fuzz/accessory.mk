# libFuzzer target for the AOA control requests and the string codec:
#   make build/fuzz/fuzz_accessory
#   build/fuzz/fuzz_accessory -max_total_time=60 tests/fuzz/corpus_accessory
# Without clang: a gcc build (ASan+UBSan) that replays files/directories.
FUZZERS += fuzz_accessory
FUZZ_ACCESSORY_SRCS := tests/fuzz/fuzz_accessory.c \
	functions/accessory/accessory_ctrl.c functions/accessory/accessory_info.c \
	gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_accessory: $(FUZZ_ACCESSORY_SRCS) $(wildcard functions/accessory/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ACCESSORY_SRCS)
else
$(B)/fuzz/fuzz_accessory: $(FUZZ_ACCESSORY_SRCS) $(wildcard functions/accessory/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_ACCESSORY_SRCS) tests/fuzz/standalone.c
endif
