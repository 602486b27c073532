# libFuzzer target for the ep0 event reader and the worker's command parser:
#   make build/fuzz/fuzz_ffs_ep0
#   build/fuzz/fuzz_ffs_ep0 -max_total_time=60 -max_len=512 tests/fuzz/corpus/ffs_ep0
# Without clang: a gcc build (ASan+UBSan) that replays the files it is given.
FUZZERS += fuzz_ffs_ep0
FUZZ_FFS_SRCS := tests/fuzz/fuzz_ffs_ep0.c functions/ffs.c functions/wmsg.c gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_ffs_ep0: $(FUZZ_FFS_SRCS) functions/ffs.h functions/wmsg.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_FFS_SRCS)
else
$(B)/fuzz/fuzz_ffs_ep0: $(FUZZ_FFS_SRCS) functions/ffs.h functions/wmsg.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_FFS_SRCS) tests/fuzz/standalone.c
endif
