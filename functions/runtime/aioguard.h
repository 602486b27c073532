/*
 * aioguard: keeps a worker's memory alive until its endpoint AIO is gone.
 *
 * Linux 6.1's f_fs (Debian's 6.1.192) completes an AIO read in its
 * per-instance ordered workqueue, which takes a reference on the reader's
 * memory (mmget_not_zero) to copy the data. When a worker dies (kill -9,
 * a crash) while such a copy runs, that reference is the last: the
 * kworker itself tears the memory down, and exit_aio() waits for the
 * worker's other requests, whose completions are queued behind it on the
 * same ordered workqueue. The kworker never wakes again, and every later
 * unbind of the gadget (gadgetd writing UDC, a host reset) blocks in
 * ffs_func_unbind()'s drain_workqueue(): gadgetd in D state, for good.
 * Seen on the bed (tests/loopback/t-soak.sh, kill -9 of adb's worker
 * during adb push, 1 kill in 4), /proc/PID/stack:
 *
 *   kworker/u4:1+adb               gadgetd (writing "" to UDC)
 *   exit_aio+0x109                 __flush_workqueue+0x151
 *   __mmput+0x12                   drain_workqueue+0x89
 *   ffs_user_copy_worker+0x14e     ffs_func_unbind+0x52 [usb_f_fs]
 *   process_one_work+0x1c7         purge_configs_funcs+0xdc [libcomposite]
 *   worker_thread+0x4d             configfs_composite_unbind+0x57
 *                                  gadget_unbind_driver+0x8d [udc_core]
 *                                  usb_gadget_unregister_driver+0x1a
 *                                  gadget_dev_desc_UDC_store+0xb4
 *
 * No order of gadgetd's own steps avoids it: the kworker is stuck before
 * gadgetd does anything, and any unbind (even the kernel's own, on a host
 * reset) then waits for it.
 *
 * The guard is a second process sharing the worker's memory (CLONE_VM,
 * nothing else), so the worker's death never drops the last reference.
 * When the worker is gone, the guard destroys the AIO context: io_destroy()
 * cancels every request and waits for them (their copies still find the
 * memory alive), and only then does the guard exit and release it, with
 * no request left. It holds no file descriptor and runs under its own
 * seccomp filter (io_destroy, waiting for a signal, exit, and the one
 * byte that tells the worker the filter is in place).
 *
 * As it shares the worker's memory, the guard must be locked down before
 * the worker reads a byte a host sent: aioguard_start() returns only once
 * the guard has said so on a pipe, and fails otherwise. The start, the
 * filter and the raw system calls are guardlock.c's, shared with the
 * guard of a program gadgetd only starts (adbd, umtprd: type = "ffs";
 * exec = ...), which cannot call aioguard_start(): gadgetd-worker
 * preloads gadgetd-aioguard.so into it (aiopreload.c), whose constructor
 * starts the same kind of guard. That guard cannot be told the context
 * and cannot rely on getppid() (the program is its parent, but a
 * program's thread may exit first): it waits on a pidfd of the program,
 * which is readable once its last thread is gone, and finds the
 * contexts in /proc/self/maps (a ring is "/[aio] (deleted)", and its
 * start is the context id), then destroys them all.
 */
#ifndef GADGETD_AIOGUARD_H
#define GADGETD_AIOGUARD_H

#include <libaio.h>
#include <sys/types.h>

/*
 * Start the guard of this process (once; call it single-threaded, after
 * the credentials are dropped and before the first AIO request), and wait
 * until it has installed its seccomp filter. Returns the guard's pid, or
 * -errno: -EPERM when it could not lock itself down, -ETIMEDOUT when it
 * did not say so within 5 s (the guard is then killed and reaped). The
 * guard has no exit signal (wait for it with __WALL); it exits 0 once it
 * destroyed the watched context, 3 when there was none, 2 when
 * io_destroy failed, 1 when its filter could not be installed.
 */
pid_t aioguard_start(void);

/* The one AIO context the guard destroys once this process is gone
 * (NULL: none). One this process destroyed itself is harmless: the
 * guard's io_destroy then fails. */
void aioguard_watch(io_context_t ctx);

#endif
