# libFuzzer targets for the adb plugin's parsers:
#   make build/fuzz/fuzz_adb_packet build/fuzz/fuzz_adb_sync
#   build/fuzz/fuzz_adb_packet -max_total_time=60 tests/fuzz/corpus_adb_packet
#   build/fuzz/fuzz_adb_sync -max_total_time=60 tests/fuzz/corpus_adb_sync
# Without clang: gcc builds (ASan+UBSan) that replay files/directories.
FUZZERS += fuzz_adb_packet fuzz_adb_sync
FUZZ_ADB_PACKET_SRCS := tests/fuzz/fuzz_adb_packet.c functions/adb/adb_packet.c
FUZZ_ADB_SYNC_SRCS := tests/fuzz/fuzz_adb_sync.c functions/adb/adb_syncmsg.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_packet: $(FUZZ_ADB_PACKET_SRCS) functions/adb/adb_packet.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_PACKET_SRCS)
$(B)/fuzz/fuzz_adb_sync: $(FUZZ_ADB_SYNC_SRCS) functions/adb/adb_syncmsg.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_SYNC_SRCS)
else
$(B)/fuzz/fuzz_adb_packet: $(FUZZ_ADB_PACKET_SRCS) functions/adb/adb_packet.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_ADB_PACKET_SRCS) tests/fuzz/standalone.c
$(B)/fuzz/fuzz_adb_sync: $(FUZZ_ADB_SYNC_SRCS) functions/adb/adb_syncmsg.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_ADB_SYNC_SRCS) tests/fuzz/standalone.c
endif

# The adb plugin before authorization, through its ops table (auth on):
#   build/fuzz/fuzz_adb_auth -max_total_time=60 tests/fuzz/corpus_adb_auth
FUZZERS += fuzz_adb_auth
FUZZ_ADB_AUTH_SRCS := tests/fuzz/fuzz_adb_auth.c tests/fuzz/fuzz_runtime.c \
	tests/unit/adb_testkey.c \
	functions/adb/adb.c functions/adb/adb_packet.c functions/adb/adb_auth.c \
	functions/adb/adb_stream.c functions/adb/adb_shell.c \
	functions/adb/adb_syncmsg.c functions/adb/adb_sync.c \
	functions/adb/adb_forward.c functions/adb/adb_codec.c \
	tests/unit/fake_spawn.c functions/spawner.c \
	gadgetd/loop.c gadgetd/log.c
FUZZ_ADB_AUTH_LIBS := -lcrypto -lutil -lcmocka $(ADB_CODEC_LIBS)

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_auth: $(FUZZ_ADB_AUTH_SRCS) $(wildcard functions/adb/*.h) tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -Itests/fuzz -Itests/unit -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_AUTH_SRCS) $(FUZZ_ADB_AUTH_LIBS)
else
$(B)/fuzz/fuzz_adb_auth: $(FUZZ_ADB_AUTH_SRCS) $(wildcard functions/adb/*.h) tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/fuzz -Itests/unit -o $@ $(FUZZ_ADB_AUTH_SRCS) tests/fuzz/standalone.c $(FUZZ_ADB_AUTH_LIBS)
endif

# The adb_keys loader and the key parsers:
#   build/fuzz/fuzz_adb_keys -max_total_time=60 tests/fuzz/corpus_adb_keys
FUZZERS += fuzz_adb_keys
FUZZ_ADB_KEYS_SRCS := tests/fuzz/fuzz_adb_keys.c tests/fuzz/fuzz_runtime.c \
	functions/adb/adb_auth.c gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_keys: $(FUZZ_ADB_KEYS_SRCS) functions/adb/adb_auth.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -Itests/fuzz -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_KEYS_SRCS) -lcrypto
else
$(B)/fuzz/fuzz_adb_keys: $(FUZZ_ADB_KEYS_SRCS) functions/adb/adb_auth.h tests/fuzz/fuzz_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/fuzz -o $@ $(FUZZ_ADB_KEYS_SRCS) tests/fuzz/standalone.c -lcrypto
endif

# Streams, shell v2 framing, service names and forward specs:
#   build/fuzz/fuzz_adb_stream -max_total_time=60 tests/fuzz/corpus_adb_stream
FUZZERS += fuzz_adb_stream
FUZZ_ADB_STREAM_SRCS := tests/fuzz/fuzz_adb_stream.c \
	functions/adb/adb_stream.c functions/adb/adb_shell.c \
	functions/adb/adb_forward.c tests/unit/fake_spawn.c functions/spawner.c \
	gadgetd/loop.c gadgetd/log.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_stream: $(FUZZ_ADB_STREAM_SRCS) $(wildcard functions/adb/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_STREAM_SRCS) -lutil
else
$(B)/fuzz/fuzz_adb_stream: $(FUZZ_ADB_STREAM_SRCS) $(wildcard functions/adb/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_ADB_STREAM_SRCS) tests/fuzz/standalone.c -lutil
endif

# The same harness with real shell streams (slow: a fork per input):
#   build/fuzz/fuzz_adb_shell -max_total_time=60 tests/fuzz/corpus_adb_shell
FUZZERS += fuzz_adb_shell

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_shell: $(FUZZ_ADB_STREAM_SRCS) $(wildcard functions/adb/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -DFUZZ_ADB_SHELL -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_STREAM_SRCS) -lutil
else
$(B)/fuzz/fuzz_adb_shell: $(FUZZ_ADB_STREAM_SRCS) $(wildcard functions/adb/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -DFUZZ_ADB_SHELL -o $@ $(FUZZ_ADB_STREAM_SRCS) tests/fuzz/standalone.c -lutil
endif

# The sendrecv_v2 decoders (brotli, LZ4 frame, zstd):
#   build/fuzz/fuzz_adb_codec -max_total_time=60 tests/fuzz/corpus_adb_codec
FUZZERS += fuzz_adb_codec
FUZZ_ADB_CODEC_SRCS := tests/fuzz/fuzz_adb_codec.c functions/adb/adb_codec.c

ifneq ($(shell command -v clang 2>/dev/null),)
$(B)/fuzz/fuzz_adb_codec: $(FUZZ_ADB_CODEC_SRCS) functions/adb/adb_codec.h
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $(FUZZ_ADB_CODEC_SRCS) $(ADB_CODEC_LIBS)
else
$(B)/fuzz/fuzz_adb_codec: $(FUZZ_ADB_CODEC_SRCS) functions/adb/adb_codec.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_ADB_CODEC_SRCS) tests/fuzz/standalone.c $(ADB_CODEC_LIBS)
endif
