# gadgetd/profile/netcfg.c: the network link keys of a profile and the subnet
# clash check, with getifaddrs() wrapped to fake the board's interfaces.
UNIT_TESTS += test_netcfg
test_netcfg_SRCS := tests/unit/test_netcfg.c $(PROFILE_SRCS)
test_netcfg_LIBS := $(PROFILE_LIBS) -Wl,--wrap=getifaddrs,--wrap=freeifaddrs
