# libFuzzer target for the spawner's request parser (functions/runtime/spawner.c):
#   make build/fuzz/fuzz_spawner
#   build/fuzz/fuzz_spawner -max_total_time=60 tests/fuzz/corpus_spawner
FUZZERS += fuzz_spawner
fuzz_spawner_SRCS := tests/fuzz/fuzz_spawner.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c
fuzz_spawner_LIBS := -lutil
