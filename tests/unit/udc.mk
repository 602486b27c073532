# gadgetd/gadget/udc.c alone: /sys/class/udc redirected into a temporary folder
# and the uevent socket replaced by a socketpair (wrapped calls).
UNIT_TESTS += test_udc
test_udc_SRCS := tests/unit/test_udc.c gadgetd/gadget/udc.c common/loop.c common/log.c
test_udc_LIBS := -Wl,--wrap=opendir,--wrap=fopen,--wrap=fopen64,--wrap=access,--wrap=socket,--wrap=bind
