UNIT_TESTS += test_profile test_config
test_profile_SRCS := tests/unit/test_profile.c gadgetd/profile.c
test_profile_LIBS := -lconfig
test_config_SRCS := tests/unit/test_config.c gadgetd/config.c
test_config_LIBS := -lconfig
