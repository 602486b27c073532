/*
 * aiopreload: gadgetd-aioguard.so, the AIO guard of a FunctionFS program
 * that gadgetd only starts (type = "ffs"; exec = ...). gadgetd-worker
 * preloads it (LD_PRELOAD) unless the profile says aio_guard = false.
 * The bug it keeps away and why a guard does: aioguard.h. A program such
 * as adbd cannot call aioguard_start(), so this library's constructor
 * starts the guard before the program's main(), and the guard finds the
 * program's AIO contexts by itself once the program is gone:
 *
 * - It takes a pidfd of the program, opens /proc/self/maps (its own
 *   view of the memory they share) and closes every other fd of its copy
 *   of the file table, so that it holds none of the endpoints the
 *   program opens later (it never has them: its table was copied before)
 *   nor a pipe or socket the program got from its parent.
 * - It names itself "aioguard" (pgrep -x NAME does not count it; its
 *   command line, read from the shared memory, is the program's), blocks
 *   every signal and locks itself under a seccomp filter: poll, read,
 *   io_destroy, close and exit; then the constructor goes on.
 * - It waits until the whole program has ended: the pidfd becomes
 *   readable once the last of its threads has exited (not a pipe's EOF,
 *   which a daemon closing its fds would fake; not PDEATHSIG, which a
 *   thread's exit fires).
 * - Each AIO context has its ring mapped in that memory, "/[aio]
 *   (deleted)" in the maps, and io_setup()'s context id is the mapping's
 *   start (fs/aio.c: ctx->user_id = ctx->mmap_base, kept so on mremap).
 *   The guard io_destroy()s each: that cancels the requests and waits
 *   for their completions, which find the memory alive through the guard.
 *   Then it exits, the last user of the memory, with no request left.
 *
 * The constructor also takes the library out of LD_PRELOAD, so that the
 * program's children (adb shell's commands) start no guard of their own.
 * If the guard cannot start, the program does not run: it would wedge the
 * gadget on its first crash (aio_guard = false runs it without).
 *
 * What it does not cover: a child the program forks and leaves the work
 * to (a daemon's double fork: gadgetd needs its programs in the
 * foreground anyway) has memory of its own and no guard; a program that
 * execs another image keeps its old memory, held by the guard until the
 * process ends, and the new image has no guard (its LD_PRELOAD is gone).
 */
#include "guardlock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The library's file name, as gadgetd-worker puts it in LD_PRELOAD. */
#define AIOPRELOAD_NAME "gadgetd-aioguard.so"
/* The most contexts destroyed (adbd has one; a program with more than
 * this many keeps the rest, which the guard's exit then tears down). */
#define AIOPRELOAD_MAX_CTX 64
#define AIOPRELOAD_SIGSET 8

static uint8_t aiopreload_stack[16384] __attribute__((aligned(16)));
static int volatile aiopreload_lockfd = -1;

static const int aiopreload_allow[] = {
#ifdef __NR_poll
	__NR_poll,
#endif
	__NR_ppoll,
#ifdef __NR_ppoll_time64
	__NR_ppoll_time64,
#endif
	__NR_read,
	__NR_io_destroy,
	__NR_close,
	__NR_exit,
	__NR_exit_group,
};

/* Close every fd but the n in keep (sorted, ascending). */
static void aiopreload_close_others(const int *keep, unsigned n)
{
	unsigned from = 0, i;

	for (i = 0; i < n; i++) {
		if ((unsigned)keep[i] > from)
			guardlock_sys(SYS_close_range, from, keep[i] - 1, 0, 0);
		from = keep[i] + 1;
	}
	guardlock_sys(SYS_close_range, from, ~0U, 0, 0);
}

static void aiopreload_sort3(int *v)
{
	int t;

	if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
	if (v[1] > v[2]) { t = v[1]; v[1] = v[2]; v[2] = t; }
	if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
}

