# functions/runtime/aiopreload.c as built (gadgetd-aioguard.so), preloaded
# into this test binary run as a program with AIO contexts.
UNIT_TESTS += test_aiopreload
test_aiopreload_SRCS := tests/unit/test_aiopreload.c
test_aiopreload_LIBS := -laio -lpthread
$(B)/unit/test_aiopreload: | $(B)/gadgetd-aioguard.so
