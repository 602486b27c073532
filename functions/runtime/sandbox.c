/*
 * sandbox: credentials, capabilities, no_new_privs and the seccomp filter
 * of a worker. See sandbox.h for the order in which a worker uses them.
 */
#include "sandbox.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

/*
 * What the runtime does once the worker runs: the event loop (epoll,
 * timerfd, signalfd reads), FunctionFS I/O (libaio, eventfd, ioctl on
 * endpoint files), gadgetd's socket and the spawner's (messages with
 * fds, poll for a reply), malloc, the log on stderr, and exiting. Nothing
 * here opens a file, makes a socket or starts a program: plugins that do
 * list those calls in their declaration (plugin_meta.syscalls).
 */
const char *const sandbox_runtime_syscalls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "lseek",
	"close", "fcntl", "ioctl", "fstat", "newfstatat", "statx",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl",
	"poll", "ppoll",
	"timerfd_create", "timerfd_settime", "timerfd_gettime", "eventfd2",
	"io_setup", "io_destroy", "io_submit", "io_getevents",
	"io_pgetevents", "io_cancel",
	"recvfrom", "recvmsg", "sendto", "sendmsg",
	"mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
	"rt_sigprocmask", "rt_sigaction", "rt_sigreturn", "sigaltstack",
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep",
	"gettimeofday", "time",
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"tgkill", "futex", "getrandom", "sched_yield", "restart_syscall",
	"exit", "exit_group",
	/*
	 * The same calls under the names glibc uses on 32-bit ARM (armhf,
	 * with 64-bit file offsets and time_t). libseccomp skips a name the
	 * filter's architecture lacks, so they cost nothing elsewhere.
	 */
	"mmap2", "fcntl64", "_llseek", "fstat64", "fstatat64",
	"ppoll_time64", "io_pgetevents_time64", "timerfd_settime64",
	"timerfd_gettime64", "clock_gettime64", "clock_getres_time64",
	"clock_nanosleep_time64", "futex_time64", "sigreturn", "send", "recv",
	"getuid32", "geteuid32", "getgid32", "getegid32",
	NULL,
};

static int sandbox_cap_last(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last < 63 ? last : 63;
}

static int sandbox_capset(uint64_t caps)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { { 0 } };
	unsigned i;

	for (i = 0; i < 2; i++) {
		d[i].effective = (uint32_t)(caps >> (32 * i));
		d[i].permitted = d[i].effective;
		d[i].inheritable = d[i].effective;
	}
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* Bounding set first: it needs CAP_SETPCAP, which is gone after. */
static int sandbox_bound(uint64_t caps)
{
	int c, last = sandbox_cap_last();

	for (c = 0; c <= last; c++) {
		if (caps & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL) {
			log_warn("sandbox: cannot drop capability %d from the bounding set", c);
			return -errno;
		}
	}
	return 0;
}

static int sandbox_ids(const char *user, uid_t uid, gid_t gid)
{
	if ((user ? initgroups(user, gid) : setgroups(0, NULL)) < 0) {
		log_warn("sandbox: cannot set the groups of %s", user ? user : "the worker");
		return -errno;
	}
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		log_warn("sandbox: cannot become %u:%u", (unsigned)uid, (unsigned)gid);
		return -errno;
	}
	return 0;
}

/* Ambient capabilities carry caps across execve for a user other than
 * root, so that the programs a plugin starts keep what the profile
 * granted and nothing more. */
static int sandbox_ambient(uint64_t caps)
{
	int c;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return -errno;
	for (c = 0; c < 64; c++)
		if ((caps & (1ULL << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return -errno;
	return 0;
}

int sandbox_drop(const char *user, uid_t uid, gid_t gid, uint64_t caps)
{
	bool root = geteuid() == 0;
	int r;

	if (!root && (uid != getuid() || gid != getgid())) {
		log_warnx("sandbox: only root can become %u:%u", (unsigned)uid,
			  (unsigned)gid);
		return -EPERM;
	}
	if (root) {
		r = sandbox_bound(caps);
		if (r < 0)
			return r;
		/* Keep the permitted set across setresuid() to a non-root
		 * uid; capset() below trims it to caps. */
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
			return -errno;
		r = sandbox_ids(user, uid, gid);
		if (r < 0)
			return r;
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
			return -errno;
	}
	r = sandbox_capset(caps);
	if (r < 0) {
		log_warnx("sandbox: cannot set the capabilities to %#llx: %s",
			  (unsigned long long)caps, strerror(-r));
		return r;
	}
	return sandbox_ambient(caps);
}

static int sandbox_allow(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR) {
		log_warnx("sandbox: \"%s\" is not a system call", name);
		return -EINVAL;
	}
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
}

int sandbox_lock(const char *const *extra)
{
	const char *const *n;
	scmp_filter_ctx ctx;
	int r = 0;

	/* The filter's default: kill the whole process, so that gadgetd
	 * sees SIGSYS rather than a worker limping on with EPERMs. */
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	/* For every thread of the worker (ffs.c's ep0 stage thread is
	 * started before the filter): without TSYNC it would run unfiltered. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	for (n = sandbox_runtime_syscalls; !r && *n; n++)
		r = sandbox_allow(ctx, *n);
	for (n = extra; !r && n && *n; n++)
		r = sandbox_allow(ctx, *n);
	/* seccomp_load() sets no_new_privs itself (SCMP_FLTATR_CTL_NNP);
	 * set it here too so that it holds even if that default changes. */
	if (!r && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -errno;
	if (!r)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		log_warnx("sandbox: cannot install the seccomp filter: %s",
			  strerror(-r));
	return r;
}
