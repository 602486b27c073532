# libFuzzer target for the AOA control requests and the string codec:
#   make build/fuzz/fuzz_accessory
#   build/fuzz/fuzz_accessory -max_total_time=60 tests/fuzz/corpus_accessory
FUZZERS += fuzz_accessory
fuzz_accessory_SRCS := tests/fuzz/fuzz_accessory.c \
	functions/accessory/accessory_ctrl.c functions/accessory/accessory_info.c \
	common/log.c common/fsutil.c
