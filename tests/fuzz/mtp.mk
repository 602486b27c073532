# libFuzzer target for the MTP plugin (codecs and the whole plugin behind
# a faked runtime):
#   make build/fuzz/fuzz_mtp
#   build/fuzz/fuzz_mtp -max_total_time=60 tests/fuzz/corpus_mtp
# Without clang: a gcc build (ASan+UBSan) that replays files/directories.
FUZZERS += fuzz_mtp
FUZZ_MTP_SRCS := tests/fuzz/fuzz_mtp.c tests/fuzz/fuzz_runtime.c \
	functions/mtp/mtp.c functions/mtp/mtp_container.c \
	functions/mtp/mtp_dataset.c functions/mtp/mtp_ops.c functions/mtp/mtp_edit.c functions/mtp/mtp_proplist.c \
	functions/mtp/mtp_store.c functions/mtp/mtp_fs.c functions/mtp/mtp_events.c \
	functions/mtp/mtp_prep.c \
	gadgetd/loop.c gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_mtp: $(FUZZ_MTP_SRCS) $(wildcard functions/mtp/*.h) tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -Itests/fuzz -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_MTP_SRCS)
else
$(B)/fuzz/fuzz_mtp: $(FUZZ_MTP_SRCS) $(wildcard functions/mtp/*.h) tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/fuzz -o $@ $(FUZZ_MTP_SRCS) tests/fuzz/standalone.c
endif
