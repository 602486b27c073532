/*
 * ffsexec: gadgetd-worker -x, which runs an existing FunctionFS program
 * (umtprd, adbd) as a function instead of hosting a plugin (a profile's
 * type = "ffs"; exec = ...).
 *
 * The worker stays the program's parent, so that gadgetd supervises it
 * as any worker: it takes the function's user, group and capabilities
 * (sandbox_drop()), optionally binds the instance where the program looks
 * for it in a mount namespace of its own (-m), and starts the program
 * with no_new_privs and a parent-death signal. It tells gadgetd READY once
 * the program has written its descriptors and strings, which it sees as
 * the instance's ep1 appearing (f_fs makes the endpoint files only after
 * both), answers the heartbeat, passes SIGTERM on, and ends as the
 * program ends: the same exit status, or the same signal.
 */
#ifndef GADGETD_FFSEXEC_H
#define GADGETD_FFSEXEC_H

#include "wargv.h"

/* How often the instance is looked at for ep1 until it appears. */
#define FFSEXEC_POLL_MS 20

/* Run a's program (a->exec) to its end; the worker's exit status. */
int ffsexec_run(const struct wargv *a);

#endif
