# common/wargv.c: the worker's command line, encoded and decoded.
UNIT_TESTS += test_wargv
test_wargv_SRCS := tests/unit/test_wargv.c common/wargv.c
test_wargv_LIBS :=
