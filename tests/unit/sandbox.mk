UNIT_TESTS += test_sandbox
test_sandbox_SRCS := tests/unit/test_sandbox.c functions/sandbox.c \
	functions/spawner.c gadgetd/common/log.c
test_sandbox_LIBS := -lseccomp -lutil
