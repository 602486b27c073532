# functions/runtime/describe.c: gadgetd-worker --describe prints a plugin's
# declaration as metatext, sandboxed, and refuses another ABI version.
UNIT_TESTS += test_describe
test_describe_SRCS := tests/unit/test_describe.c functions/runtime/describe.c \
	functions/runtime/loader.c functions/runtime/sandbox.c common/metatext.c common/log.c
test_describe_LIBS := -ldl -lseccomp
$(B)/unit/test_describe: | $(LOADER_FAKES)
