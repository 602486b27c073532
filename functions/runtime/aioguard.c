#include "aioguard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* The byte the guard sends once its filter is in place, and how long
 * the worker waits for it. */
#define AIOGUARD_LOCKED "L"
#define AIOGUARD_LOCK_MS 5000

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
/* The write end of the pipe on which the guard says it is locked (set
 * before the clone, never changed after it: the guard reads it). */
static int aioguard_lockfd = -1;

#define AIOGUARD_ALLOW(nr)                                              \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* Whatever the worker writes into the shared memory, the guard can do no
 * more than this. */
static int aioguard_lock(int lockfd)
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
		AIOGUARD_ALLOW(__NR_close),
		/* write() only to the pipe that says it is locked (the low
		 * word of args[0]: these architectures are little-endian). */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)lockfd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
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
	int lockfd = aioguard_lockfd;
	uint64_t all = ~(uint64_t)0;
	io_context_t ctx;
	long r;

	/* No fd of the worker's: the instance closes when the worker dies,
	 * and gadgetd sees its socket hang up. Only the pipe that tells the
	 * worker the guard is locked stays, until it has said so. */
	if (lockfd > 0)
		syscall(SYS_close_range, 0, lockfd - 1, 0);
	syscall(SYS_close_range, lockfd + 1, ~0U, 0);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, AIOGUARD_SIGSET);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
	if (aioguard_lock(lockfd) < 0)
		syscall(SYS_exit, 1);
	if (syscall(SYS_write, lockfd, AIOGUARD_LOCKED, 1) != 1)
		syscall(SYS_exit, 1);
	syscall(SYS_close, lockfd);
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

/* The guard's one byte, or -errno: -ETIMEDOUT when it said nothing in
 * time, -EPERM when it exited without a word (its filter failed). */
static int aioguard_wait_locked(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c = 0;
	int r;

	do
		r = poll(&pfd, 1, AIOGUARD_LOCK_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (read(fd, &c, 1) != 1)
		return -EPERM;
	return c == AIOGUARD_LOCKED[0] ? 0 : -EPROTO;
}

pid_t aioguard_start(void)
{
	int p[2], r;
	pid_t pid;

	if (aioguard_pid > 0)
		return aioguard_pid;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	aioguard_lockfd = p[1];
	/* No exit signal: the worker's own SIGCHLD handling never sees it. */
	pid = clone(aioguard_main, aioguard_stack + sizeof(aioguard_stack),
		    CLONE_VM, (void *)(intptr_t)getpid());
	r = pid < 0 ? -errno : 0;
	close(p[1]);
	/* It shares our memory: nothing goes on, least of all a host's
	 * byte, before it cannot do more than its filter allows. */
	if (r == 0)
		r = aioguard_wait_locked(p[0]);
	close(p[0]);
	if (r < 0) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, __WALL);
		}
		return r;
	}
	aioguard_pid = pid;
	return pid;
}

void aioguard_watch(io_context_t ctx)
{
	aioguard_ctx = ctx;
}
