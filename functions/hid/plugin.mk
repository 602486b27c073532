# hid: a keyboard, mouse, tablet or consumer-key device driven by commands.
PLUGINS += hid
hid_META := functions/hid/hid_meta.c
# The report and command code without FunctionFS, which the unit test and
# the fuzz target link; hid.c is the plugin around it.
hid_REPORTS := functions/hid/hid_desc.c functions/hid/hid_keymap.c functions/hid/hid_cmd.c functions/hid/hid_input.c
hid_CORE := functions/hid/hid.c $(hid_REPORTS)
hid_SRCS := $(hid_META) $(hid_CORE)
hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