/* The guard calls no libc function (guardlock.h): memcmp by hand. */
static bool aiopreload_same(const char *a, const char *b, size_t n)
{
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* The start of a maps line ("START-END PERMS ... PATH") whose path is an
 * AIO ring, or 0. */
static unsigned long aiopreload_ring(const char *line, size_t len)
{
	static const char aio[] = " /[aio]";
	unsigned long start = 0;
	size_t i, k = sizeof(aio) - 1;
	bool found = false;

	for (i = 0; i + k <= len && !found; i++)
		found = aiopreload_same(line + i, aio, k);
	if (!found)
		return 0;
	for (i = 0; i < len && line[i] != '-'; i++) {
		char c = line[i];
		int v = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (v < 0)
			return 0;
		start = start << 4 | (unsigned long)v;
	}
	return start;
}

/* The AIO contexts in maps, at most max of them into ids. */
static unsigned aiopreload_contexts(int maps, unsigned long *ids, unsigned max)
{
	char buf[4096];
	size_t have = 0, line, i;
	unsigned n = 0;
	long r;

	for (;;) {
		r = guardlock_sys(SYS_read, maps, (long)(buf + have),
				  (long)(sizeof(buf) - have), 0);
		if (r <= 0)
			return n;
		have += (size_t)r;
		/* Each whole line; a line longer than the buffer (a very
		 * long path) is dropped: no ring has one. */
		for (;;) {
			for (line = 0; line < have && buf[line] != '\n'; line++)
				;
			if (line == have) {
				if (have == sizeof(buf))
					have = 0;
				break;
			}
			if (n < max && (ids[n] = aiopreload_ring(buf, line)))
				n++;
			for (i = line + 1; i < have; i++)
				buf[i - line - 1] = buf[i];
			have -= line + 1;
		}
	}
}

/* Exit status: 0 every context found was destroyed, 3 there was none,
 * 2 an io_destroy failed, 1 the guard could not start. */
static int aiopreload_main(void *arg)
{
	pid_t program = (pid_t)(intptr_t)arg;
	int lockfd = aiopreload_lockfd, pidfd, maps, keep[3];
	unsigned long ids[AIOPRELOAD_MAX_CTX];
	uint64_t all = ~(uint64_t)0;
	struct pollfd pfd;
	unsigned i, n;
	int status = 0;

	pidfd = (int)guardlock_sys(SYS_pidfd_open, program, 0, 0, 0);
	maps = (int)guardlock_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/maps",
				  O_RDONLY | O_CLOEXEC, 0);
	if (pidfd < 0 || maps < 0)
		guardlock_sys(SYS_exit, 1, 0, 0, 0);
	keep[0] = lockfd;
	keep[1] = pidfd;
	keep[2] = maps;
	aiopreload_sort3(keep);
	aiopreload_close_others(keep, 3);
	guardlock_sys(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, AIOPRELOAD_SIGSET);
	guardlock_sys(SYS_prctl, PR_SET_NAME, (long)"aioguard", 0, 0);
	if (guardlock_filter(lockfd, aiopreload_allow,
			     sizeof(aiopreload_allow) / sizeof(aiopreload_allow[0])) < 0 ||
	    guardlock_say_locked(lockfd) < 0)
		guardlock_sys(SYS_exit, 1, 0, 0, 0);
	/* Every signal is blocked: the wait ends with the program alone. */
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	do
		pfd.revents = 0;
	while (guardlock_sys(SYS_ppoll, (long)&pfd, 1, 0, 0) <= 0 ||
	       !(pfd.revents & POLLIN));
	n = aiopreload_contexts(maps, ids, AIOPRELOAD_MAX_CTX);
	if (!n)
		status = 3;
	for (i = 0; i < n; i++)
		if (guardlock_sys(SYS_io_destroy, (long)ids[i], 0, 0, 0) < 0)
			status = 2;
	guardlock_sys(SYS_exit, status, 0, 0, 0);
	return 0;
}

/* LD_PRELOAD without this library (its entries are separated by ':' or
 * ' '), or unset when nothing else is left. */
static void aiopreload_unset(void)
{
	const char *v = getenv("LD_PRELOAD");
	char *out, *copy, *tok, *save = NULL, *slash;
	size_t len = 0;

	if (!v || !(copy = strdup(v)))
		return;
	out = calloc(1, strlen(v) + 1);
	if (!out) {
		free(copy);
		return;
	}
	for (tok = strtok_r(copy, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
		slash = strrchr(tok, '/');
		if (!strcmp(slash ? slash + 1 : tok, AIOPRELOAD_NAME))
			continue;
		len += (size_t)sprintf(out + len, "%s%s", len ? ":" : "", tok);
	}
	if (len)
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	free(out);
	free(copy);
}

__attribute__((constructor)) static void aiopreload_init(void)
{
	int saved = errno;
	pid_t pid;

	aiopreload_unset();
	pid = guardlock_start(aiopreload_main, (void *)(intptr_t)getpid(),
			      aiopreload_stack, sizeof(aiopreload_stack),
			      &aiopreload_lockfd);
	if (pid < 0) {
		fprintf(stderr, "%s: cannot start the AIO guard of %s: %s "
			"(the profile's aio_guard = false runs it without)\n",
			AIOPRELOAD_NAME, program_invocation_name, strerror((int)-pid));
		_exit(127);
	}
	errno = saved;
}
