UNIT_TESTS += test_mtp_container test_mtp_store
test_mtp_container_SRCS := tests/unit/test_mtp_container.c \
	functions/mtp/mtp_container.c functions/mtp/mtp_dataset.c
test_mtp_container_LIBS :=
test_mtp_store_SRCS := tests/unit/test_mtp_store.c functions/mtp/mtp_store.c
test_mtp_store_LIBS :=
