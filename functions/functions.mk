# The FunctionFS runtime: gadgetd-worker hosts one plugin per FFS instance.
WORKER_SRCS := functions/worker.c functions/loader.c functions/ffs.c functions/epio.c functions/aioguard.c \
	gadgetd/common/wmsg.c gadgetd/common/strv.c functions/sandbox.c functions/spawner.c \
	gadgetd/common/loop.c gadgetd/common/log.c
WORKER_LIBS := -laio -ldl -lseccomp -lutil
