# The FunctionFS runtime: gadgetd-worker hosts one plugin per FFS instance.
WORKER_SRCS := functions/runtime/worker.c functions/runtime/ffsexec.c functions/runtime/ffsbound.c functions/runtime/plugin.c common/wargv.c functions/runtime/loader.c functions/runtime/ffs.c functions/runtime/epio.c functions/runtime/aioguard.c \
	common/wmsg.c common/strv.c functions/runtime/sandbox.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c functions/runtime/describe.c common/metatext.c
WORKER_LIBS := -laio -ldl -lseccomp -lutil
