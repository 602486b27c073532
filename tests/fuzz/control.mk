# libFuzzer target for the control socket's request handling:
#   make build/fuzz/fuzz_control
#   build/fuzz/fuzz_control -max_total_time=60 tests/fuzz/corpus_control
# Without clang: a gcc build (ASan+UBSan) that replays files/directories.
FUZZERS += fuzz_control
FUZZ_CONTROL_SRCS := tests/fuzz/fuzz_control.c tests/fuzz/fuzz_runtime.c \
	gadgetd/control.c gadgetd/access.c gadgetd/access_peer.c \
	gadgetd/protocol.c gadgetd/loop.c gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_control: $(FUZZ_CONTROL_SRCS) gadgetd/control.h gadgetd/protocol.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -Itests/fuzz -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_CONTROL_SRCS)
else
$(B)/fuzz/fuzz_control: $(FUZZ_CONTROL_SRCS) gadgetd/control.h gadgetd/protocol.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/fuzz -o $@ $(FUZZ_CONTROL_SRCS) tests/fuzz/standalone.c
endif
