# gadgetd/netproc.c with real processes (sh, sleep): restarts after a
# crash, gives up after restart_limit, stops, and cleans stale pid files.
UNIT_TESTS += test_netproc
test_netproc_SRCS := tests/unit/test_netproc.c gadgetd/netproc.c common/loop.c common/log.c
test_netproc_LIBS :=
