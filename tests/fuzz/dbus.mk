# libFuzzer target for gadgetd's D-Bus methods (gadgetd/front/dbus*.c), the
# harness being the bus daemon and polkit, the gadget faked:
#   build/fuzz/fuzz_dbus -max_total_time=60 tests/fuzz/corpus_dbus
FUZZERS += fuzz_dbus
fuzz_dbus_SRCS := tests/fuzz/fuzz_dbus.c tests/fuzz/fuzz_runtime.c tests/fuzz/fake_gadget_idle.c \
	gadgetd/front/dbus.c gadgetd/front/dbus_auth.c gadgetd/front/dbus_props.c gadgetd/front/dispatch.c gadgetd/front/access.c gadgetd/front/request.c gadgetd/storage/storage.c \
	gadgetd/model/event.c gadgetd/profile/ootmeta.c common/metatext.c $(PLUGIN_LIST_SRCS) common/loop.c common/log.c
fuzz_dbus_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
