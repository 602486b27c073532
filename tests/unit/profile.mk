UNIT_TESTS += test_profile test_config
test_profile_SRCS := tests/unit/test_profile.c $(PROFILE_SRCS)
test_profile_LIBS := $(PROFILE_LIBS)
test_config_SRCS := tests/unit/test_config.c gadgetd/config.c gadgetd/cfgtext.c
test_config_LIBS := -lconfig
