# functions/runtime/aioguard.c with a real AIO context, in forked children.
UNIT_TESTS += test_aioguard
test_aioguard_SRCS := tests/unit/test_aioguard.c functions/runtime/aioguard.c functions/runtime/guardlock.c
test_aioguard_LIBS := -laio
