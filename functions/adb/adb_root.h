/*
 * adb_root: the root: and unroot: services (`adb root`, `adb unroot`), as
 * a debuggable or a production Android build answers them.
 *
 * The shell side (shells, sync, forwards: the whole worker) runs as the
 * function's unprivileged user. Where the profile says root = "allowed",
 * root: answers "restarting adbd as root\n" and, once the host has the
 * text, asks gadgetd to restart the worker as root (plugin_request_root());
 * the host's adb sees the device go and come back. unroot: undoes it.
 * Elsewhere root: answers AOSP's "adbd cannot run as root in production
 * builds\n" and nothing changes.
 */
#ifndef GADGETD_ADB_ROOT_H
#define GADGETD_ADB_ROOT_H

#include "adb_stream.h"

struct plugin;

/*
 * The OPEN of service name: -ENOENT when it is not root: or unroot:,
 * else 0 with a service that sends the answer and closes, or -errno. A
 * restart is asked for once the stream is gone and the answer has left
 * IN endpoint ep_in (or after a second).
 */
int adb_root_open(struct plugin *p, unsigned ep_in, const char *name,
		  const struct adb_service_ops **ops, void **svc);

#endif
