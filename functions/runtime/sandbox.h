/*
 * sandbox: what a worker gives up before it reads a byte from the host.
 *
 * gadgetd starts every worker as root. The worker then
 *   1. sandbox_drop(): keeps only the capabilities its profile grants
 *      (bounding, permitted, effective, inheritable and ambient sets),
 *      takes the function's user, group and that user's supplementary
 *      groups;
 *   2. sets itself up (plugin init, FunctionFS descriptors), forking the
 *      spawner first if the plugin starts processes (spawner.h);
 *   3. sandbox_lock(): sets no_new_privs and installs a seccomp filter
 *      that allows the runtime's system calls plus those the plugin's
 *      declaration lists (plugin_meta.syscalls). Any other call kills the whole worker with
 *      SIGSYS, which gadgetd logs as "killed by signal 31".
 */
#ifndef GADGETD_SANDBOX_H
#define GADGETD_SANDBOX_H

#include <stdint.h>
#include <sys/types.h>

/*
 * Become uid:gid with user's supplementary groups (user NULL: none) and
 * keep exactly the capabilities in caps (bit n = capability n). As root
 * any uid/gid may be taken; otherwise uid and gid must be the current
 * ones (the caller was started by hand) and only the capabilities are
 * reduced. 0 or -errno; on error the process must exit, as its
 * credentials may be half changed.
 */
int sandbox_drop(const char *user, uid_t uid, gid_t gid, uint64_t caps);

/*
 * no_new_privs, then the seccomp filter: the runtime's list plus extra
 * (NULL-terminated system call names, may be NULL). -EINVAL when a name
 * is not a system call of this architecture (nothing is installed then),
 * or -errno.
 */
int sandbox_lock(const char *const *extra);

/* The runtime's own list (NULL-terminated), for tests and documentation. */
extern const char *const sandbox_runtime_syscalls[];

#endif
