UNIT_TESTS += test_adb_packet test_adb_syncmsg test_adb_shellmsg test_adb_auth test_adb test_adb_compress
test_adb_packet_SRCS := tests/unit/test_adb_packet.c functions/adb/adb_packet.c
test_adb_packet_LIBS :=
test_adb_syncmsg_SRCS := tests/unit/test_adb_syncmsg.c functions/adb/adb_syncmsg.c
test_adb_syncmsg_LIBS :=
test_adb_shellmsg_SRCS := tests/unit/test_adb_shellmsg.c functions/adb/adb_shellmsg.c
test_adb_shellmsg_LIBS :=
test_adb_auth_SRCS := tests/unit/test_adb_auth.c tests/unit/adb_testkey.c \
	functions/adb/adb_auth.c common/log.c
test_adb_auth_LIBS := -lcrypto
test_adb_SRCS := tests/unit/test_adb.c tests/unit/adb_fixture.c tests/unit/fake_plugin_adb.c tests/unit/fake_plugin_bufs.c tests/unit/fake_plugin_options.c tests/unit/fake_spawn.c \
	tests/unit/adb_testkey.c \
	$(adb_META) $(adb_CORE) \
	functions/runtime/spawner.c common/child.c common/loop.c common/log.c common/fsutil.c
test_adb_LIBS = -lcrypto -lutil $(ADB_COMPRESS_LIBS)
# adb over TCP: the same plugin with real sockets on 127.0.0.1.
UNIT_TESTS += test_adb_tcp
test_adb_tcp_SRCS := $(subst tests/unit/test_adb.c,tests/unit/test_adb_tcp.c,$(test_adb_SRCS))
test_adb_tcp_LIBS = $(test_adb_LIBS)
test_adb_compress_SRCS := tests/unit/test_adb_compress.c functions/adb/adb_compress.c
test_adb_compress_LIBS = $(ADB_COMPRESS_LIBS)
