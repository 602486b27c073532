# gadgetd-mdns (gadgetd/net/mdns.c, its mdns_main() run in a child as the
# program would run) against a fake avahi-daemon on a private
# dbus-daemon: what it asks avahi-daemon for (interface index, protocol,
# flags, names, port), its ready text, a service's rename after a
# collision, its exit when avahi-daemon is absent or leaves.
UNIT_TESTS += test_mdns
test_mdns_SRCS := tests/unit/test_mdns.c tests/unit/fake_bus.c gadgetd/net/mdns.c common/loop.c common/log.c
test_mdns_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
