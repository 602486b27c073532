UNIT_TESTS += test_log
test_log_SRCS := tests/unit/test_log.c common/log.c
test_log_LIBS :=
