UNIT_TESTS += test_mtp_container test_mtp_store test_mtp_plugin test_mtp_events \
	test_mtp_prep test_mtp_edit test_mtp_handles test_mtp_names
test_mtp_container_SRCS := tests/unit/test_mtp_container.c \
	functions/mtp/mtp_container.c functions/mtp/mtp_buf.c functions/mtp/mtp_rd.c functions/mtp/mtp_dataset.c
test_mtp_container_LIBS :=
test_mtp_store_SRCS := tests/unit/test_mtp_store.c tests/unit/fake_statvfs.c \
	$(mtp_STORE) functions/mtp/mtp_fs.c common/log.c
test_mtp_store_LIBS := -Wl,--wrap=fstatvfs64
test_mtp_plugin_SRCS := tests/unit/test_mtp_plugin.c \
	tests/unit/fake_plugin_mtp.c tests/unit/fake_plugin_bufs.c tests/unit/fake_plugin_options.c tests/unit/fake_statvfs.c \
	$(mtp_META) functions/mtp/mtp_plugin.c $(mtp_CORE) common/loop.c common/log.c common/fsutil.c
test_mtp_plugin_LIBS = -Wl,--wrap=fstatvfs64,--wrap=statx
test_mtp_events_SRCS := tests/unit/test_mtp_events.c functions/mtp/mtp_events.c \
	$(mtp_STORE) functions/mtp/mtp_fs.c common/loop.c common/log.c
test_mtp_events_LIBS := -Wl,--wrap=statx
# functions/mtp/mtp_handles.c alone: the handle table, no disk.
test_mtp_handles_SRCS := tests/unit/test_mtp_handles.c functions/mtp/mtp_handles.c functions/mtp/mtp_names.c
test_mtp_handles_LIBS :=
# functions/mtp/mtp_names.c alone: the handle table's names.
test_mtp_names_SRCS := tests/unit/test_mtp_names.c functions/mtp/mtp_names.c
test_mtp_names_LIBS :=
# functions/mtp/mtp_hotplug.c alone: the storage command's parsing and
# mountinfo (the store only for its symbols; nothing is shown).
UNIT_TESTS += test_mtp_hotplug
test_mtp_hotplug_SRCS := tests/unit/test_mtp_hotplug.c functions/mtp/mtp_hotplug.c \
	$(mtp_STORE) functions/mtp/mtp_fs.c common/loop.c common/log.c
test_mtp_hotplug_LIBS :=
# functions/mtp/mtp_prep.c alone, in a temporary folder (as root: the
# storage goes to another user).
test_mtp_prep_SRCS := tests/unit/test_mtp_prep.c functions/mtp/mtp_prep.c common/log.c common/fsutil.c
test_mtp_prep_LIBS :=
# functions/mtp/mtp_edit.c on a real store, with the small fake disk.
test_mtp_edit_SRCS := tests/unit/test_mtp_edit.c tests/unit/fake_statvfs.c \
	functions/mtp/mtp_edit.c $(mtp_STORE) functions/mtp/mtp_fs.c \
	common/log.c
test_mtp_edit_LIBS := -Wl,--wrap=fstatvfs64
# The ptp plugin (functions/ptp/ptp.c, its tables and thumbnails on the
# mtp plugin's code), with JPEG files made by tests/unit/ptp_jpeg.c.
UNIT_TESTS += test_ptp
test_ptp_SRCS := tests/unit/test_ptp.c tests/unit/ptp_jpeg.c \
	tests/unit/fake_plugin_mtp.c tests/unit/fake_plugin_bufs.c tests/unit/fake_plugin_options.c tests/unit/fake_statvfs.c \
	$(ptp_META) functions/ptp/ptp.c $(ptp_CORE) \
	common/loop.c common/log.c common/fsutil.c
test_ptp_LIBS = -Wl,--wrap=fstatvfs64 $(PTP_EXIF_LIBS)
