# The FunctionFS runtime: gadgetd-worker hosts one plugin per FFS instance.
WORKER_SRCS := functions/runtime/worker.c functions/runtime/ffsexec.c functions/runtime/ffsbound.c functions/runtime/plugin.c common/wargv.c functions/runtime/loader.c functions/runtime/ffs.c functions/runtime/epio.c functions/runtime/aioguard.c functions/runtime/guardlock.c \
	common/wmsg.c common/strv.c functions/runtime/sandbox.c functions/runtime/spawner.c \
	common/child.c common/loop.c common/log.c functions/runtime/describe.c common/metatext.c
WORKER_LIBS := -laio -ldl -lseccomp -lutil
# gadgetd-aioguard.so: the AIO guard preloaded into a FunctionFS program
# gadgetd only starts (aiopreload.c), beside gadgetd-worker, which finds
# it there. It calls nothing through a PLT once started: bound now.
AIOPRELOAD_SRCS := functions/runtime/aiopreload.c functions/runtime/guardlock.c
