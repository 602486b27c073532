# common/wmsg.c: the codec of the gadgetd <-> worker datagrams.
UNIT_TESTS += test_wmsg
test_wmsg_SRCS := tests/unit/test_wmsg.c common/wmsg.c common/strv.c
test_wmsg_LIBS :=
