# libFuzzer targets for the adb plugin's parsers:
#   make build/fuzz/fuzz_adb_packet build/fuzz/fuzz_adb_sync
#   build/fuzz/fuzz_adb_packet -max_total_time=60 tests/fuzz/corpus_adb_packet
#   build/fuzz/fuzz_adb_sync -max_total_time=60 tests/fuzz/corpus_adb_sync
FUZZERS += fuzz_adb_packet fuzz_adb_sync
fuzz_adb_packet_SRCS := tests/fuzz/fuzz_adb_packet.c functions/adb/adb_packet.c
fuzz_adb_sync_SRCS := tests/fuzz/fuzz_adb_sync.c functions/adb/adb_syncmsg.c

# The adb plugin before authorization, through its ops table (auth on):
#   build/fuzz/fuzz_adb_auth -max_total_time=60 tests/fuzz/corpus_adb_auth
FUZZERS += fuzz_adb_auth
fuzz_adb_auth_SRCS := tests/fuzz/fuzz_adb_auth.c tests/fuzz/fuzz_runtime.c tests/unit/fake_plugin_options.c \
	tests/unit/adb_testkey.c \
	$(adb_META) $(adb_CORE) tests/unit/fake_spawn.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c common/fsutil.c
fuzz_adb_auth_LIBS = -lcrypto -lutil -lcmocka $(ADB_COMPRESS_LIBS)

# The adb_keys loader and the key parsers:
#   build/fuzz/fuzz_adb_keys -max_total_time=60 tests/fuzz/corpus_adb_keys
FUZZERS += fuzz_adb_keys
fuzz_adb_keys_SRCS := tests/fuzz/fuzz_adb_keys.c tests/fuzz/fuzz_runtime.c \
	functions/adb/adb_auth.c common/log.c
fuzz_adb_keys_LIBS := -lcrypto

# Streams, shell v2 framing, service names and forward specs:
#   build/fuzz/fuzz_adb_stream -max_total_time=60 tests/fuzz/corpus_adb_stream
FUZZERS += fuzz_adb_stream
fuzz_adb_stream_SRCS := tests/fuzz/fuzz_adb_stream.c \
	functions/adb/adb_stream.c functions/adb/adb_shell.c functions/adb/adb_shellmsg.c \
	functions/adb/adb_forward.c tests/unit/fake_spawn.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c
fuzz_adb_stream_LIBS := -lutil

# The same harness with real shell streams (slow: a fork per input):
#   build/fuzz/fuzz_adb_shell -max_total_time=60 tests/fuzz/corpus_adb_shell
FUZZERS += fuzz_adb_shell
fuzz_adb_shell_SRCS = $(fuzz_adb_stream_SRCS)
fuzz_adb_shell_LIBS = $(fuzz_adb_stream_LIBS)
fuzz_adb_shell_CFLAGS := -DFUZZ_ADB_SHELL

# The sendrecv_v2 decoders (brotli, LZ4 frame, zstd):
#   build/fuzz/fuzz_adb_codec -max_total_time=60 tests/fuzz/corpus_adb_codec
FUZZERS += fuzz_adb_codec
fuzz_adb_codec_SRCS := tests/fuzz/fuzz_adb_codec.c functions/adb/adb_compress.c
fuzz_adb_codec_LIBS = $(ADB_COMPRESS_LIBS)
