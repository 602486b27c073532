# Android Open Accessory (AOA 1/2) in user space; see accessory.h.
PLUGINS += accessory
accessory_META := functions/accessory/accessory_meta.c
accessory_CORE := functions/accessory/accessory.c \
	functions/accessory/accessory_ctrl.c functions/accessory/accessory_info.c
accessory_SRCS := $(accessory_META) $(accessory_CORE) common/fsutil.c
accessory_LIBS :=
