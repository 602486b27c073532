# libFuzzer targets for gadgetd's own files, gadgetd.conf and the state file:
#   make build/fuzz/fuzz_config build/fuzz/fuzz_state
#   build/fuzz/fuzz_config -max_total_time=60 tests/fuzz/corpus_config
#   build/fuzz/fuzz_state -max_total_time=60 tests/fuzz/corpus_state
FUZZERS += fuzz_config fuzz_state
fuzz_config_SRCS := tests/fuzz/fuzz_config.c gadgetd/profile/config.c gadgetd/profile/cfgtext.c
fuzz_state_SRCS := tests/fuzz/fuzz_state.c tests/fuzz/fuzz_runtime.c gadgetd/gadget/state.c gadgetd/profile/config.c gadgetd/profile/cfgtext.c common/fsutil.c
fuzz_config_LIBS := -lconfig
fuzz_state_LIBS := -lconfig
