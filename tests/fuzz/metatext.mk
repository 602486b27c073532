# libFuzzer target for an out-of-tree plugin's declaration as text:
#   make build/fuzz/fuzz_metatext
#   build/fuzz/fuzz_metatext -max_total_time=60 tests/fuzz/corpus_metatext
FUZZERS += fuzz_metatext
fuzz_metatext_SRCS := tests/fuzz/fuzz_metatext.c common/metatext.c
fuzz_metatext_LIBS :=
