# gadgetd/gadget/composer.c with the real libusbgx on a ConfigFS faked in a
# temporary folder (tests/unit/fake_configfs.c takes over libusbgx's
# mkdir/rmdir/scandir/opendir; usbg_init is wrapped to point there).
UNIT_TESTS += test_composer
test_composer_SRCS := tests/unit/test_composer.c tests/unit/fake_configfs.c \
	gadgetd/gadget/composer.c $(PROFILE_SRCS) common/log.c
test_composer_LIBS := $(PROFILE_LIBS) -ldl -Wl,--wrap=usbg_init
