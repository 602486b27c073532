# common/optdesc.h's integer parser and common/plugin_meta.h's typed
# option readers (header only: nothing else to link).
UNIT_TESTS += test_optdesc
test_optdesc_SRCS := tests/unit/test_optdesc.c
test_optdesc_LIBS :=
