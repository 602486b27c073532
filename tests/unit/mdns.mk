# gadgetd-mdns (gadgetd/mdns.c) against a fake avahi-daemon on a private
# dbus-daemon: what it asks avahi-daemon for (interface index, protocol,
# flags, names, port), its ready text, a service's rename after a
# collision, its exit when avahi-daemon is absent or leaves. It runs the
# helper built here with the unit tests' sanitizers (order-only: not
# linked into the test).
UNIT_TESTS += test_mdns
test_mdns_SRCS := tests/unit/test_mdns.c
test_mdns_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
$(B)/unit/test_mdns: | $(B)/unit/gadgetd-mdns
$(B)/test/tests/unit/test_mdns.o: CPPFLAGS += -DMDNS_BIN='"$(B)/unit/gadgetd-mdns"'
$(B)/unit/gadgetd-mdns: $(MDNS_SRCS:%.c=$(B)/test/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(LDFLAGS) -o $@ $^ $(MDNS_LIBS)
