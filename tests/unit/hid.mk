# functions/hid: report descriptors and reports, the XKB layout tables and
# the commands that build reports (no FunctionFS: the plugin's I/O is the
# loopback suite's t-hid.sh).
UNIT_TESTS += test_hid
test_hid_SRCS := tests/unit/test_hid.c $(hid_REPORTS)
test_hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)

# The plugin itself (hid.c) over a fake runtime: remote wakeup.
UNIT_TESTS += test_hid_plugin
test_hid_plugin_SRCS := tests/unit/test_hid_plugin.c tests/unit/fake_plugin_options.c \
	$(hid_META) $(hid_CORE) common/loop.c common/log.c
test_hid_plugin_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
# A forwarded device's events to reports, and the hotkey (hid_input.c).
UNIT_TESTS += test_hid_input
test_hid_input_SRCS := tests/unit/test_hid_input.c $(hid_REPORTS)
test_hid_input_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
