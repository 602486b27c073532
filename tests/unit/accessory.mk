UNIT_TESTS += test_accessory
test_accessory_SRCS := tests/unit/test_accessory.c \
	tests/unit/fake_plugin_accessory.c tests/unit/fake_plugin_options.c \
	$(accessory_META) $(accessory_CORE) \
	common/loop.c common/log.c common/fsutil.c
test_accessory_LIBS :=
