# libFuzzer target for the MTP plugin (codecs and the whole plugin behind
# a faked runtime):
#   make build/fuzz/fuzz_mtp
#   build/fuzz/fuzz_mtp -max_total_time=60 tests/fuzz/corpus_mtp
FUZZERS += fuzz_mtp
fuzz_mtp_SRCS := tests/fuzz/fuzz_mtp.c tests/fuzz/fuzz_runtime.c tests/unit/fake_plugin_options.c \
	$(mtp_META) functions/mtp/mtp_plugin.c $(mtp_CORE) \
	common/loop.c common/log.c common/fsutil.c
