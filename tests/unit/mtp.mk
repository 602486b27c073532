UNIT_TESTS += test_mtp_container test_mtp_store test_mtp_plugin test_mtp_events
test_mtp_container_SRCS := tests/unit/test_mtp_container.c \
	functions/mtp/mtp_container.c functions/mtp/mtp_dataset.c
test_mtp_container_LIBS :=
test_mtp_store_SRCS := tests/unit/test_mtp_store.c functions/mtp/mtp_store.c
test_mtp_store_LIBS :=
test_mtp_plugin_SRCS := tests/unit/test_mtp_plugin.c \
	tests/unit/fake_plugin_mtp.c tests/unit/fake_plugin_bufs.c functions/mtp/mtp.c \
	functions/mtp/mtp_container.c functions/mtp/mtp_dataset.c \
	functions/mtp/mtp_ops.c functions/mtp/mtp_store.c \
	functions/mtp/mtp_events.c gadgetd/loop.c gadgetd/log.c
test_mtp_plugin_LIBS :=
test_mtp_events_SRCS := tests/unit/test_mtp_events.c functions/mtp/mtp_events.c \
	functions/mtp/mtp_store.c gadgetd/loop.c gadgetd/log.c
test_mtp_events_LIBS :=
