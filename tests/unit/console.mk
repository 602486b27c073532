# gadgetd/console/console.c alone, its backend faked: which ports are
# started and stopped at each sync, and the states status lists.
UNIT_TESTS += test_console
test_console_SRCS := tests/unit/test_console.c gadgetd/console/console.c common/log.c
test_console_LIBS :=
