# libFuzzer target for `gadgetctl storage` requests as gadgetd reads them
# (storage_parse, storage_open_image's media_dir confinement, what
# storage_status shows a member), on a scratch tree in /dev/shm:
#   build/fuzz/fuzz_storage -max_total_time=60 tests/fuzz/corpus_storage
FUZZERS += fuzz_storage
fuzz_storage_SRCS := tests/fuzz/fuzz_storage.c tests/fuzz/fuzz_runtime.c \
	gadgetd/storage/storage.c
