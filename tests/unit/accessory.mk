UNIT_TESTS += test_accessory
test_accessory_SRCS := tests/unit/test_accessory.c \
	tests/unit/fake_plugin_accessory.c \
	$(accessory_META) functions/accessory/accessory.c \
	functions/accessory/accessory_ctrl.c \
	functions/accessory/accessory_info.c \
	common/loop.c common/log.c common/fsutil.c
test_accessory_LIBS :=
