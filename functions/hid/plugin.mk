# hid: a keyboard, mouse, tablet or consumer-key device driven by commands.
PLUGINS += hid
hid_META := functions/hid/hid_meta.c
hid_SRCS := $(hid_META) functions/hid/hid.c functions/hid/hid_desc.c \
	functions/hid/hid_keymap.c functions/hid/hid_cmd.c
hid_LIBS = $(shell $(PKG_CONFIG) --libs xkbcommon)
