# The profile parser and what it checks against (kernel types, options).
PROFILE_SRCS := gadgetd/profile/profile.c gadgetd/profile/profile_set.c gadgetd/profile/profile_ids.c gadgetd/profile/profile_exec.c \
	gadgetd/profile/ktype.c gadgetd/profile/inputmatch.c gadgetd/profile/netcfg.c gadgetd/profile/optcheck.c \
	gadgetd/profile/cfgtext.c gadgetd/profile/ootmeta.c common/metatext.c $(PLUGIN_LIST_SRCS)
PROFILE_LIBS := -lconfig -lusbgx
# Logins on serial ports (gadgetd/console/console.h).
# console.c is in GADGET_SRCS; its backends, which the unit tests fake:
CONSOLE_SRCS := gadgetd/console/console_system.c \
	gadgetd/console/console_unit.c gadgetd/console/console_getty.c
# The gadget module, one file per job (gadgetd/gadget/gadget_int.h lists them).
GADGET_SRCS := gadgetd/gadget/gadget.c gadgetd/gadget/txn.c gadgetd/gadget/boot.c gadgetd/gadget/pending.c \
	gadgetd/gadget/gadget_queue.c gadgetd/gadget/gadget_restart.c gadgetd/gadget/gadget_command.c \
	gadgetd/gadget/gadget_list.c gadgetd/gadget/gadget_status.c gadgetd/gadget/gadget_wakeup.c gadgetd/model/status.c \
	gadgetd/gadget/netsvc.c gadgetd/console/console.c gadgetd/model/event.c gadgetd/gadget/gadget_storage.c gadgetd/storage/storage.c
GADGETD_SRCS := gadgetd/gadgetd.c $(GADGET_SRCS) $(CONSOLE_SRCS) gadgetd/gadget/inputfwd.c gadgetd/gadget/composer.c \
	gadgetd/net/usblink.c gadgetd/net/uplink.c gadgetd/net/nftdl.c gadgetd/net/netproc.c common/child.c gadgetd/net/rtnl.c \
	gadgetd/gadget/plan.c gadgetd/supervisor/supervisor.c gadgetd/supervisor/supervisor_command.c gadgetd/supervisor/supervisor_exec.c \
	gadgetd/supervisor/supervisor_tcp.c gadgetd/supervisor/supervisor_input.c gadgetd/net/tcplisten.c \
	common/wargv.c \
	gadgetd/front/control.c gadgetd/front/dispatch.c gadgetd/front/access.c gadgetd/front/request.c \
	gadgetd/front/dbus.c gadgetd/front/dbus_auth.c gadgetd/front/dbus_props.c gadgetd/front/lockhint.c \
	gadgetd/profile/dirs.c \
	gadgetd/front/access_peer.c \
	common/ctl.c common/strv.c common/wmsg.c common/json.c gadgetd/gadget/udc.c gadgetd/gadget/state.c gadgetd/profile/config.c \
	$(PROFILE_SRCS) gadgetd/notify.c common/loop.c common/log.c common/fsutil.c
# libnftables is loaded when first needed (gadgetd/net/nftdl.h), not linked.
GADGETD_LIBS = -lusbgx -lconfig $(shell $(PKG_CONFIG) --libs libmnl libsystemd libudev) -ldl
# gadgetd-mdns, the helper that announces a name or a service over mDNS on
# one interface through avahi-daemon (gadgetd/net/mdns.h).
MDNS_SRCS := gadgetd/net/mdns_main.c gadgetd/net/mdns.c common/loop.c common/log.c
MDNS_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
GADGETCTL_SRCS := gadgetd/cli/gadgetctl.c gadgetd/model/status.c $(PROFILE_SRCS) common/ctl.c \
	common/strv.c common/json.c common/log.c
GADGETCTL_LIBS := $(PROFILE_LIBS)
# gadgetd with ASan+UBSan, for the loopback stress test (t-stress.sh).
ASAN_CFLAGS = $(BASE_CFLAGS) -O1 -g $(SAN)
$(B)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ASAN_CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/gadgetd: $(GADGETD_SRCS:%.c=$(B)/asan/obj/%.o)
	$(CC) $(ASAN_CFLAGS) $(LDFLAGS) -o $@ $^ $(GADGETD_LIBS)
loopback: $(B)/asan/gadgetd
