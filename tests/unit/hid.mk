# functions/hid: report descriptors and reports, the XKB layout tables and
# the commands that build reports (no FunctionFS: the plugin's I/O is the
# loopback suite's t-hid.sh).
UNIT_TESTS += test_hid
test_hid_SRCS := tests/unit/test_hid.c functions/hid/hid_desc.c functions/hid/hid_keymap.c \
	functions/hid/hid_cmd.c
test_hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
