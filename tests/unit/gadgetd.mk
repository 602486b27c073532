UNIT_TESTS += test_gadget test_ctl
test_gadget_SRCS := tests/unit/test_gadget.c tests/unit/fake_gadget_deps.c tests/unit/fake_gadget_status.c \
	$(GADGET_SRCS) common/json.c gadgetd/gadget/plan.c $(PROFILE_SRCS) gadgetd/profile/config.c \
	common/loop.c common/log.c
test_gadget_LIBS := $(PROFILE_LIBS)
# gadget_boot_start(): the start-up's fallbacks, with the same fakes.
UNIT_TESTS += test_boot
test_boot_SRCS := tests/unit/test_boot.c tests/unit/fake_gadget_deps.c \
	$(GADGET_SRCS) common/json.c gadgetd/gadget/plan.c $(PROFILE_SRCS) gadgetd/profile/config.c \
	common/loop.c common/log.c
test_boot_LIBS := $(PROFILE_LIBS)
# gadgetd/front/dispatch.c over the gadget, with test_gadget's fakes: the
# clients' queue, its limits and order, the check again at run time.
UNIT_TESTS += test_dispatch
test_dispatch_SRCS := tests/unit/test_dispatch.c tests/unit/fake_gadget_deps.c tests/unit/fake_gadget_status.c \
	gadgetd/front/dispatch.c gadgetd/front/access.c gadgetd/front/request.c \
	$(GADGET_SRCS) common/json.c gadgetd/gadget/plan.c $(PROFILE_SRCS) gadgetd/profile/config.c \
	common/loop.c common/log.c
test_dispatch_LIBS := $(PROFILE_LIBS)
# gadgetd/gadget/txn.c alone: the transaction over the same fakes, this test its
# owner.
UNIT_TESTS += test_txn
test_txn_SRCS := tests/unit/test_txn.c tests/unit/fake_gadget_deps.c gadgetd/gadget/txn.c \
	gadgetd/gadget/netsvc.c gadgetd/console/console.c gadgetd/model/event.c gadgetd/model/status.c common/json.c gadgetd/gadget/plan.c \
	$(PROFILE_SRCS) gadgetd/profile/config.c common/loop.c common/log.c
test_txn_LIBS := $(PROFILE_LIBS)
# gadgetd/gadget/pending.c alone: the gadget's own waiting work, this test its
# owner (test_gadget's profile, from fake_gadget_deps.c).
UNIT_TESTS += test_pending
test_pending_SRCS := tests/unit/test_pending.c tests/unit/fake_gadget_deps.c gadgetd/gadget/pending.c \
	gadgetd/console/console.c \
	gadgetd/model/event.c $(PROFILE_SRCS) common/loop.c common/log.c
test_pending_LIBS := $(PROFILE_LIBS)
# test_ctl: common/ctl.c, the control socket's codec, both directions.
test_ctl_SRCS := tests/unit/test_ctl.c common/ctl.c common/strv.c
test_ctl_LIBS :=
# test_request: gadgetd/front/request.c, a request decoded into its typed form.
UNIT_TESTS += test_request
test_request_SRCS := tests/unit/test_request.c gadgetd/front/request.c gadgetd/storage/storage.c
test_request_LIBS :=
# gadgetd/gadget/state.c with fsync() and rename() wrapped: the order of the
# steps that make a save durable, and failures at each.
UNIT_TESTS += test_state
test_state_SRCS := tests/unit/test_state.c gadgetd/gadget/state.c gadgetd/profile/config.c gadgetd/profile/cfgtext.c common/fsutil.c
test_state_LIBS := -lconfig -Wl,--wrap=fsync,--wrap=rename
UNIT_TESTS += test_control
# access_peer.c is faked by the test, and accept4() wrapped.
test_control_SRCS := tests/unit/test_control.c gadgetd/front/control.c gadgetd/front/dispatch.c gadgetd/front/access.c \
	gadgetd/front/request.c gadgetd/storage/storage.c gadgetd/model/event.c \
	gadgetd/profile/ootmeta.c common/metatext.c $(PLUGIN_LIST_SRCS) \
	common/ctl.c common/strv.c common/loop.c common/log.c
test_control_LIBS := -Wl,--wrap=accept4
# gadgetd/model/status.c: one status structure, rendered as text and as JSON.
UNIT_TESTS += test_status
test_status_SRCS := tests/unit/test_status.c gadgetd/model/status.c common/json.c
test_status_LIBS :=
# common/loop.c alone: watch removal, idle and destroy callbacks.
UNIT_TESTS += test_loop
test_loop_SRCS := tests/unit/test_loop.c common/loop.c common/log.c
test_loop_LIBS :=
# gadgetd/supervisor/supervisor.c with this test binary as the worker; mounts
# faked.
UNIT_TESTS += test_supervisor
test_supervisor_SRCS := tests/unit/test_supervisor.c tests/unit/fake_mount.c gadgetd/supervisor/supervisor.c common/child.c \
	gadgetd/supervisor/supervisor_command.c gadgetd/supervisor/supervisor_exec.c gadgetd/supervisor/supervisor_tcp.c gadgetd/supervisor/supervisor_input.c \
	gadgetd/profile/dirs.c common/fsutil.c common/wargv.c gadgetd/model/status.c gadgetd/model/event.c \
	common/wmsg.c common/strv.c common/json.c gadgetd/profile/profile_exec.c gadgetd/profile/cfgtext.c \
	$(PLUGIN_LIST_SRCS) common/loop.c common/log.c
