PLUGINS += adb
# Its declaration (common/plugin_meta.h), which gadgetd links too.
adb_META := functions/adb/adb_meta.c
# The plugin's own code, which the tests that run the whole plugin link
# (tests/unit/adb.mk, tests/fuzz/adb.mk) with their fakes.
adb_CORE := functions/adb/adb.c functions/adb/adb_packet.c \
	functions/adb/adb_auth.c functions/adb/adb_stream.c \
	functions/adb/adb_shell.c functions/adb/adb_shellmsg.c functions/adb/adb_syncmsg.c \
	functions/adb/adb_sync.c functions/adb/adb_forward.c \
	functions/adb/adb_compress.c functions/adb/adb_root.c \
	functions/adb/adb_tcp.c
adb_SRCS := $(adb_META) $(adb_CORE) common/fsutil.c
ADB_COMPRESS_LIBS = $(shell $(PKG_CONFIG) --libs libbrotlienc libbrotlidec liblz4 libzstd)
adb_LIBS = -lcrypto -lutil $(ADB_COMPRESS_LIBS)
