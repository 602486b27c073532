# gadgetd/net/netproc.c with real processes (sh, sleep): restarts after a
# crash, gives up after restart_limit, stops, and cleans stale pid files.
UNIT_TESTS += test_netproc
test_netproc_SRCS := tests/unit/test_netproc.c gadgetd/net/netproc.c common/child.c common/loop.c common/log.c
test_netproc_LIBS :=
# gadgetd/net/usblink.c with rtnetlink and the helpers faked: a refused
# address is tried again each tick, and given up on after 10 tries.
UNIT_TESTS += test_usblink
test_usblink_SRCS := tests/unit/test_usblink.c gadgetd/net/usblink.c common/loop.c common/log.c
test_usblink_LIBS :=
# common/child.c with real processes: the exit function gets the status
# once, SIGTERM escalates to SIGKILL, the bounded kill-wait, the restart
# record's window and doubling delay.
UNIT_TESTS += test_child
test_child_SRCS := tests/unit/test_child.c common/child.c common/loop.c common/log.c
test_child_LIBS :=
# gadgetd/net/uplink.c with libnftables and rtnetlink faked: the ruleset's
# text, malformed shares, and a refused table leaving nothing behind.
UNIT_TESTS += test_uplink
test_uplink_SRCS := tests/unit/test_uplink.c gadgetd/net/uplink.c common/log.c
test_uplink_LIBS :=
# gadgetd/net/nftdl.c loading the real libnftables (installed for the build).
UNIT_TESTS += test_nftdl
test_nftdl_SRCS := tests/unit/test_nftdl.c gadgetd/net/nftdl.c
test_nftdl_LIBS := -ldl
