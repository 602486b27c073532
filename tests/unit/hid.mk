# functions/hid: report descriptors and reports, the XKB layout tables and
# the commands that build reports (no FunctionFS: the plugin's I/O is the
# loopback suite's t-hid.sh).
UNIT_TESTS += test_hid
test_hid_SRCS := tests/unit/test_hid.c $(hid_REPORTS)
test_hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
