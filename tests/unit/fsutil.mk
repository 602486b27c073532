UNIT_TESTS += test_fsutil
test_fsutil_SRCS := tests/unit/test_fsutil.c common/fsutil.c
test_fsutil_LIBS :=
