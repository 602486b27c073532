/*
 * guardlock: what the two AIO guards share (the bug and the cure are in
 * aioguard.h). aioguard.c starts the guard of gadgetd's own workers;
 * aiopreload.c, a library gadgetd preloads into a FunctionFS program it
 * only starts (type = "ffs"; exec = ...), starts the same kind of guard
 * from the program's constructor.
 *
 * A guard is a process made by clone(CLONE_VM) alone: it shares the
 * memory of the process it guards and nothing else (its own file table,
 * signal handlers, no exit signal). It runs on a stack of its own but
 * with the guarded process's TLS pointer, so it must not touch libc state:
 * errno is thread-local, and a failed libc system call would write the
 * guarded thread's errno. guardlock_sys() makes a system call that
 * writes nothing but its result. Before the guarded process goes on, the
 * guard locks itself under a seccomp filter (guardlock_filter()) and
 * says so with one byte on a pipe (guardlock_say_locked()), which
 * guardlock_start() waits for.
 */
#ifndef GADGETD_GUARDLOCK_H
#define GADGETD_GUARDLOCK_H

#include <stddef.h>
#include <sys/types.h>

/* The most system calls a guard's filter allows besides write() to its
 * lock pipe. */
#define GUARDLOCK_MAX_ALLOW 16

/*
 * A system call that sets no errno, its fifth and sixth arguments 0:
 * the result, or -errno. Inline
 * assembly on x86-64 and arm64; elsewhere libc's syscall(), whose errno
 * on failure then lands in the guarded thread's (say so where it
 * matters).
 */
long guardlock_sys(long nr, long a, long b, long c, long d);

/*
 * In the guard: no_new_privs, then a filter that kills the guard on
 * any system call but the n in allow and write() to lockfd. 0 or -errno.
 * Makes no libc call.
 */
int guardlock_filter(int lockfd, const int *allow, size_t n);

/* In the guard, once locked: the byte guardlock_start() waits for, then
 * lockfd closed. 0 or -errno. */
int guardlock_say_locked(int lockfd);

/*
 * In the guarded process: clone(CLONE_VM) fn on stack (size bytes, in
 * memory that stays mapped) with arg, *lockfd set to the write end of
 * the pipe the guard says it is locked on before the clone (fn reads it
 * there), and wait up to 5 s for that. The guard's pid, or -errno:
 * -EPERM when it ended without a word (it could not lock itself down),
 * -ETIMEDOUT when it said nothing in time; the guard is then killed and
 * reaped. errno is kept as it was.
 */
pid_t guardlock_start(int (*fn)(void *), void *arg, void *stack, size_t size,
		      int volatile *lockfd);

#endif
