/* guardlock: what the two AIO guards share (guardlock.h). */
#include "guardlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GUARDLOCK_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARDLOCK_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define GUARDLOCK_ARCH AUDIT_ARCH_ARM
#elif defined(__i386__)
#define GUARDLOCK_ARCH AUDIT_ARCH_I386
#else
#error "guardlock: add this architecture's AUDIT_ARCH"
#endif

/* The byte a guard sends once its filter is in place, and how long the
 * guarded process waits for it. */
#define GUARDLOCK_LOCKED 'L'
#define GUARDLOCK_WAIT_MS 5000

long guardlock_sys(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 0;
	long ret;

	/* The fifth and sixth arguments are 0, not what the registers
	 * held: prctl(PR_SET_NO_NEW_PRIVS) refuses anything else. */
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = 0;
	register long x5 __asm__("x5") = 0;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
	/* 32-bit ARM and i386: libc's, which writes errno on failure. */
	long r = syscall(nr, a, b, c, d, 0L, 0L);

	return r == -1 ? -errno : r;
#endif
}

int guardlock_filter(int lockfd, const int *allow, size_t n)
{
	struct sock_filter f[4 + 2 * GUARDLOCK_MAX_ALLOW + 6];
	struct sock_fprog prog;
	unsigned k = 0;
	size_t i;
	long r;

	if (n > GUARDLOCK_MAX_ALLOW)
		return -E2BIG;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      GUARDLOCK_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)allow[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	/* write() only to the lock pipe (the low word of args[0]: these
	 * architectures are little-endian). */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 0, 4);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[0]));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      (uint32_t)lockfd, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog.len = k;
	prog.filter = f;
	r = guardlock_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0);
	if (r < 0)
		return r;
	return guardlock_sys(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
			     (long)&prog, 0);
}

int guardlock_say_locked(int lockfd)
{
	char c = GUARDLOCK_LOCKED;
	long r = guardlock_sys(SYS_write, lockfd, (long)&c, 1, 0);

	guardlock_sys(SYS_close, lockfd, 0, 0, 0);
	return r == 1 ? 0 : r < 0 ? (int)r : -EIO;
}

/* The guard's one byte, or -errno: -ETIMEDOUT when it said nothing in
 * time, -EPERM when it ended without a word (its filter failed). */
static int guardlock_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c = 0;
	int r;

	do
		r = poll(&pfd, 1, GUARDLOCK_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (read(fd, &c, 1) != 1)
		return -EPERM;
	return c == GUARDLOCK_LOCKED ? 0 : -EPROTO;
}

pid_t guardlock_start(int (*fn)(void *), void *arg, void *stack, size_t size,
		      int volatile *lockfd)
{
	int saved = errno, p[2], r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	*lockfd = p[1];
	/* No exit signal: the guarded process's own SIGCHLD handling and
	 * waitpid(-1) never see it (only __WALL or __WCLONE do). */
	pid = clone(fn, (uint8_t *)stack + size, CLONE_VM, arg);
	r = pid < 0 ? -errno : 0;
	close(p[1]);
	/* It shares our memory: nothing goes on, least of all a host's
	 * byte, before it cannot do more than its filter allows. */
	if (r == 0)
		r = guardlock_wait(p[0]);
	close(p[0]);
	if (r < 0 && pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
	}
	errno = saved;
	return r < 0 ? r : pid;
}
