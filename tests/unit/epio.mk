# functions/runtime/epio.c with libaio and the loop replaced by test doubles.
UNIT_TESTS += test_epio
test_epio_SRCS := tests/unit/test_epio.c functions/runtime/epio.c
test_epio_LIBS :=
