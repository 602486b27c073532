PLUGINS += mtp
mtp_META := functions/mtp/mtp_meta.c
# The store module, one file per job, and the objects below it: the handle
# table and its names, the walk to a folder, the uploads (functions/mtp/mtp_store_int.h
# lists them).
mtp_STORE := functions/mtp/mtp_store.c functions/mtp/mtp_store_list.c functions/mtp/mtp_store_copy.c \
	functions/mtp/mtp_handles.c functions/mtp/mtp_names.c functions/mtp/mtp_walk.c functions/mtp/mtp_upload.c
# The operations, one file per family (functions/mtp/mtp_ops_int.h lists them).
mtp_OPS := functions/mtp/mtp_ops.c functions/mtp/mtp_ops_object.c functions/mtp/mtp_ops_prop.c \
	functions/mtp/mtp_ops_edit.c
# The responder without an ops table: the mtp plugin adds mtp_plugin.c,
# the ptp plugin (functions/ptp/plugin.mk) its own.
mtp_CORE := functions/mtp/mtp.c functions/mtp/mtp_container.c functions/mtp/mtp_buf.c functions/mtp/mtp_rd.c \
	functions/mtp/mtp_dataset.c $(mtp_OPS) functions/mtp/mtp_edit.c functions/mtp/mtp_proplist.c \
	$(mtp_STORE) functions/mtp/mtp_fs.c functions/mtp/mtp_events.c functions/mtp/mtp_hotplug.c \
	functions/mtp/mtp_prep.c
mtp_SRCS := $(mtp_META) functions/mtp/mtp_plugin.c $(mtp_CORE) common/fsutil.c
mtp_LIBS :=
