# libFuzzer target for the control socket's request handling:
#   make build/fuzz/fuzz_control
#   build/fuzz/fuzz_control -max_total_time=60 tests/fuzz/corpus_control
FUZZERS += fuzz_control
fuzz_control_SRCS := tests/fuzz/fuzz_control.c tests/fuzz/fuzz_runtime.c tests/fuzz/fake_gadget_idle.c \
	gadgetd/front/control.c gadgetd/front/dispatch.c gadgetd/front/access.c gadgetd/front/request.c gadgetd/storage/storage.c gadgetd/front/access_peer.c gadgetd/model/event.c gadgetd/profile/ootmeta.c common/metatext.c $(PLUGIN_LIST_SRCS) \
	common/ctl.c common/strv.c common/loop.c common/log.c
