# common/metatext.c: every built plugin's declaration printed and parsed
# back the same; malformed text refused with its line.
UNIT_TESTS += test_metatext
test_metatext_SRCS := tests/unit/test_metatext.c common/metatext.c $(PLUGIN_LIST_SRCS)
test_metatext_LIBS :=
