UNIT_TESTS += test_gadget test_ctl
test_gadget_SRCS := tests/unit/test_gadget.c tests/unit/fake_gadget_deps.c \
	gadgetd/gadget.c gadgetd/plan.c gadgetd/profile.c gadgetd/config.c \
	gadgetd/loop.c gadgetd/log.c
test_gadget_LIBS := -lconfig
test_ctl_SRCS := tests/unit/test_ctl.c gadgetd/protocol.c gadgetd/state.c gadgetd/config.c \
	gadgetd/access_peer.c
test_ctl_LIBS := -lconfig
UNIT_TESTS += test_control
# access_peer.c is faked by the test, and accept4() wrapped.
test_control_SRCS := tests/unit/test_control.c gadgetd/control.c gadgetd/access.c \
	gadgetd/protocol.c gadgetd/loop.c gadgetd/log.c
test_control_LIBS := -Wl,--wrap=accept4
# gadgetd/loop.c alone: watch removal, idle and destroy callbacks.
UNIT_TESTS += test_loop
test_loop_SRCS := tests/unit/test_loop.c gadgetd/loop.c gadgetd/log.c
test_loop_LIBS :=
# gadgetd/supervisor.c with this test binary as the worker; mounts faked.
UNIT_TESTS += test_supervisor
test_supervisor_SRCS := tests/unit/test_supervisor.c gadgetd/supervisor.c \
	gadgetd/loop.c gadgetd/log.c
test_supervisor_LIBS := -Wl,--wrap=mount,--wrap=umount2
# gadgetd/notify.c: sd_notify datagrams and the watchdog, to a fake systemd.
UNIT_TESTS += test_notify
test_notify_SRCS := tests/unit/test_notify.c gadgetd/notify.c gadgetd/loop.c gadgetd/log.c
test_notify_LIBS :=
