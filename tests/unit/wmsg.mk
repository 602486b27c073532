# functions/wmsg.c: the worker's side of the worker.h datagrams.
UNIT_TESTS += test_wmsg
test_wmsg_SRCS := tests/unit/test_wmsg.c functions/wmsg.c
test_wmsg_LIBS :=
