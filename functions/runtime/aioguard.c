#include "aioguard.h"
#include "guardlock.h"

#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's sigset_t, in bytes (rt_sig* system calls). */
#define AIOGUARD_SIGSET 8

/*
 * The guard shares this process's memory, so its stack lives here and it
 * makes system calls and nothing else (guardlock.h).
 */
static uint8_t aioguard_stack[16384] __attribute__((aligned(16)));
static io_context_t volatile aioguard_ctx;
static pid_t aioguard_pid;
/* The write end of the pipe on which the guard says it is locked (set
 * before the clone, never changed after it: the guard reads it). */
static int volatile aioguard_lockfd = -1;

/* Whatever the worker writes into the shared memory, the guard can do no
 * more than this (and write to its lock pipe). */
static const int aioguard_allow[] = {
	__NR_getppid,
	__NR_rt_sigtimedwait,
#ifdef __NR_rt_sigtimedwait_time64
	__NR_rt_sigtimedwait_time64,
#endif
	__NR_io_destroy,
	__NR_close,
	__NR_exit,
	__NR_exit_group,
};

/* Exit status: 0 the context was destroyed, 2 io_destroy failed, 3 there
 * was none to destroy, 1 the filter could not be installed. */
static int aioguard_main(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;
	int lockfd = aioguard_lockfd;
	uint64_t all = ~(uint64_t)0;
	io_context_t ctx;
	long r;

	/* No fd of the worker's: the instance closes when the worker dies,
	 * and gadgetd sees its socket hang up. Only the pipe that tells the
	 * worker the guard is locked stays, until it has said so. */
	if (lockfd > 0)
		guardlock_sys(SYS_close_range, 0, lockfd - 1, 0, 0);
	guardlock_sys(SYS_close_range, lockfd + 1, ~0U, 0, 0);
	guardlock_sys(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, AIOGUARD_SIGSET);
	guardlock_sys(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR1, 0, 0);
	if (guardlock_filter(lockfd, aioguard_allow,
			     sizeof(aioguard_allow) / sizeof(aioguard_allow[0])) < 0 ||
	    guardlock_say_locked(lockfd) < 0)
		guardlock_sys(SYS_exit, 1, 0, 0, 0);
	/* Any signal wakes the guard; only the worker's death ends it. */
	while (guardlock_sys(SYS_getppid, 0, 0, 0, 0) == parent)
		guardlock_sys(SYS_rt_sigtimedwait, (long)&all, 0, 0, AIOGUARD_SIGSET);
	ctx = aioguard_ctx;
	if (!ctx)
		guardlock_sys(SYS_exit, 3, 0, 0, 0);
	r = guardlock_sys(SYS_io_destroy, (long)ctx, 0, 0, 0);
	guardlock_sys(SYS_exit, r == 0 ? 0 : 2, 0, 0, 0);
	return 0;
}

pid_t aioguard_start(void)
{
	pid_t pid;

	if (aioguard_pid > 0)
		return aioguard_pid;
	pid = guardlock_start(aioguard_main, (void *)(intptr_t)getpid(),
			      aioguard_stack, sizeof(aioguard_stack),
			      &aioguard_lockfd);
	if (pid > 0)
		aioguard_pid = pid;
	return pid;
}

void aioguard_watch(io_context_t ctx)
{
	aioguard_ctx = ctx;
}
