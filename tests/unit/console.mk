# gadgetd/console/console.c alone, its backend faked: which ports are
# started and stopped at each sync, and the states status lists.
UNIT_TESTS += test_console
test_console_SRCS := tests/unit/test_console.c gadgetd/console/console.c common/log.c
test_console_LIBS :=
# gadgetd/console/console_getty.c with netproc faked: each agetty is a
# session (a logout is no crash), and a given-up one shows as failed.
UNIT_TESTS += test_console_getty
test_console_getty_SRCS := tests/unit/test_console_getty.c gadgetd/console/console_getty.c gadgetd/console/console.c common/log.c
test_console_getty_LIBS :=
