UNIT_TESTS += test_profile test_config test_profile_exec
test_profile_SRCS := tests/unit/test_profile.c $(PROFILE_SRCS)
test_profile_LIBS := $(PROFILE_LIBS)
# An existing FunctionFS program as a function (profile_exec.c).
test_profile_exec_SRCS := tests/unit/test_profile_exec.c $(PROFILE_SRCS)
test_profile_exec_LIBS := $(PROFILE_LIBS)
test_config_SRCS := tests/unit/test_config.c gadgetd/profile/config.c gadgetd/profile/cfgtext.c
test_config_LIBS := -lconfig
# The plugin declarations and everything derived from their list: option
# checks, default users, group commands, the sysusers.d file, the manual.
UNIT_TESTS += test_plugin_list
test_plugin_list_SRCS := tests/unit/test_plugin_list.c tests/unit/man_section.c \
	$(PROFILE_SRCS) gadgetd/front/access.c gadgetd/front/request.c gadgetd/storage/storage.c
test_plugin_list_LIBS := $(PROFILE_LIBS)
$(B)/test/tests/unit/test_plugin_list.o: $(B)/gen/gadgetd.sysusers
$(B)/test/tests/unit/test_plugin_list.o: CPPFLAGS += -DSYSUSERS_FILE='"$(B)/gen/gadgetd.sysusers"'
# gadgetd/profile/ktype.c's table against man/gadgetd.conf.5's kernel types.
UNIT_TESTS += test_ktype
test_ktype_SRCS := tests/unit/test_ktype.c tests/unit/man_section.c $(PROFILE_SRCS)
test_ktype_LIBS := $(PROFILE_LIBS)
# forward_match rules and a hid function's forward options (inputmatch.c).
UNIT_TESTS += test_inputmatch
test_inputmatch_SRCS := tests/unit/test_inputmatch.c $(PROFILE_SRCS)
test_inputmatch_LIBS := $(PROFILE_LIBS)