test_supervisor_LIBS := -lconfig -Wl,--wrap=mount,--wrap=umount2
# The worker's argv at PROFILE_MAX_OPTIONS options of the longest values
# (supervisor.c and supervisor_exec.c with this test binary as the worker;
# mounts faked).
UNIT_TESTS += test_sup_argv
test_sup_argv_SRCS := tests/unit/test_sup_argv.c tests/unit/fake_mount.c gadgetd/supervisor/supervisor.c common/child.c \
	gadgetd/supervisor/supervisor_command.c gadgetd/supervisor/supervisor_exec.c gadgetd/supervisor/supervisor_tcp.c gadgetd/supervisor/supervisor_input.c \
	gadgetd/profile/dirs.c common/fsutil.c common/wargv.c gadgetd/model/status.c gadgetd/model/event.c \
	common/wmsg.c common/strv.c common/json.c \
	$(PROFILE_SRCS) common/loop.c common/log.c
test_sup_argv_LIBS := $(PROFILE_LIBS) -Wl,--wrap=mount,--wrap=umount2
# gadgetd/profile/dirs.c alone, in a temporary folder.
UNIT_TESTS += test_dirs
test_dirs_SRCS := tests/unit/test_dirs.c gadgetd/profile/dirs.c common/fsutil.c
test_dirs_LIBS :=
# gadgetd/notify.c: sd_notify datagrams and the watchdog, to a fake systemd.
UNIT_TESTS += test_notify
test_notify_SRCS := tests/unit/test_notify.c gadgetd/notify.c common/loop.c common/log.c
test_notify_LIBS :=
# gadgetd/front/access_peer.c: who a control socket peer is (SO_PEERCRED,
# groups).
UNIT_TESTS += test_access_peer
test_access_peer_SRCS := tests/unit/test_access_peer.c gadgetd/front/access_peer.c
test_access_peer_LIBS :=
# The listening sockets gadgetd hands to workers (adb over TCP).
UNIT_TESTS += test_tcplisten
test_tcplisten_SRCS := tests/unit/test_tcplisten.c gadgetd/net/tcplisten.c common/log.c
test_tcplisten_LIBS :=
# What a worker may ask for TCP, and the hand-over of its sockets.
UNIT_TESTS += test_supervisor_tcp
test_supervisor_tcp_SRCS := tests/unit/test_supervisor_tcp.c gadgetd/supervisor/supervisor_tcp.c $(PLUGIN_LIST_SRCS) \
	common/wmsg.c common/strv.c common/loop.c common/log.c
test_supervisor_tcp_LIBS :=
# The keys file gadgetd appends to for a worker's `allow` (WORKER_KEY).
UNIT_TESTS += test_supervisor_command
test_supervisor_command_SRCS := tests/unit/test_supervisor_command.c gadgetd/supervisor/supervisor_command.c \
	common/wmsg.c common/strv.c $(PLUGIN_LIST_SRCS) common/loop.c common/log.c
test_supervisor_command_LIBS :=
# gadgetd/model/event.c alone: delivery order, unsubscribing during delivery.
UNIT_TESTS += test_event
test_event_SRCS := tests/unit/test_event.c gadgetd/model/event.c common/log.c
test_event_LIBS :=
# gadgetd/front/dbus*.c on a private dbus-daemon, the gadget faked as in
# test_gadget; a fake polkit and a caller that is not root.
UNIT_TESTS += test_dbus
test_dbus_SRCS := tests/unit/test_dbus.c tests/unit/fake_gadget_deps.c tests/unit/fake_bus.c \
	gadgetd/front/dbus.c gadgetd/front/dbus_auth.c gadgetd/front/dbus_props.c gadgetd/front/dispatch.c gadgetd/front/access.c \
	gadgetd/front/request.c common/ctl.c common/strv.c \
	$(GADGET_SRCS) common/json.c gadgetd/gadget/plan.c $(PROFILE_SRCS) gadgetd/profile/config.c \
	common/loop.c common/log.c
test_dbus_LIBS = $(PROFILE_LIBS) $(shell $(PKG_CONFIG) --libs libsystemd)
# gadgetd/storage/storage.c alone: media_dir confinement and LUN attributes, in
# a temporary folder laid out like a mass_storage function's.
UNIT_TESTS += test_storage
test_storage_SRCS := tests/unit/test_storage.c gadgetd/storage/storage.c
test_storage_LIBS :=
