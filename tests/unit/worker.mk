# gadgetd-worker (functions/runtime/worker.c) run as gadgetd runs it, with the echo
# plugin: what it refuses before it touches USB. It runs the built binary,
# so that comes first (order-only: not linked into the test).
UNIT_TESTS += test_worker
test_worker_SRCS := tests/unit/test_worker.c
test_worker_LIBS :=
$(B)/unit/test_worker: | $(B)/gadgetd-worker $(B)/plugins/echo.so
# gadgetd-worker -x (functions/runtime/ffsexec.c), the built binary with
# /bin/sh as the program: readiness, heartbeat, environment, its end.
UNIT_TESTS += test_ffsexec
test_ffsexec_SRCS := tests/unit/test_ffsexec.c common/wmsg.c common/strv.c
test_ffsexec_LIBS :=
$(B)/unit/test_ffsexec: | $(B)/gadgetd-worker
