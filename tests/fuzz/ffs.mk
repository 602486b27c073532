# libFuzzer target for the ep0 event reader and the worker's command parser:
#   make build/fuzz/fuzz_ffs_ep0
#   build/fuzz/fuzz_ffs_ep0 -max_total_time=60 -max_len=512 tests/fuzz/corpus/ffs_ep0
FUZZERS += fuzz_ffs_ep0
fuzz_ffs_ep0_SRCS := tests/fuzz/fuzz_ffs_ep0.c functions/runtime/ffs.c common/wmsg.c common/strv.c common/log.c
