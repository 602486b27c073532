# The FunctionFS runtime: gadgetd-worker hosts one plugin per FFS instance.
WORKER_SRCS := functions/worker.c functions/ffs.c functions/epio.c functions/aioguard.c \
	functions/wmsg.c functions/sandbox.c functions/spawner.c \
	gadgetd/loop.c gadgetd/log.c
WORKER_LIBS := -laio -ldl -lseccomp -lutil
