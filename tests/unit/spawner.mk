UNIT_TESTS += test_spawner
test_spawner_SRCS := tests/unit/test_spawner.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c
test_spawner_LIBS := -lutil
