# libFuzzer target for the spawner's request parser (functions/spawner.c):
#   make build/fuzz/fuzz_spawner
#   build/fuzz/fuzz_spawner -max_total_time=60 tests/fuzz/corpus_spawner
# Without clang: a gcc build (ASan+UBSan) that replays files/directories.
FUZZERS += fuzz_spawner
FUZZ_SPAWNER_SRCS := tests/fuzz/fuzz_spawner.c functions/spawner.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_spawner: $(FUZZ_SPAWNER_SRCS) functions/spawner.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_SPAWNER_SRCS) -lutil
else
$(B)/fuzz/fuzz_spawner: $(FUZZ_SPAWNER_SRCS) functions/spawner.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_SPAWNER_SRCS) tests/fuzz/standalone.c -lutil
endif
