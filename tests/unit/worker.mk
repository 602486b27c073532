# gadgetd-worker (functions/runtime/worker.c) run as gadgetd runs it, with the echo
# plugin: what it refuses before it touches USB. It runs the built binary,
# so that comes first (order-only: not linked into the test).
UNIT_TESTS += test_worker
test_worker_SRCS := tests/unit/test_worker.c
test_worker_LIBS :=
$(B)/unit/test_worker: | $(B)/gadgetd-worker $(B)/plugins/echo.so
