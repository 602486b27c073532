#include "aioguard.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define AIOGUARD_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AIOGUARD_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define AIOGUARD_ARCH AUDIT_ARCH_ARM
#elif defined(__i386__)
#define AIOGUARD_ARCH AUDIT_ARCH_I386
#else
#error "aioguard: add this architecture's AUDIT_ARCH"
#endif

/* The kernel's sigset_t, in bytes (rt_sig* system calls). */
#define AIOGUARD_SIGSET 8

/*
 * The guard shares this process's memory, so its stack lives here and it
 * calls no libc function that keeps state (no malloc, no stdio): it makes
 * system calls and nothing else. Its errno would be the worker's, which
 * is why it only fails once the worker is gone.
 */
static uint8_t aioguard_stack[16384] __attribute__((aligned(16)));
static io_context_t volatile aioguard_ctx;
static pid_t aioguard_pid;

#define AIOGUARD_ALLOW(nr)                                              \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* Whatever the worker writes into the shared memory, the guard can do no
 * more than this. */
static int aioguard_lock(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AIOGUARD_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		AIOGUARD_ALLOW(__NR_getppid),
		AIOGUARD_ALLOW(__NR_rt_sigtimedwait),
#ifdef __NR_rt_sigtimedwait_time64
		AIOGUARD_ALLOW(__NR_rt_sigtimedwait_time64),
#endif
		AIOGUARD_ALLOW(__NR_io_destroy),
		AIOGUARD_ALLOW(__NR_exit),
		AIOGUARD_ALLOW(__NR_exit_group),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {
		.len = sizeof(f) / sizeof(f[0]),
		.filter = f,
	};

	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* Exit status: 0 the context was destroyed, 2 io_destroy failed, 3 there
 * was none to destroy, 1 the filter could not be installed. */
static int aioguard_main(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;
	uint64_t all = ~(uint64_t)0;
	io_context_t ctx;
	long r;

	/* No fd of the worker's: the instance closes when the worker dies,
	 * and gadgetd sees its socket hang up. */
	syscall(SYS_close_range, 0, ~0U, 0);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, AIOGUARD_SIGSET);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
	if (aioguard_lock() < 0)
		syscall(SYS_exit, 1);
	/* Any signal wakes the guard; only the worker's death ends it. */
	while (syscall(SYS_getppid) == parent)
		syscall(SYS_rt_sigtimedwait, &all, NULL, NULL, AIOGUARD_SIGSET);
	ctx = aioguard_ctx;
	if (!ctx)
		syscall(SYS_exit, 3);
	r = syscall(SYS_io_destroy, ctx);
	syscall(SYS_exit, r == 0 ? 0 : 2);
	return 0;
}

pid_t aioguard_start(void)
{
	pid_t pid;

	if (aioguard_pid > 0)
		return aioguard_pid;
	/* No exit signal: the worker's own SIGCHLD handling never sees it. */
	pid = clone(aioguard_main, aioguard_stack + sizeof(aioguard_stack),
		    CLONE_VM, (void *)(intptr_t)getpid());
	if (pid < 0)
		return -errno;
	aioguard_pid = pid;
	return pid;
}

void aioguard_watch(io_context_t ctx)
{
	aioguard_ctx = ctx;
}
