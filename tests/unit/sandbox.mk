UNIT_TESTS += test_sandbox
test_sandbox_SRCS := tests/unit/test_sandbox.c functions/runtime/sandbox.c \
	functions/runtime/spawner.c common/child.c common/loop.c common/log.c
test_sandbox_LIBS := -lseccomp -lutil
