# libFuzzer target for both wire codecs' parsers (common):
#   build/fuzz/fuzz_codec -max_total_time=60 tests/fuzz/corpus_codec
FUZZERS += fuzz_codec
fuzz_codec_SRCS := tests/fuzz/fuzz_codec.c common/ctl.c \
	common/wmsg.c common/strv.c
