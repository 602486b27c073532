GADGETD_SRCS := gadgetd/gadgetd.c gadgetd/gadget.c gadgetd/composer.c \
	gadgetd/plan.c gadgetd/supervisor.c gadgetd/control.c gadgetd/access.c \
	gadgetd/access_peer.c \
	gadgetd/protocol.c gadgetd/udc.c gadgetd/state.c gadgetd/config.c \
	gadgetd/profile.c gadgetd/loop.c gadgetd/log.c
GADGETD_LIBS := -lusbgx -lconfig
GADGETCTL_SRCS := gadgetd/gadgetctl.c gadgetd/profile.c gadgetd/log.c
GADGETCTL_LIBS := -lconfig
